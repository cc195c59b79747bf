package harness

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go/middleware"
)

// motoAttempts counts the HTTP attempts an SDK client sends per action, the retryer's retries
// included, and keeps the error of every attempt that failed. moto counts what reaches it, so
// a transient failure the SDK retried (a reset connection on a loaded machine) is told apart
// from a launcher that counts one request twice.
type motoAttempts struct {
	mu     sync.Mutex
	sent   map[string]int
	failed []motoFailedAttempt
}

type motoFailedAttempt struct{ action, err string }

// install adds the counter to a client's options, after the retry middleware so that each
// attempt passes it.
func (a *motoAttempts) install(o *ec2.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("karpnetCountAttempt",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
				middleware.FinalizeOutput, middleware.Metadata, error,
			) {
				out, md, err := next.HandleFinalize(ctx, in)
				op := middleware.GetOperationName(ctx)
				a.mu.Lock()
				defer a.mu.Unlock()
				if a.sent == nil {
					a.sent = map[string]int{}
				}
				a.sent[op]++
				if err != nil {
					a.failed = append(a.failed, motoFailedAttempt{op, err.Error()})
				}
				return out, md, err
			}), middleware.After)
	})
}

// counts returns the attempts sent per action and the failed attempts' errors so far.
func (a *motoAttempts) counts() (map[string]int, []motoFailedAttempt) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.sent), slices.Clone(a.failed)
}
