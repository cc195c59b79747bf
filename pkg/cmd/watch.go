package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/karpnet/kubectl-karpnet/internal/budget"
)

// watchFlagUsage is the help of --watch, on the TUI and on check.
const watchFlagUsage = "re-collect on this interval, e.g. 30s (at least 15s, to stay inside EC2's request budget); 0 never does"

// addWatchFlag adds --watch to fs, stored in d.
func addWatchFlag(fs *pflag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "watch", 0, watchFlagUsage)
}

// watchInterval turns --watch into the interval to collect on: zero for none, else at least
// budget.Floor. raisedFrom is the requested interval when it was raised, else zero.
func watchInterval(requested time.Duration) (every, raisedFrom time.Duration, err error) {
	if requested < 0 {
		return 0, 0, usageErrorf("--watch %s is negative: give an interval such as 30s, or 0 for no watch", requested)
	}
	every, raised := budget.Interval(requested, budget.Floor)
	if raised {
		raisedFrom = requested
	}
	return every, raisedFrom, nil
}

// watchNote says the interval watch mode collects on, and why when it was raised.
func watchNote(every, raisedFrom time.Duration) string {
	if raisedFrom > 0 {
		return fmt.Sprintf("watch: every %s (raised from %s: EC2 budget)", every, raisedFrom)
	}
	return fmt.Sprintf("watch: every %s", every)
}

// sleep waits d, or until ctx ends, and reports whether the wait ran out.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
