package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestDiffGapIsNotResolved: NEW read with DescribeInstances denied does not call the
// instance findings of OLD resolved: they are unknown, the criticals among them fail the run
// (exit 1), and nodes gone while the node list was incomplete are not read, not removed.
// Another cluster on one side is warned about.
func TestDiffGapIsNotResolved(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, edit func(s *snapshot.Snapshot)) string {
		s, err := demo.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		edit(s)
		path := filepath.Join(dir, name)
		if err := writeSnapshotFile(path, s); err != nil {
			t.Fatal(err)
		}
		return path
	}
	old := save("old.json", func(*snapshot.Snapshot) {})
	denied := save("denied.json", func(s *snapshot.Snapshot) {
		s.Instances = nil
		s.Gaps = append(s.Gaps, snapshot.Gap{Source: snapshot.SourceDescribeInstances, Reason: "UnauthorizedOperation",
			Remedy: "allow ec2:DescribeInstances"})
	})
	paged := save("paged.json", func(s *snapshot.Snapshot) {
		s.Nodes = s.Nodes[:1]
		s.Gaps = append(s.Gaps, snapshot.Gap{Source: snapshot.SourceNodes, Reason: "the list did not end"})
	})
	other := save("other.json", func(s *snapshot.Snapshot) { s.Context, s.Cluster = "staging", "https://staging.eks.example" })

	r := run(t, "diff", old, denied)
	wantCode(t, r, ExitFindings)
	if !strings.Contains(r.stdout, "0 resolved") || !strings.Contains(r.stdout, "unknown (one side could not read their data)") {
		t.Errorf("denied: stdout:\n%s\nwant 0 resolved and the unknown findings", r.stdout)
	}
	r = run(t, "diff", old, paged)
	if !strings.Contains(r.stdout, "0 removed") || !strings.Contains(r.stdout, "not read (the node list was incomplete)") {
		t.Errorf("paged: stdout:\n%s\nwant 0 removed and the nodes not read", r.stdout)
	}
	r = run(t, "diff", old, other, "-o", "json")
	if !strings.Contains(r.stderr, "warning: OLD and NEW are different clusters") || !strings.Contains(r.stdout, `"warnings"`) {
		t.Errorf("other cluster: stderr %q, stdout %.300q; want the warning on both", r.stderr, r.stdout)
	}
}
