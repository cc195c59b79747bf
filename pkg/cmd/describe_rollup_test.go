package cmd

import (
	"strings"
	"testing"
)

// TestDemoDescribeNodePoolShowsItsClassFindings: a NodePool's sheet shows the findings on its
// class, inherited, with the status they give it, not "ok / Findings none".
func TestDemoDescribeNodePoolShowsItsClassFindings(t *testing.T) {
	for pool, want := range map[string][]string{
		"web":     {"nodepool/web  ✖ critical", "pod-subnet-zone-missing"},
		"general": {"nodepool/general  ▲ warning", "security-group-drift", "subnet-not-selected"},
	} {
		r := run(t, "demo", "describe", "nodepool", pool, "--color", "never")
		wantCode(t, r, ExitOK)
		for _, w := range want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("describe nodepool %s: no %q in\n%s", pool, w, r.stdout)
			}
		}
	}
}

// TestDemoDescribeNodeListsOnlyWhatItUses: describe node lists the findings on the subjects the
// node uses itself, not on a subnet of its class in another zone.
func TestDemoDescribeNodeListsOnlyWhatItUses(t *testing.T) {
	r := run(t, "demo", "describe", "node", "ip-10-0-50-20.us-west-2.compute.internal", "--color", "never")
	_, uses, ok := strings.Cut(r.stdout, "Findings on what this node uses")
	if !ok {
		t.Fatalf("no findings on what the node uses in\n%s", r.stdout)
	}
	var listed []string // the finding lines: "  ✖ critical  ID  RESOURCE"
	for _, line := range strings.Split(uses, "\n") {
		if f := strings.Fields(line); len(f) == 4 && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
			listed = append(listed, f[2]+" "+f[3])
		}
	}
	want := []string{"nodepool-registration-unhealthy nodepool/batch", "subnet-no-egress-route subnet/subnet-0714a16d895e97a48",
		"subnet-prefix-fragmented subnet/subnet-0ffd6a39ba6f48905"}
	if strings.Join(listed, "\n") != strings.Join(want, "\n") {
		t.Errorf("describe node ip-10-0-50-20 lists on what it uses:\n%s\nwant:\n%s", strings.Join(listed, "\n"), strings.Join(want, "\n"))
	}
}
