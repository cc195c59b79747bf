package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The demo's subjects the subject sheets are tested on: the subnet with no way out, the
// EC2NodeClass that is not Ready, the NodePool whose registration is unhealthy, and the EFA
// class's cluster placement group.
const (
	demoNoWayOutSubnet = "subnet-0714a16d895e97a48"
	demoPlacementGroup = "demo-training"
)

func TestDemoDescribeSubjectGoldens(t *testing.T) {
	tests := []struct {
		name, golden string
		args         []string
	}{
		{name: "subnet", golden: "demo-describe-subnet.table.golden", args: []string{"subnet", demoNoWayOutSubnet}},
		{name: "subnet yaml", golden: "demo-describe-subnet.yaml.golden", args: []string{"subnet", demoNoWayOutSubnet, "-o", "yaml"}},
		{name: "EC2NodeClass", golden: "demo-describe-nodeclass.table.golden", args: []string{"nodeclass", "staging"}},
		{name: "Auto Mode NodeClass", golden: "demo-describe-auto-nodeclass.table.golden", args: []string{"nodeclass", "web"}},
		{name: "NodePool", golden: "demo-describe-nodepool.table.golden", args: []string{"nodepool", "batch"}},
		{name: "NodePool json", golden: "demo-describe-nodepool.json.golden", args: []string{"nodepool", "batch", "-o", "json"}},
		{name: "NodePool whose class has no subnet", golden: "demo-describe-nodepool-nosubnet.table.golden", args: []string{"nodepool", "staging"}},
		{name: "placement group", golden: "demo-describe-placementgroup.table.golden", args: []string{"placementgroup", demoPlacementGroup}},
		{name: "fragmented subnet", golden: "demo-describe-subnet-blocks.table.golden", args: []string{"subnet", "subnet-0ffd6a39ba6f48905"}},
		{name: "fragmented subnet without colour", golden: "demo-describe-subnet-blocks.table.golden",
			args: []string{"subnet", "subnet-0ffd6a39ba6f48905", "--color", "never"}},
		{name: "leaked ENI", golden: "demo-describe-eni.table.golden", args: []string{"eni", "eni-0239ee3152f11eb73"}},
		{name: "leaked ENI json", golden: "demo-describe-eni.json.golden", args: []string{"eni", "eni-0239ee3152f11eb73", "-o", "json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append([]string{"demo", "describe"}, tt.args...)...)
			wantCode(t, r, ExitOK)
			if r.stderr != "" {
				t.Errorf("stderr: got %q, want nothing", r.stderr)
			}
			testutil.Assert(t, filepath.Join("testdata", tt.golden), r.stdout)
		})
	}
}

func TestDemoDescribeSubjectJSON(t *testing.T) {
	r := run(t, "demo", "describe", "subnet", demoNoWayOutSubnet, "-o", "json")
	wantCode(t, r, ExitOK)
	var sub sheet.SubnetSheet
	if err := json.Unmarshal([]byte(r.stdout), &sub); err != nil {
		t.Fatalf("decoding -o json: %v\n%s", err, r.stdout)
	}
	if sub.Kind != sheet.SubnetSheetKind || sub.ID != demoNoWayOutSubnet || sub.WayOut == nil ||
		len(sub.Findings) == 0 || sub.Findings[0].Resource != "subnet/"+demoNoWayOutSubnet || len(sub.Members) == 0 {
		t.Errorf("subnet -o json: got %+v, want the subnet with its way out, members and findings", sub)
	}

	r = run(t, "demo", "describe", "placementgroup", demoPlacementGroup, "pg-09ec837aede01d26d", "-o", "json")
	wantCode(t, r, ExitOK)
	var list struct {
		Kind       string                      `json:"kind"`
		APIVersion string                      `json:"apiVersion"`
		Items      []sheet.PlacementGroupSheet `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("decoding -o json of two names: %v\n%s", err, r.stdout)
	}
	if list.Kind != printer.ListKind || list.APIVersion != sheet.SheetAPIVersion || len(list.Items) != 2 ||
		list.Items[0].ID != list.Items[1].ID || len(list.Items[0].Classes) != 1 {
		t.Errorf("two names -o json: got %+v, want a List of the group twice, selected by one class", list)
	}
}

func TestDemoDescribeNodeClassKinds(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		kinds []string
	}{
		{name: "bare name of an EC2NodeClass", args: []string{"nodeclass", "default"}, kinds: []string{"EC2NodeClass"}},
		{name: "bare name of an Auto Mode NodeClass", args: []string{"nodeclass", "web"}, kinds: []string{"NodeClass"}},
		{name: "kind/name", args: []string{"nodeclass", "nodeclass/web", "ec2nodeclass/batch"}, kinds: []string{"NodeClass", "EC2NodeClass"}},
		{name: "the ec2nodeclass alias", args: []string{"ec2nodeclass", "efa"}, kinds: []string{"EC2NodeClass"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append(append([]string{"demo", "describe"}, tt.args...), "-o", "json")...)
			wantCode(t, r, ExitOK)
			var kinds []string
			if len(tt.kinds) == 1 {
				var sh sheet.NodeClassSheet
				if err := json.Unmarshal([]byte(r.stdout), &sh); err != nil {
					t.Fatalf("decoding: %v\n%s", err, r.stdout)
				}
				kinds = []string{sh.Kind}
			} else {
				var list struct{ Items []sheet.NodeClassSheet }
				if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
					t.Fatalf("decoding: %v\n%s", err, r.stdout)
				}
				for _, sh := range list.Items {
					kinds = append(kinds, sh.Kind)
				}
			}
			if diff := cmp.Diff(tt.kinds, kinds); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
		})
	}
	r := run(t, "demo", "describe", "ec2nodeclass", "web")
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, `nodeclass "web" not found`) {
		t.Errorf("ec2nodeclass web, an Auto Mode NodeClass: got stderr %q, want not found", r.stderr)
	}
}

func TestDemoDescribeSubjectErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "unknown subnet", args: []string{"subnet", "subnet-0nope"}, want: []string{`subnet "subnet-0nope" not found`, "list the demo's subnets with kubectl karpnet demo check -o json"}},
		{name: "unknown nodeclass", args: []string{"nodeclass", "nope"}, want: []string{`nodeclass "nope" not found`, "list the demo's EC2NodeClasses and NodeClasses with kubectl karpnet demo check -o json"}},
		{name: "unknown nodepool", args: []string{"nodepool", "general", "nope"}, want: []string{`nodepool "nope" not found`, "list the demo's NodePools with kubectl karpnet demo check -o json"}},
		{name: "unknown placement group", args: []string{"placementgroup", "nope"}, want: []string{`placement group "nope" not found`, "list the demo's placement groups with kubectl karpnet demo check -o json"}},
		{name: "unknown ENI", args: []string{"eni", "eni-0nope"}, want: []string{`eni "eni-0nope" not found`, "list the demo's ENIs with kubectl karpnet demo check -o json"}},
		{name: "no name", args: []string{"nodepool"}, want: []string{"name at least one NodePool", "list the demo's NodePools with kubectl karpnet demo check -o json"}},
		{name: "bad output", args: []string{"subnet", demoNoWayOutSubnet, "-o", "wide"}, want: []string{`-o/--output "wide"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append([]string{"demo", "describe"}, tt.args...)...)
			wantCode(t, r, ExitUsage)
			if r.stdout != "" {
				t.Errorf("stdout: got %q, want nothing", r.stdout)
			}
			if lines := strings.Count(strings.TrimSuffix(r.stderr, "\n"), "\n") + 1; lines != 1 {
				t.Errorf("stderr: got %d lines, want one:\n%s", lines, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr: got %q, want it to contain %q", r.stderr, w)
				}
			}
		})
	}
}

func TestCompleteDescribeSubjects(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "subnets by prefix", args: []string{"demo", "describe", "subnet", "subnet-02"}, want: []string{
			"subnet-020782d4fbf6deef9", "subnet-024e9b39f305ba72a", "subnet-02720e173c311fcb4"}},
		{name: "subnets leave out names given", args: []string{"demo", "describe", "subnet", "subnet-020782d4fbf6deef9", "subnet-02"}, want: []string{
			"subnet-024e9b39f305ba72a", "subnet-02720e173c311fcb4"}},
		{name: "nodeclasses of both kinds", args: []string{"demo", "describe", "nodeclass", ""}, want: []string{"batch", "default", "efa", "staging", "web"}},
		{name: "nodepools", args: []string{"demo", "describe", "nodepool", "s"}, want: []string{"staging"}},
		{name: "placement groups", args: []string{"demo", "describe", "placementgroup", ""}, want: []string{demoPlacementGroup}},
		{name: "-o", args: []string{"describe", "subnet", "-o", ""}, want: []string{"json", "yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _, _ := newTestOptions()
			got := complete(t, o, tt.args...)
			if diff := cmp.Diff(tt.want, got.values); diff != "" {
				t.Errorf("completions (-want +got):\n%s", diff)
			}
			if got.directive != noFile {
				t.Errorf("directive: got %d, want %d", got.directive, noFile)
			}
		})
	}
}

// TestDescribeSubjectSourceUnread: a name not found because its source could not be read is a
// collection failure (exit 3) naming the source, not a usage error.
func TestDescribeSubjectSourceUnread(t *testing.T) {
	tests := []struct {
		source string
		args   []string
	}{
		{source: snapshot.SourceDescribeSubnets, args: []string{"subnet", "subnet-0nope"}},
		{source: snapshot.SourceNodePools, args: []string{"nodepool", "nope"}},
		{source: snapshot.SourceAutoNodeClasses, args: []string{"nodeclass", "nope"}},
		{source: snapshot.SourceDescribePlacementGroups, args: []string{"placementgroup", "nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			s, err := demo.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			s.Gaps = append(s.Gaps, snapshot.Gap{Source: tt.source, Reason: "forbidden", Remedy: "grant it"})
			var buf bytes.Buffer
			if err := snapshot.Write(&buf, s); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "cluster.json")
			if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			r := run(t, append(append([]string{"describe"}, tt.args...), "--snapshot", path)...)
			wantCode(t, r, ExitCollect)
			wantOneErrorLine(t, r, tt.source+" could not be read", "kubectl karpnet check")
		})
	}
}
