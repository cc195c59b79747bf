package cmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// A collection that takes longer than progressDelay shows how far it got on standard error,
// when that is a terminal, redrawn in place every progressEvery and cleared when it ends.
const (
	progressDelay = 1500 * time.Millisecond
	progressEvery = 250 * time.Millisecond
)

// progressLine says what a collection has done, on one line of karpnet's own text and
// numbers: nothing read from the cluster.
func progressLine(p collect.Progress, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "collecting (%s): ", elapsed.Round(100*time.Millisecond))
	if p.NodesExpected > p.Nodes {
		fmt.Fprintf(&b, "%s of %s nodes listed", thousands(p.Nodes), thousands(p.NodesExpected))
	} else {
		fmt.Fprintf(&b, "%s nodes listed", thousands(p.Nodes))
	}
	fmt.Fprintf(&b, ", %s instances read, %s EC2 calls", thousands(p.Instances), thousands(p.EC2Calls))
	if p.Paced > 0 {
		fmt.Fprintf(&b, " (%s paced, %s waited)", thousands(p.Paced), p.PacedWait.Round(100*time.Millisecond))
	}
	return b.String()
}

// thousands writes n with thousands separators: 100,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// progress draws a collection's progress line on a terminal.
type progress struct {
	w     io.Writer
	meter *collect.Meter
	start time.Time
	stop  chan struct{}
	done  sync.WaitGroup
	drawn bool
}

// startProgress starts drawing the progress of the collection meter counts on standard error,
// when it is a terminal and the output is text: not with -o json, yaml, junit or sarif, not
// on a pipe, not under the terminal UI (which shows it on its loading screen). The returned
// func stops it and clears the line.
func (o *commonOptions) startProgress(meter *collect.Meter) (stop func()) {
	if o.machineOutput || o.tuiProgress || o.ErrOut == nil || !o.isTerminal(o.ErrOut) {
		return func() {}
	}
	p := &progress{w: o.ErrOut, meter: meter, start: time.Now(), stop: make(chan struct{})}
	delay, every := o.progressDelay, o.progressEvery
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			p.draw()
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(p.stop)
		p.done.Wait()
		if p.drawn {
			fmt.Fprint(p.w, "\r\x1b[K")
		}
	}
}

func (p *progress) draw() {
	p.drawn = true
	fmt.Fprint(p.w, "\r"+progressLine(p.meter.Progress(), time.Since(p.start))+"\x1b[K")
}

// printVerbose writes, with -v, how the instances were read and what the collection cost.
func (o *commonOptions) printVerbose(meter *collect.Meter, elapsed time.Duration) {
	if o.verbose < 1 || o.tuiProgress {
		return
	}
	p := meter.Progress()
	if p.Strategy != "" {
		fmt.Fprintf(o.ErrOut, "ec2: %s\n", printableLine(p.Strategy))
	}
	fmt.Fprintf(o.ErrOut, "collected in %s: %s nodes, %s instances (%s decoded), %s EC2 calls, %s of them paced (%s waited)\n",
		elapsed.Round(time.Millisecond), thousands(p.Nodes), thousands(p.Instances), thousands(p.Decoded),
		thousands(p.EC2Calls), thousands(p.Paced), p.PacedWait.Round(time.Millisecond))
}

// sdkLog says where the AWS SDK's own log lines go: to standard error, prefixed "aws-sdk:",
// with -v (and the requests it retries with -vv); nowhere otherwise, nor under the terminal
// UI, whose screen they would break.
func (o *commonOptions) sdkLog() collect.EC2Option {
	if o.verbose < 1 || o.tuiProgress {
		return collect.WithSDKLog(nil, false)
	}
	return collect.WithSDKLog(o.ErrOut, o.verbose >= 2)
}
