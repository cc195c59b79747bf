package collect

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// A DescribeInstances page's nextToken comes at the end of its answer, so one page after
// another would leave EC2's latency and the decoding of each page on the critical path.
// instancesDecoder, which holds the raw answer whole before it decodes it, passes its
// nextToken on first (to the function in the call's context): the next page is asked for
// while this one is decoded. The page returned is checked against the token seen; a
// mismatch (never seen) drops the page read ahead and reads the right one.

// lookaheadKey is the context key of the function a call's early nextToken is passed to.
type lookaheadKey struct{}

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
// decoded (lookaheadKey). It follows at most maxPages pages and asks for none past them.
func (c ec2Call) instancePages(ctx context.Context, filters []types.Filter, maxPages int, visit func(snapshot.Instance)) error {
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
			}, c.opt, ec2DecodeInstances(c.answers))
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
		got := ec2PageInstances(ctx, a.out)
		c.meter.addDecoded(len(got))
		for _, v := range got {
			visit(v)
		}
		return a.out.NextToken, nil
	})
}
