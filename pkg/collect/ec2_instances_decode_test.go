package collect

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2SDKInstances decodes body with the SDK's own DescribeInstances deserializer (with
// decode, with karpnet's in its place, reading into buffers of its own), as a 200 answer.
func ec2SDKInstances(body []byte, decode bool) (*ec2.DescribeInstancesOutput, error) {
	var answers *answerBuffers
	if decode {
		answers = &answerBuffers{}
	}
	return ec2SDKInstancesIn(context.Background(), body, answers)
}

// ec2SDKInstancesIn is ec2SDKInstances in ctx (which may carry a collection's interner), with
// karpnet's decoder reading into answers when they are set, and the SDK's decoding alone when
// not.
func ec2SDKInstancesIn(ctx context.Context, body []byte, answers *answerBuffers) (*ec2.DescribeInstancesOutput, error) {
	opts := []func(*ec2.Options){func(o *ec2.Options) {
		o.HTTPClient = smithyhttp.ClientDoFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/xml"}},
				Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
		})
		o.RetryMaxAttempts = 1
	}}
	client := ec2sim.NewClient("http://ec2.invalid", "us-west-2", opts...)
	var call []func(*ec2.Options)
	if answers != nil {
		call = append(call, ec2DecodeInstances(answers))
	}
	return client.DescribeInstances(ctx, &ec2.DescribeInstancesInput{}, call...)
}

// ec2Kept is what karpnet keeps of an answer: each reservation's owner, the instances
// ec2PageInstances gives (read by karpnet's decoder, or the SDK's converted), and the
// nextToken.
func ec2Kept(out *ec2.DescribeInstancesOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "next=%q\n", aws.ToString(out.NextToken))
	for _, r := range out.Reservations {
		fmt.Fprintf(&b, "owner=%q\n", aws.ToString(r.OwnerId))
	}
	for _, v := range ec2PageInstances(context.Background(), out) {
		fmt.Fprintf(&b, "  %#v\n", v)
	}
	return b.String()
}

// TestDecodeInstancesAsTheSDKDoes reads ec2sim's answers, whose instances have every field
// karpnet keeps, through a client with karpnet's decoder (ec2xml.ReadInstances) in the place
// of the SDK's: the instances it reads, passed on through the SDK's stack in the output's
// metadata, are what ec2xml.Instance makes of the SDK's decode, with and without the
// collection's interner.
func TestDecodeInstancesAsTheSDKDoes(t *testing.T) {
	sim := ec2sim.New()
	sim.AddInstances(ec2sim.EveryFieldInstances()...)
	sim.SetPageSize(2)
	first := sim.Answer(t, ec2sim.DescribeInstances, url.Values{})
	sdk, err := ec2SDKInstances(first, false)
	if err != nil || sdk.NextToken == nil {
		t.Fatalf("the SDK read %+v, %v; want a page with a nextToken", sdk, err)
	}
	bodies := map[string][]byte{
		"ec2sim":           first,
		"ec2sim last page": sim.Answer(t, ec2sim.DescribeInstances, url.Values{"NextToken": {*sdk.NextToken}}),
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			sdk, err := ec2SDKInstances(body, false)
			if err != nil {
				t.Fatalf("the SDK refused it: %v", err)
			}
			want := ec2Kept(sdk)
			through, err := ec2SDKInstances(body, true)
			if err != nil || ec2Kept(through) != want {
				t.Fatalf("through the client: %v\n%s\nwant\n%s", err, ec2Kept(through), want)
			}
			if _, read := through.ResultMetadata.Get(decodedKey{}).([]snapshot.Instance); !read {
				t.Fatal("the SDK's deserializer read the answer, not karpnet's")
			}
			interned, err := ec2SDKInstancesIn(withInterner(t.Context()), body, &answerBuffers{})
			if err != nil || ec2Kept(interned) != want {
				t.Fatalf("through the client, interning: %v\n%s", err, ec2Kept(interned))
			}
		})
	}
}

// TestDecodeInstancesLeavesToTheSDKWhatItDoesNotRead: an answer ec2xml.ReadInstances gives up
// on is decoded by the SDK's deserializer instead, with the same outcome as without karpnet's
// (the same instances, or the same refusal).
func TestDecodeInstancesLeavesToTheSDKWhatItDoesNotRead(t *testing.T) {
	wrap := func(instance string) []byte {
		return []byte(`<?xml version="1.0" encoding="UTF-8"?><DescribeInstancesResponse><reservationSet><item><ownerId>1</ownerId>` +
			`<instancesSet><item>` + instance + `</item></instancesSet></item></reservationSet></DescribeInstancesResponse>`)
	}
	for name, body := range map[string][]byte{
		"comment":        wrap(`<instanceId>i-1</instanceId><!-- note -->`),
		"CDATA":          wrap(`<instanceId><![CDATA[i-1]]></instanceId>`),
		"unknown entity": wrap(`<instanceId>&nbsp;</instanceId>`),
		"mismatched end": wrap(`<instanceId>i-1</instanceid>`),
		"truncated":      wrap(`<instanceId>i-1</instanceId>`)[:120],
		"bad time":       wrap(`<launchTime>yesterday</launchTime>`),
		"doctype":        []byte(`<!DOCTYPE x><DescribeInstancesResponse/>`),
	} {
		t.Run(name, func(t *testing.T) {
			sdk, sdkErr := ec2SDKInstances(body, false)
			through, err := ec2SDKInstances(body, true)
			if (sdkErr == nil) != (err == nil) || sdkErr != nil && sdkErr.Error() != err.Error() {
				t.Fatalf("through karpnet's decoder: %v; the SDK alone: %v", err, sdkErr)
			}
			if err == nil && ec2Kept(sdk) != ec2Kept(through) {
				t.Fatalf("kept differently:\n got %s\nwant %s", ec2Kept(through), ec2Kept(sdk))
			}
		})
	}
}

// BenchmarkDecodeInstances decodes one DescribeInstances page of 1,000 instances (ec2sim's
// rendering of a node with three ENIs) through the client, with the SDK's deserializer and
// with karpnet's, which reads each page into the same buffers, as a Collector's pages are.
func BenchmarkDecodeInstances(b *testing.B) {
	sim := ec2sim.New()
	base := ec2sim.EveryFieldInstances()[0]
	for i := range ec2PageSize {
		in := base
		in.ID = ec2InstanceID(i)
		sim.AddInstances(in)
	}
	sim.SetPageSize(ec2PageSize)
	body := sim.Answer(b, ec2sim.DescribeInstances, url.Values{})
	for _, way := range []string{"sdk", "karpnet", "karpnet-interned"} {
		b.Run(way, func(b *testing.B) {
			ctx := context.Background()
			if way == "karpnet-interned" {
				ctx = withInterner(ctx) // as in a collection, where the interner holds what repeats
			}
			var answers *answerBuffers
			if way != "sdk" {
				answers = &answerBuffers{}
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				out, err := ec2SDKInstancesIn(ctx, body, answers)
				if err != nil {
					b.Fatal(err)
				}
				if got := ec2PageInstances(ctx, out); len(got) != ec2PageSize {
					b.Fatalf("%d instances, want %d", len(got), ec2PageSize)
				}
			}
		})
	}
}
