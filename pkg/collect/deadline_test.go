package collect

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
)

// TestCollectDeadlineEndsAHangingEC2 reads a healthy API server and an EC2 endpoint that never
// answers, with no --request-timeout: at the collection's deadline the EC2 reads are canceled
// and the snapshot comes back with the nodes and EC2 gaps, not after the endpoint's minute.
func TestCollectDeadlineEndsAHangingEC2(t *testing.T) {
	sim := ec2sim.New()
	sim.SetLatency(time.Minute)
	c := kubeHostileCollector(t, kubeHostile(t), 0, 0)
	c.EC2 = ec2sim.NewClient(sim.Start(t), "us-west-2")
	c.Deadline = 500 * time.Millisecond
	start := time.Now()
	s, err := c.Collect(t.Context(), Scope{})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the collection took %v, want it to end near its deadline of 500ms", took)
	}
	if err != nil {
		t.Fatalf("Collect: %v, want the snapshot with EC2 gaps", err)
	}
	if len(s.Nodes) == 0 {
		t.Error("no nodes: the API server answered, its nodes must be kept")
	}
	var ec2Gap bool
	for _, g := range s.Gaps {
		ec2Gap = ec2Gap || strings.HasPrefix(g.Source, "ec2")
	}
	if !ec2Gap {
		t.Errorf("gaps %+v: want the EC2 reads the deadline ended", s.Gaps)
	}
}

// TestCollectDeadlineGivesUpOnAHangingAPIServer: an API server that holds every request open
// ends the collection at its deadline with a *DeadlineError naming it.
func TestCollectDeadlineGivesUpOnAHangingAPIServer(t *testing.T) {
	k := kubeHostile(t)
	k.Delay("/", time.Minute)
	c := kubeHostileCollector(t, k, 0, 0)
	c.Deadline = 300 * time.Millisecond
	start := time.Now()
	_, err := c.Collect(t.Context(), Scope{})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the collection took %v, want it to end near its deadline of 300ms", took)
	}
	var de *DeadlineError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "did not finish within 300ms") {
		t.Errorf("Collect: %v, want a *DeadlineError naming 300ms", err)
	}
}
