package collect

import (
	"bytes"
	"context"
	"io"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// ec2DecodeInstances puts instancesDecoder in the place of a DescribeInstances call's
// deserializer: a successful answer ec2ReadInstances reads is decoded by it, every other
// answer (errors, and those it gives up on) by the SDK's deserializer, as before. Either way
// a successful answer's nextToken is passed on before it is decoded (lookaheadKey).
func ec2DecodeInstances(o *ec2.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		d := &instancesDecoder{}
		sdk, err := stack.Deserialize.Swap("OperationDeserializer", d)
		d.sdk = sdk
		return err
	})
}

type instancesDecoder struct {
	sdk middleware.DeserializeMiddleware
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
	buf := ec2AnswerBuffer()
	defer ec2AnswerBuffers.Put(buf) // what the answer decodes to holds copies of its text
	_, rerr := buf.ReadFrom(resp.Body)
	ec2AnswerRead(buf.Len())
	if rerr == nil {
		if seen, _ := ctx.Value(lookaheadKey{}).(func(string)); seen != nil {
			if token := ec2NextToken(buf.Bytes()); token != "" {
				seen(token) // before decoding: the next page is asked for meanwhile
			}
		}
		if reservations, token, ok := ec2ReadInstances(buf.Bytes(), internerOf(ctx)); ok {
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

// ec2AnswerBuffers holds the buffers DescribeInstances answers are read into whole (pages of
// several MB, two or more at a time): each is reused by the next answer, not grown again.
var ec2AnswerBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ec2AnswerSize is the length of the longest answer read into a buffer of ec2AnswerBuffers.
var ec2AnswerSize atomic.Int64

// ec2AnswerBuffer returns an empty buffer from ec2AnswerBuffers, with room for the longest
// answer read so far: when the collector has emptied the pool (a collection every few pages
// at 10,000 nodes) a new buffer is made once at about its size, not grown from nothing by
// doubling.
func ec2AnswerBuffer() *bytes.Buffer {
	buf := ec2AnswerBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	buf.Grow(int(ec2AnswerSize.Load()) + bytes.MinRead)
	return buf
}

// ec2AnswerRead records the length of an answer read into a buffer of ec2AnswerBuffers.
func ec2AnswerRead(n int) {
	for {
		old := ec2AnswerSize.Load()
		if int64(n) <= old || ec2AnswerSize.CompareAndSwap(old, int64(n)) {
			return
		}
	}
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
