package collect

import (
	"bytes"
	"context"
	"io"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/karpnet/kubectl-karpnet/internal/ec2xml"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2DecodeInstances returns the option that puts instancesDecoder in the place of a
// DescribeInstances call's deserializer: a successful answer ec2xml.ReadInstances reads is decoded
// by it straight into snapshot.Instance (ec2PageInstances takes them from the output's
// metadata), every other answer (errors, and those it gives up on) by the SDK's deserializer,
// as before. Either way a successful answer's nextToken is passed on before it is decoded
// (lookaheadKey). Answers are read into buffers of answers (nil: a new buffer each).
func ec2DecodeInstances(answers *answerBuffers) func(*ec2.Options) {
	return func(o *ec2.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			d := &instancesDecoder{answers: answers}
			sdk, err := stack.Deserialize.Swap("OperationDeserializer", d)
			d.sdk = sdk
			return err
		})
	}
}

type instancesDecoder struct {
	sdk     middleware.DeserializeMiddleware
	answers *answerBuffers
}

func (*instancesDecoder) ID() string { return "KarpnetDescribeInstancesDecoder" }

func (d *instancesDecoder) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	middleware.DeserializeOutput, middleware.Metadata, error,
) {
	out, metadata, err := next.HandleDeserialize(ctx, in)
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if err != nil || !ok || resp.Body == nil || resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return d.sdk.HandleDeserialize(ctx, in, answered{out, metadata, err})
	}
	buf := d.answers.Get()
	defer d.answers.Put(buf) // what the answer decodes to holds copies of its text
	_, rerr := buf.ReadFrom(resp.Body)
	d.answers.Read(buf.Len())
	if rerr == nil {
		if seen, _ := ctx.Value(lookaheadKey{}).(func(string)); seen != nil {
			if token := ec2xml.NextToken(buf.Bytes()); token != "" {
				seen(token) // before decoding: the next page is asked for meanwhile
			}
		}
		if page, ok := ec2xml.ReadInstancesExcept(buf.Bytes(), internerOf(ctx), readBefore(ctx)); ok {
			_ = resp.Body.Close()
			// The reservations name their owners only (BudgetedEC2 learns the account from
			// them); the instances, read into karpnet's records, go by the metadata.
			reservations := make([]types.Reservation, len(page.Owners))
			for i := range page.Owners {
				reservations[i].OwnerId = &page.Owners[i]
			}
			out.Result = &ec2.DescribeInstancesOutput{Reservations: reservations, NextToken: page.NextToken}
			metadata.Set(decodedKey{}, page.Instances)
			return out, metadata, nil
		}
	}
	// The SDK reads what was read, and then the error that ended it (an answer too long).
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf.Bytes()), errReader{rerr}), resp.Body}
	return d.sdk.HandleDeserialize(ctx, in, answered{out, metadata, nil})
}

// decodedKey is the metadata key of the instances instancesDecoder read.
type decodedKey struct{}

// ec2PageInstances returns the instances of a DescribeInstances page as karpnet keeps them:
// those instancesDecoder read, or else the SDK's, each converted and interned with the
// collection's strings. Instances without an ID are left out.
func ec2PageInstances(ctx context.Context, out *ec2.DescribeInstancesOutput) []snapshot.Instance {
	if got, ok := out.ResultMetadata.Get(decodedKey{}).([]snapshot.Instance); ok {
		return slices.DeleteFunc(got, func(v snapshot.Instance) bool { return v.ID == "" })
	}
	var got []snapshot.Instance
	for _, r := range out.Reservations {
		for _, in := range r.Instances {
			if v := ec2InstanceIn(ctx, in); v.ID != "" {
				got = append(got, v)
			}
		}
	}
	return got
}

// answered is a deserialize handler that returns an answer already had.
type answered struct {
	out      middleware.DeserializeOutput
	metadata middleware.Metadata
	err      error
}

func (a answered) HandleDeserialize(context.Context, middleware.DeserializeInput) (
	middleware.DeserializeOutput, middleware.Metadata, error,
) {
	return a.out, a.metadata, a.err
}

// errReader reads as err, or as the end when err is nil.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}

// readBeforeKey is the context key of the function that names the instances a call's answer
// holds that were read before in the run: they are read past undecoded.
type readBeforeKey struct{}

// withReadBefore returns ctx whose DescribeInstances answers leave out the instances read names.
func withReadBefore(ctx context.Context, read func(id string) bool) context.Context {
	return context.WithValue(ctx, readBeforeKey{}, read)
}

// readBefore returns the function withReadBefore set, or nil.
func readBefore(ctx context.Context) func(string) bool {
	f, _ := ctx.Value(readBeforeKey{}).(func(string) bool)
	return f
}
