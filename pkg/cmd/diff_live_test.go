package cmd

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
)

// TestDiffLive checks `diff OLD` against the live cluster: nothing changed, then a planted
// label mismatch that is new, with --fail-on deciding the exit code and --save-snapshot
// saving what was read.
func TestDiffLive(t *testing.T) {
	c := newLiveCluster(t)
	dir := t.TempDir()
	before, after := filepath.Join(dir, "before.json.gz"), filepath.Join(dir, "after.json")
	wantCode(t, c.run(t, "check", "--save-snapshot", before), ExitOK)

	same := c.run(t, "diff", before, "--fail-on", "info")
	wantCode(t, same, ExitOK)
	if !strings.Contains(same.stdout, "new: live") || !strings.Contains(same.stdout, "no change") {
		t.Errorf("stdout: got\n%s\nwant the live side and no change", same.stdout)
	}

	node, err := c.kube.CoreV1().Nodes().Get(t.Context(), liveNodeA, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Labels["node.kubernetes.io/instance-type"] = "m6i.xlarge"
	if _, err := c.kube.CoreV1().Nodes().Update(t.Context(), node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	below := c.run(t, "diff", before)
	wantCode(t, below, ExitOK)
	if !strings.Contains(below.stdout, "+ ▲ warning   instance-type-mismatch  node/"+liveNodeA) {
		t.Errorf("stdout: got\n%s\nwant the new warning marked +", below.stdout)
	}
	at := c.run(t, "diff", before, "--fail-on", "warning", "--save-snapshot", after)
	wantCode(t, at, ExitFindings)
	if want := "snapshot saved to " + after + "\n"; at.stderr != want {
		t.Errorf("stderr: got %q, want %q", at.stderr, want)
	}
	replayed := run(t, "diff", before, after, "--fail-on", "warning")
	wantCode(t, replayed, ExitFindings)
	if want := strings.Replace(at.stdout, "new: live", "new: "+after, 1); replayed.stdout != want {
		t.Errorf("diff of the saved snapshot:\n%s\nwant the live diff:\n%s", replayed.stdout, want)
	}
}

// TestDiffLiveUnreadable checks that `diff OLD` exits 3 with one line when the live cluster
// cannot be read, and prints no diff.
func TestDiffLiveUnreadable(t *testing.T) {
	c := newLiveCluster(t)
	before := filepath.Join(t.TempDir(), "before.json")
	wantCode(t, c.run(t, "check", "--save-snapshot", before), ExitOK)
	c.kube.PrependReactor("list", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
	})
	r := c.run(t, "diff", before)
	wantCode(t, r, ExitCollect)
	wantOneErrorLine(t, r, "cannot reach the API server", "connection refused")
	if r.stdout != "" {
		t.Errorf("stdout: got %q, want nothing when the cluster cannot be read", r.stdout)
	}
}
