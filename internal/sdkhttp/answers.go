package sdkhttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/karpnet/kubectl-karpnet/internal/oneline"
)

// headSize is how much of an answer is read ahead to find its root element.
const headSize = 4 << 10

// QueryAnswers returns an entry for the APIOptions of an EC2 query-protocol client (for the
// client or one call) that checks every answer before the SDK decodes it. A successful answer
// must be the XML document of the call, whose root element is the operation's name and
// "Response" (<DescribeInstancesResponse>); an error answer must be EC2's <Response> error
// document; and no answer may be longer than limit bytes. The SDK would read an HTML page or
// an empty body with status 200 as an empty result, an HTML error page as "UnknownError",
// and an endless answer until memory runs out; each fails the call with an *AnswerError instead.
func QueryAnswers(limit int64) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		// Added last to the deserialize step, it runs nearest the transport: it sees the raw
		// answer before the operation's deserializer reads it.
		return stack.Deserialize.Add(&queryAnswers{limit: limit}, middleware.After)
	}
}

// AnswerError is an answer that is not the EC2 document the call expects, or is too long.
type AnswerError struct {
	// Operation is the call, such as DescribeInstances.
	Operation string
	// StatusCode and ContentType are the HTTP answer's.
	StatusCode  int
	ContentType string
	// Excerpt is the start of the body on one line, control characters escaped.
	Excerpt string
	// Limit is set when the body was longer than Limit bytes.
	Limit int64
}

func (e *AnswerError) Error() string {
	if e.Limit > 0 {
		return fmt.Sprintf("the EC2 endpoint's answer to %s is longer than %d MiB, the most karpnet reads", e.Operation, e.Limit>>20)
	}
	what := "an empty body"
	if e.Excerpt != "" {
		what = `"` + e.Excerpt + `"`
	}
	kind := "not EC2's XML"
	if e.StatusCode >= 200 && e.StatusCode < 300 {
		kind = "not a " + e.Operation + " answer"
	}
	ct := ""
	if e.ContentType != "" {
		ct = ", " + oneline.Text(e.ContentType, 60)
	}
	return fmt.Sprintf("HTTP %d from the EC2 endpoint%s, %s: %s", e.StatusCode, ct, kind, what)
}

// RetryableError tells the SDK's retryer to try again only after a server error (HTTP 5xx):
// a body of the wrong kind with 200, or one too long, comes back the same.
func (e *AnswerError) RetryableError() bool { return e.Limit == 0 && e.StatusCode >= 500 }

// NotEC2 reports whether the endpoint answered success with something that is not an EC2
// answer, such as a captive portal's page: nothing it says is EC2's.
func (e *AnswerError) NotEC2() bool {
	return e.Limit == 0 && e.StatusCode >= 200 && e.StatusCode < 300
}

type queryAnswers struct{ limit int64 }

func (*queryAnswers) ID() string { return "KarpnetQueryAnswers" }

func (m *queryAnswers) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	middleware.DeserializeOutput, middleware.Metadata, error,
) {
	out, metadata, err := next.HandleDeserialize(ctx, in)
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if err != nil || !ok || resp.Body == nil {
		return out, metadata, err
	}
	op := operationName(ctx)
	body := &boundedBody{r: bufio.NewReaderSize(resp.Body, headSize), c: resp.Body, left: m.limit}
	body.tooLong = &AnswerError{Operation: op, StatusCode: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Limit: m.limit}
	resp.Body = body
	want := "Response"
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		want = op + "Response"
	}
	head, _ := body.r.Peek(headSize)
	if root := rootElement(head); root != want {
		body.ended = true // nothing of it is read: the SDK's drain before closing ends at once
		return out, metadata, &AnswerError{Operation: op, StatusCode: resp.StatusCode,
			ContentType: resp.Header.Get("Content-Type"), Excerpt: oneline.Bytes(head, 120)}
	}
	return out, metadata, nil
}

// operationName returns the name of the call ctx belongs to.
func operationName(ctx context.Context) string {
	if op := awsmiddleware.GetOperationName(ctx); op != "" {
		return op
	}
	return middleware.GetOperationName(ctx)
}

// rootElement returns the local name of the first element of an XML document that starts
// with head, or "" when head does not start an XML document.
func rootElement(head []byte) string {
	dec := xml.NewDecoder(bytes.NewReader(head))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t.Name.Local
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return ""
			}
		}
	}
}

// boundedBody reads an answer and fails once more than left bytes came. After that failure,
// or once ended, it reads as empty, so that the SDK's drain of the body before closing it
// neither reads on nor logs a warning; closing drops the connection.
type boundedBody struct {
	r       *bufio.Reader
	c       io.Closer
	left    int64
	tooLong error
	ended   bool
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.ended {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		b.ended = true
		return n - 1, b.tooLong
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.c.Close() }
