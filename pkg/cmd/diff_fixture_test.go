package cmd

import (
	"compress/gzip"
	"io"
	"os"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The demo nodes the diff fixtures change: demoGoneNode's instance is not found (critical) and
// the later snapshot no longer has the node; demoNode's instance is terminated in it (a new
// critical); demoWarnNode's instance-type label is fixed in it (its warning resolved).
const demoGoneNode = "ip-10-0-19-98.us-west-2.compute.internal"

// Names of the diff fixtures, written in the test's working directory so that goldens hold
// them as given.
const (
	diffOld = "before.json"
	diffNew = "after.json.gz"
	// diffFixed is the demo at the same time with only demoWarnNode's warning fixed.
	diffFixed = "fixed.json"
)

// writeDiffSnapshots writes, in a fresh working directory, the demo as diffOld; as diffNew
// (gzip) the demo five minutes later with one fault fixed, one planted and one node gone; and
// as diffFixed the demo with the one fault fixed.
func writeDiffSnapshots(t *testing.T) {
	t.Helper()
	t.Chdir(t.TempDir())
	if err := os.WriteFile(diffOld, demo.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range fixed.Nodes {
		if n.Name == demoWarnNode {
			n.Labels["node.kubernetes.io/instance-type"] = "m5.2xlarge"
		}
	}
	writeSnapshot(t, diffFixed, fixed, false)
	s.Taken = s.Taken.Add(5 * time.Minute)
	var nodes = s.Nodes[:0]
	var terminated string
	for _, n := range s.Nodes {
		switch n.Name {
		case demoGoneNode:
			continue
		case demoWarnNode:
			n.Labels["node.kubernetes.io/instance-type"] = "m5.2xlarge"
		case demoNode:
			terminated = instanceOf(t, n.Spec.ProviderID)
		}
		nodes = append(nodes, n)
	}
	s.Nodes = nodes
	found := false
	for i := range s.Instances {
		if s.Instances[i].ID == terminated {
			s.Instances[i].State = "terminated"
			found = true
		}
	}
	if !found {
		t.Fatalf("the demo has no instance %q for node %s", terminated, demoNode)
	}
	writeSnapshot(t, diffNew, s, true)
}

// instanceOf returns the instance ID at the end of an aws:/// providerID.
func instanceOf(t *testing.T, providerID string) string {
	t.Helper()
	for i := len(providerID) - 1; i >= 0; i-- {
		if providerID[i] == '/' {
			return providerID[i+1:]
		}
	}
	t.Fatalf("providerID %q names no instance", providerID)
	return ""
}

// writeSnapshot writes s to name, gzip-compressed when zip is set.
func writeSnapshot(t *testing.T, name string, s *snapshot.Snapshot, zip bool) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	var w io.Writer = f
	zw := gzip.NewWriter(f)
	if zip {
		w = zw
	}
	if err := snapshot.Write(w, s); err != nil {
		t.Fatal(err)
	}
	if zip {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
