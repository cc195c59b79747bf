package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostiletext"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// hostileSnapshot writes the demo snapshot with escape sequences and control characters in
// every string (Event messages, security group names, providerIDs, the context, the notes)
// and returns its path and one node's name.
func hostileSnapshot(t *testing.T) (string, string) {
	t.Helper()
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatalf("reading the demo snapshot: %v", err)
	}
	s.Notes = append(s.Notes, "EC2 was read in us-west-2")
	p := hostiletext.Poison(*s)
	p.Kind, p.APIVersion = s.Kind, s.APIVersion
	// A subnet's CIDR block must parse to be read at all, so it cannot carry escapes.
	for i, sn := range s.Subnets {
		p.Subnets[i].CIDR, p.Subnets[i].IPv6CIDRs = sn.CIDR, sn.IPv6CIDRs
	}
	path := filepath.Join(t.TempDir(), "hostile.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("creating the snapshot: %v", err)
	}
	defer f.Close()
	if err := snapshot.Write(f, &p); err != nil {
		t.Fatalf("writing the snapshot: %v", err)
	}
	// JSON turns the byte that is not UTF-8 into U+FFFD: take the name as it reads back.
	back, err := readSnapshotFile(path, 0)
	if err != nil {
		t.Fatalf("reading the snapshot back: %v", err)
	}
	for _, n := range back.Nodes {
		if strings.HasPrefix(n.Name, demoWarnNode) {
			return path, n.Name
		}
	}
	t.Fatalf("the snapshot lost node %s", demoWarnNode)
	return "", ""
}

// TestTextOutputOfHostileSnapshot runs check and describe over a snapshot whose strings carry
// escape sequences: neither standard output nor standard error passes one on raw.
func TestTextOutputOfHostileSnapshot(t *testing.T) {
	path, node := hostileSnapshot(t)
	for _, args := range [][]string{
		{"check"},
		{"check", "-o", "wide"},
		{"check", "-o", "wide", "--color", "always"},
		{"describe", "node", node},
		{"describe", "node", node, "--color", "always"},
	} {
		t.Run(strings.Join(args[:min(len(args), 3)], " ")+" "+args[len(args)-1], func(t *testing.T) {
			r := run(t, append(args, "--snapshot", path)...)
			if r.code != ExitOK && r.code != ExitFindings {
				t.Fatalf("exit code %d, want 0 or 1\nstderr:\n%s", r.code, r.stderr)
			}
			colour := args[len(args)-1] == "always"
			if bad := hostiletext.RawControls(r.stdout, colour); len(bad) > 0 {
				t.Errorf("stdout: %d raw control characters, e.g. %q", len(bad), bad[0])
			}
			if bad := hostiletext.RawControls(r.stderr, false); len(bad) > 0 {
				t.Errorf("stderr: %d raw control characters, e.g. %q", len(bad), bad[0])
			}
		})
	}
}

// TestErrorsEscapeControlCharacters prints a collection error quoting what an API server
// answered: the error line shows its control characters escaped, on one line.
func TestErrorsEscapeControlCharacters(t *testing.T) {
	o, _, _ := newTestOptions()
	o.newCollector = func(context.Context, *commonOptions) (*collect.Collector, error) {
		return nil, errors.New("forbidden: " + hostiletext.Text + "\nsecond line")
	}
	r := runWith(t, o, "check")
	wantCode(t, r, ExitCollect)
	wantOneErrorLine(t, r, "forbidden: "+hostiletext.Escaped)
	if bad := hostiletext.RawControls(r.stderr, false); len(bad) > 0 {
		t.Errorf("stderr: %d raw control characters, e.g. %q", len(bad), bad[0])
	}
}

// TestDataOutputOfHostileSnapshot prints a snapshot with control characters in every string
// as JSON and YAML: both succeed and carry the same report.
func TestDataOutputOfHostileSnapshot(t *testing.T) {
	path, _ := hostileSnapshot(t)
	decoded := map[string]diagnose.Report{}
	for _, format := range []string{"json", "yaml"} {
		r := run(t, "check", "-o", format, "--snapshot", path)
		if r.code != ExitOK && r.code != ExitFindings {
			t.Fatalf("-o %s: exit code %d, want 0 or 1\nstderr:\n%s", format, r.code, r.stderr)
		}
		var got diagnose.Report
		if err := yaml.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("-o %s does not decode: %v", format, err)
		}
		if !strings.Contains(got.Context, "pwned") {
			t.Errorf("-o %s: context %q lost its text", format, got.Context)
		}
		decoded[format] = got
	}
	if diff := cmp.Diff(decoded["json"], decoded["yaml"]); diff != "" {
		t.Errorf("JSON and YAML carry different reports (-json +yaml):\n%s", diff)
	}
}
