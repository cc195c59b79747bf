package collect

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestEC2RequestTimeoutBoundsAnUnansweringEndpoint(t *testing.T) {
	w := newEC2World(t, 3)
	w.sim.SetLatency(5 * time.Second)
	c := &Collector{EC2: ec2sim.NewClient(w.url, "us-west-2"), RequestTimeout: 200 * time.Millisecond}

	start := time.Now()
	c.collectEC2(t.Context(), w.snap)
	elapsed := time.Since(start)

	if elapsed > 2*time.Second {
		t.Errorf("collection took %s, want it bounded near --request-timeout (200ms)", elapsed)
	}
	if len(w.snap.Gaps) != 1 {
		t.Fatalf("got gaps %+v, want one", w.snap.Gaps)
	}
	g := w.snap.Gaps[0]
	if g.Source != snapshot.SourceEC2 || !strings.Contains(g.Reason, "no answer within 200ms (--request-timeout)") {
		t.Errorf("got gap %+v, want source ec2 naming --request-timeout", g)
	}
	if got := w.sim.Total(); got != 1 {
		t.Errorf("got %d EC2 requests, want 1: the others must not wait on an unreachable endpoint", got)
	}
}

func TestEC2RequestTimeoutLeavesFastAnswersAlone(t *testing.T) {
	w := newEC2World(t, 3)
	c := &Collector{EC2: ec2sim.NewClient(w.url, "us-west-2"), RequestTimeout: 10 * time.Second}
	c.collectEC2(t.Context(), w.snap)
	if len(w.snap.Gaps) != 0 || len(w.snap.Instances) != 3 {
		t.Errorf("got %d instances and gaps %+v, want 3 and none", len(w.snap.Instances), w.snap.Gaps)
	}
}

// TestEC2UnreachableEndpointStopsTheBatches: with EC2's endpoint refusing connections, the
// first calls to fail (one per slot) end the read: the other batches of a 4,000-node cluster
// are not sent, and one gap says EC2 cannot be reached.
func TestEC2UnreachableEndpointStopsTheBatches(t *testing.T) {
	w := newEC2World(t, 4000)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	_ = l.Close() // nothing listens there now: every connection is refused
	meter := &Meter{}
	c := &Collector{EC2: ec2sim.NewClient(url, "us-west-2"), Meter: meter}
	c.collectEC2(t.Context(), w.snap)
	batches := ec2Ceil(4000, ec2FilterBatch)
	if got := meter.Progress().EC2Calls; got > ec2Concurrency || got == 0 {
		t.Errorf("made %d EC2 calls, want at most the %d in flight when the first failed (not all %d batches)", got,
			ec2Concurrency, batches)
	}
	if len(w.snap.Gaps) != 1 || w.snap.Gaps[0].Source != snapshot.SourceEC2 ||
		!strings.Contains(w.snap.Gaps[0].Reason, "cannot reach EC2") {
		t.Fatalf("got gaps %+v, want one ec2 gap saying EC2 cannot be reached", w.snap.Gaps)
	}
}
