package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
)

// TestNamesWithANewline: a node name with a newline in it (a forged snapshot) never starts a
// line of its own in the check's text or the node's sheet: the name's newline is shown as \n
// where the name heads a line.
func TestNamesWithANewline(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	const name = "evil\nforged: line"
	for i := range s.Nodes {
		if s.Nodes[i].Name == demoWarnNode {
			s.Nodes[i].Name = name
		}
	}
	path := filepath.Join(t.TempDir(), "newline.json")
	if err := writeSnapshotFile(path, s); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "--snapshot", path},
		{"check", "--snapshot", path, "-o", "wide"},
		{"describe", "node", name, "--snapshot", path},
	} {
		r := run(t, args...)
		if !strings.Contains(r.stdout, `evil\nforged: line`) {
			t.Errorf("%q: stdout does not show the name escaped:\n%s", args[:2], r.stdout)
		}
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(line, "forged") {
				t.Errorf("%q: a line starts with the name's second part: %q", args[:2], line)
			}
		}
	}
}
