package collect

import (
	"bytes"
	"context"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/karpnet/kubectl-karpnet/internal/ec2xml"
)

// ec2DecodeInstances returns the option that puts instancesDecoder in the place of a
// DescribeInstances call's deserializer: a successful answer ec2xml.ReadInstances reads is decoded
// by it, every other answer (errors, and those it gives up on) by the SDK's deserializer, as
// before. Either way a successful answer's nextToken is passed on before it is decoded
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
		if reservations, token, ok := ec2xml.ReadInstancesExcept(buf.Bytes(), internerOf(ctx), readBefore(ctx)); ok {
			_ = resp.Body.Close()
			out.Result = &ec2.DescribeInstancesOutput{Reservations: reservations, NextToken: token}
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
