package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// watchSteps returns a sleep for --watch that records each wait and runs the next step
// instead of waiting; once the steps run out the watch is interrupted.
func watchSteps(waits *[]time.Duration, steps ...func()) func(context.Context, time.Duration) bool {
	return func(_ context.Context, d time.Duration) bool {
		*waits = append(*waits, d)
		if len(*waits) > len(steps) {
			return false
		}
		steps[len(*waits)-1]()
		return true
	}
}

// setInstanceType relabels a live node's instance type.
func (c *liveCluster) setInstanceType(t *testing.T, node, typ string) {
	t.Helper()
	n, err := c.kube.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Labels["node.kubernetes.io/instance-type"] = typ
	if _, err := c.kube.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestCheckWatch follows a watch through a planted fault, a failed collection and the fix:
// the first report whole, then what changed since the collection shown before, and exit 130
// when interrupted.
func TestCheckWatch(t *testing.T) {
	c := newLiveCluster(t)
	o := c.options()
	original := ""
	if n, err := c.kube.CoreV1().Nodes().Get(t.Context(), liveNodeA, metav1.GetOptions{}); err == nil {
		original = n.Labels["node.kubernetes.io/instance-type"]
	}
	failing := false
	c.kube.PrependReactor("list", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		if failing {
			return true, nil, errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
		}
		return false, nil, nil
	})
	var waits []time.Duration
	o.sleep = watchSteps(&waits,
		func() { c.setInstanceType(t, liveNodeA, "m6i.xlarge") },
		func() { failing = true },
		func() { failing = false; c.setInstanceType(t, liveNodeA, original) },
		func() {},
	)
	r := runWith(t, o, "check", "--watch", "1s")
	wantCode(t, r, ExitInterrupted)
	if len(waits) != 5 || waits[0] != 15*time.Second {
		t.Errorf("waits: got %v, want five of 15s", waits)
	}
	parts := strings.Split(r.stdout, "\nold: ")
	if len(parts) != 4 {
		t.Fatalf("stdout has %d parts, want the report and three diffs:\n%s", len(parts), r.stdout)
	}
	if !strings.Contains(parts[0], "2 nodes: 2 ok") {
		t.Errorf("the first report is not whole:\n%s", parts[0])
	}
	for i, want := range []string{
		"collection 1 ", "+ ▲ warning   instance-type-mismatch  node/" + liveNodeA,
		"collection 2 ", "- ▲ warning   instance-type-mismatch  node/" + liveNodeA,
		"collection 4 ", "no change",
	} {
		if part := parts[1+i/2]; !strings.Contains(part, want) {
			t.Errorf("diff %d lacks %q:\n%s", 1+i/2, want, part)
		}
	}
	if !strings.Contains(parts[2], "new: collection 4") {
		t.Errorf("the diff after the failed collection does not name collection 4:\n%s", parts[2])
	}
	wantStderr := []string{
		"watch: every 15s (raised from 1s: EC2 budget)",
		"watch: collection 3 failed, trying again in 15s: ",
	}
	for _, w := range wantStderr {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "exit status") {
		t.Errorf("an interrupted watch prints an error:\n%s", r.stderr)
	}
}

// TestCheckWatchJSON checks that -o json prints every collection's report whole, one document
// each, and that an interval at or above the floor is kept.
func TestCheckWatchJSON(t *testing.T) {
	c := newLiveCluster(t)
	o := c.options()
	var waits []time.Duration
	o.sleep = watchSteps(&waits, func() { c.setInstanceType(t, liveNodeA, "m6i.xlarge") })
	r := runWith(t, o, "check", "--watch", "1m", "-o", "json")
	wantCode(t, r, ExitInterrupted)
	if len(waits) != 2 || waits[0] != time.Minute {
		t.Errorf("waits: got %v, want two of 1m", waits)
	}
	if r.stderr != "watch: every 1m0s\n" {
		t.Errorf("stderr: got %q, want the interval alone", r.stderr)
	}
	dec := json.NewDecoder(bytes.NewBufferString(r.stdout))
	var findings []int
	for dec.More() {
		var rep diagnose.Report
		if err := dec.Decode(&rep); err != nil {
			t.Fatalf("document %d: %v", len(findings)+1, err)
		}
		findings = append(findings, len(rep.Findings))
	}
	if len(findings) != 2 || findings[0] != 0 || findings[1] != 1 {
		t.Errorf("findings per report: got %v, want [0 1]", findings)
	}
}

func TestCheckWatchNegative(t *testing.T) {
	r := run(t, "demo", "check", "--watch", "-1s")
	wantCode(t, r, ExitUsage)
	wantOneErrorLine(t, r, "--watch", "negative", "30s")
}

func TestCheckWatchRefusesCIFormats(t *testing.T) {
	for _, f := range []string{"junit", "sarif"} {
		r := run(t, "demo", "check", "--watch", "30s", "-o", f)
		wantCode(t, r, ExitUsage)
		wantOneErrorLine(t, r, "--watch", f)
	}
}
