package collect

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// A DescribeInstances page of 1,000 instances takes the SDK longer to decode than EC2 takes
// to answer, and its nextToken comes at the end of the answer, so one page after another
// would keep one core decoding while the next page waits. ec2Lookahead reads the raw answer
// first and passes its nextToken on before the SDK decodes it: the next page is asked for
// while this one is decoded. What the SDK then decodes is the same answer, and the page it
// returns is checked against the token seen; a mismatch (never seen) drops the page read
// ahead and reads the right one.

// lookaheadKey is the context key of the function a call's early nextToken is passed to.
type lookaheadKey struct{}

// ec2Lookahead adds, nearest the transport, the middleware that passes a DescribeInstances
// answer's nextToken on (to the function in the call's context) before it is decoded.
func ec2Lookahead(o *ec2.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Deserialize.Add(lookaheadMiddleware{}, middleware.After)
	})
}

type lookaheadMiddleware struct{}

func (lookaheadMiddleware) ID() string { return "KarpnetNextTokenLookahead" }

func (lookaheadMiddleware) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	middleware.DeserializeOutput, middleware.Metadata, error,
) {
	out, metadata, err := next.HandleDeserialize(ctx, in)
	seen, _ := ctx.Value(lookaheadKey{}).(func(string))
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if err != nil || !ok || seen == nil || resp.Body == nil || resp.StatusCode != 200 {
		return out, metadata, err
	}
	buf := ec2AnswerBuffer()
	_, rerr := buf.ReadFrom(io.LimitReader(resp.Body, ec2MaxAnswer+1))
	body, rest := buf.Bytes(), resp.Body
	if rerr != nil || int64(len(body)) > ec2MaxAnswer {
		// Too long or broken: hand it on as it came, for the answer checks to refuse.
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), rest), rest}
		return out, metadata, err
	}
	_ = rest.Close()
	resp.Body = &pooledBody{Reader: bytes.NewReader(body), buf: buf}
	if token := ec2NextToken(body); token != "" {
		seen(token)
	}
	return out, metadata, err
}

// pooledBody reads an answer from a buffer of ec2AnswerBuffers, and gives it back when closed.
type pooledBody struct {
	*bytes.Reader
	buf *bytes.Buffer
}

func (b *pooledBody) Close() error {
	if b.buf != nil {
		b.Reader.Reset(nil)
		ec2AnswerBuffers.Put(b.buf)
		b.buf = nil
	}
	return nil
}

// ec2NextToken returns the nextToken element of a DescribeInstances answer, "" when it has
// none. Every value in the answer is escaped XML, so only the element itself reads
// <nextToken>.
func ec2NextToken(body []byte) string {
	start := bytes.LastIndex(body, []byte("<nextToken>"))
	if start < 0 {
		return ""
	}
	end := bytes.Index(body[start:], []byte("</nextToken>"))
	if end < 0 {
		return ""
	}
	var token string
	if xml.Unmarshal(body[start:start+end+len("</nextToken>")], &token) != nil {
		return ""
	}
	return token
}

// ec2PageAhead is a DescribeInstances page asked for before the page before it was decoded.
type ec2PageAhead struct {
	token  string
	answer chan ec2PageAnswer
	cancel context.CancelFunc
}

type ec2PageAnswer struct {
	out *ec2.DescribeInstancesOutput
	err error
}

// instancePages pages through DescribeInstances with filters, 1,000 a page, passing each
// instance to visit as its page arrives, each page asked for while the one before it is
// decoded (ec2Lookahead). It follows at most maxPages pages and asks for none past them.
func (c ec2Call) instancePages(ctx context.Context, filters []types.Filter, maxPages int, visit func(types.Instance)) error {
	var mu sync.Mutex
	var ahead *ec2PageAhead
	pages := 0
	var ask func(token *string) *ec2PageAhead
	ask = func(token *string) *ec2PageAhead {
		cctx, cancel := context.WithCancel(ctx)
		p := &ec2PageAhead{token: aws.ToString(token), answer: make(chan ec2PageAnswer, 1), cancel: cancel}
		early := func(next string) {
			mu.Lock()
			defer mu.Unlock()
			if ahead == nil && pages < maxPages && cctx.Err() == nil {
				ahead = ask(aws.String(next))
			}
		}
		go func() {
			out, err := c.api.DescribeInstances(context.WithValue(cctx, lookaheadKey{}, early), &ec2.DescribeInstancesInput{
				Filters: filters, MaxResults: aws.Int32(ec2PageSize), NextToken: token,
			}, c.opt, ec2Lookahead, ec2DecodeInstances)
			p.answer <- ec2PageAnswer{out, err}
		}()
		return p
	}
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		if ahead != nil {
			ahead.cancel()
			<-ahead.answer
		}
	}()
	return ec2PagesUpTo("DescribeInstances", maxPages, func(token *string) (*string, error) {
		mu.Lock()
		pages++
		p := ahead
		ahead = nil
		if p != nil && p.token != aws.ToString(token) {
			p.cancel() // read ahead for a token the page did not give: never used
			mu.Unlock()
			<-p.answer
			mu.Lock()
			p = nil
		}
		if p == nil {
			p = ask(token)
		}
		mu.Unlock()
		a := <-p.answer
		p.cancel()
		if a.err != nil {
			return nil, a.err
		}
		for _, r := range a.out.Reservations {
			for _, in := range r.Instances {
				visit(in)
			}
		}
		return a.out.NextToken, nil
	})
}
