package diagnose

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

const (
	nodeB     = "ip-10-0-1-20.us-west-2.compute.internal"
	instanceB = "i-0123456789abcdef1"
	nodeKind  = "kind-worker"
	nodeMNG   = "mng-node"
)

// troubled returns a snapshot with one problem of each kind: node A's instance is stopped,
// node B's zone label is wrong, the shared subnet is nearly full, NodeClass gpu is not Ready,
// node mng-node has no providerID, kind-worker is not an EC2 node and security groups were
// not readable.
func troubled() *snapshot.Snapshot {
	s := healthy()
	s.Instances[0].State = "stopped"
	b := karpenterNode(nodeB, instanceB, "10.0.1.20")
	b.Labels[corev1.LabelTopologyZone] = "us-west-2b"
	s.Nodes = append(s.Nodes,
		corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeKind}, Spec: corev1.NodeSpec{ProviderID: "kind://docker/kind/kind-worker"}},
		b,
		corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeMNG, Labels: map[string]string{"eks.amazonaws.com/nodegroup": "ng-1"}}},
	)
	s.Instances = append(s.Instances, instance(instanceB, "10.0.1.20"))
	s.Subnets[0].AvailableIPs = 9 // fewer than the 10 a new m5.large takes at once
	s.NodePools = append(s.NodePools, snapshot.NodePool{Name: "gpu", NodeClassRef: snapshot.NodeClassRef{Name: "gpu"}})
	s.NodeClasses = append(s.NodeClasses, snapshot.EC2NodeClass{
		Name:       "gpu",
		Conditions: []snapshot.Condition{{Type: "Ready", Status: "False"}, {Type: "AMIsReady", Status: "False", Reason: "AMINotFound"}},
	})
	s.Gaps = []snapshot.Gap{{Source: snapshot.SourceDescribeSecurityGroups, Reason: "UnauthorizedOperation", Remedy: "allow ec2:DescribeSecurityGroups"}}
	return s
}

// keys summarises findings as "severity id node resource" lines.
func keys(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s %s", f.Severity, f.ID, f.Node, f.Resource))
	}
	return out
}

func TestAnalyzeHealthy(t *testing.T) {
	got := Analyze(healthy(), Options{})
	if len(got.Findings) != 0 {
		t.Errorf("healthy snapshot findings = %q, want none", keys(got.Findings))
	}
	want := Summary{Listed: 1, Statuses: statuses(map[string]int{StatusOK: 1}), Nodes: 1, Clean: 1,
		Findings: map[string]int{"info": 0, "warning": 0, "critical": 0}}
	if diff := cmp.Diff(want, got.Summary); diff != "" {
		t.Errorf("summary mismatch (-want +got):\n%s", diff)
	}
	if len(got.Nodes) != 1 || got.Nodes[0].Status != StatusOK {
		t.Errorf("nodes = %+v, want one node with status ok", got.Nodes)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("marshalling report: %v", err)
	}
	for _, part := range []string{`"kind":"Report"`, `"apiVersion":"karpnet/v1alpha1"`, `"findings":[]`, `"gaps":[]`,
		`"region":"us-west-2"`, `"context":"test"`, `"taken":"2026-08-21T12:00:00Z"`} {
		if !strings.Contains(string(b), part) {
			t.Errorf("report JSON lacks %s:\n%s", part, b)
		}
	}
}

func TestAnalyzeOrderingAndSummary(t *testing.T) {
	got := Analyze(troubled(), Options{})
	want := []string{
		"critical instance-not-running " + nodeA + " node/" + nodeA,
		"critical nodeclass-not-ready  ec2nodeclass/gpu",
		"critical subnet-ip-exhaustion  subnet/" + subnetA,
		"warning data-unavailable  ec2:DescribeSecurityGroups",
		"warning provider-id-invalid " + nodeMNG + " node/" + nodeMNG,
		"warning zone-mismatch " + nodeB + " node/" + nodeB,
	}
	if diff := cmp.Diff(want, keys(got.Findings)); diff != "" {
		t.Errorf("findings mismatch (-want +got):\n%s", diff)
	}
	wantSummary := Summary{
		Listed: 4, Statuses: statuses(map[string]int{"critical": 1, "warning": 2, StatusSkipped: 1}),
		Nodes: 3, WithWarnings: 2, WithCritical: 1, Skipped: 1, SkippedBy: map[string]int{ComputeOther: 1},
		Findings: map[string]int{"info": 0, "warning": 3, "critical": 3},
	}
	if diff := cmp.Diff(wantSummary, got.Summary); diff != "" {
		t.Errorf("summary mismatch (-want +got):\n%s", diff)
	}
	var status []string
	for _, n := range got.Nodes {
		status = append(status, n.Identity.Node+"="+n.Status)
	}
	wantStatus := []string{nodeA + "=critical", nodeB + "=warning", nodeKind + "=skipped", nodeMNG + "=warning"}
	if diff := cmp.Diff(wantStatus, status); diff != "" {
		t.Errorf("node statuses mismatch (-want +got):\n%s", diff)
	}
	if got, want := got.Nodes[2].Identity.Skipped, `providerID "kind://docker/kind/kind-worker" is not an EC2 one`; got != want {
		t.Errorf("skipped reason = %q, want %q", got, want)
	}
	if diff := cmp.Diff([]string{"warning zone-mismatch " + nodeB + " node/" + nodeB}, keys(got.Nodes[1].Findings)); diff != "" {
		t.Errorf("node B findings mismatch (-want +got):\n%s", diff)
	}
}

func TestAnalyzeIsDeterministic(t *testing.T) {
	want := Analyze(troubled(), Options{})
	s := troubled()
	slices.Reverse(s.Nodes)
	slices.Reverse(s.Instances)
	slices.Reverse(s.NodePools)
	slices.Reverse(s.NodeClasses)
	if diff := cmp.Diff(want, Analyze(s, Options{})); diff != "" {
		t.Errorf("report depends on input order (-first +second):\n%s", diff)
	}
}

func TestAnalyzeSelection(t *testing.T) {
	tests := []struct {
		name      string
		opts      Options
		wantNodes []string
		want      []string
	}{
		{
			name:      "one node keeps its findings, its subnet's and the gaps",
			opts:      Options{Nodes: map[string]bool{nodeB: true}},
			wantNodes: []string{nodeB},
			want: []string{
				"critical subnet-ip-exhaustion  subnet/" + subnetA,
				"warning data-unavailable  ec2:DescribeSecurityGroups",
				"warning zone-mismatch " + nodeB + " node/" + nodeB,
			},
		},
		{
			name:      "resources add unrelated resource findings",
			opts:      Options{Nodes: map[string]bool{nodeB: true}, Resources: map[string]bool{"ec2nodeclass/gpu": true}},
			wantNodes: []string{nodeB},
			want: []string{
				"critical nodeclass-not-ready  ec2nodeclass/gpu",
				"critical subnet-ip-exhaustion  subnet/" + subnetA,
				"warning data-unavailable  ec2:DescribeSecurityGroups",
				"warning zone-mismatch " + nodeB + " node/" + nodeB,
			},
		},
		{
			name:      "unknown node selects nothing but gaps",
			opts:      Options{Nodes: map[string]bool{"nope": true}},
			wantNodes: nil,
			want:      []string{"warning data-unavailable  ec2:DescribeSecurityGroups"},
		},
		{
			name:      "only",
			opts:      Options{Only: []string{"zone-mismatch", "nodeclass-not-ready"}},
			wantNodes: []string{nodeA, nodeB, nodeKind, nodeMNG},
			want:      []string{"critical nodeclass-not-ready  ec2nodeclass/gpu", "warning zone-mismatch " + nodeB + " node/" + nodeB},
		},
		{
			name:      "skip",
			opts:      Options{Skip: []string{"data-unavailable", "subnet-ip-exhaustion", "instance-not-running", "nodeclass-not-ready"}},
			wantNodes: []string{nodeA, nodeB, nodeKind, nodeMNG},
			want: []string{
				"warning provider-id-invalid " + nodeMNG + " node/" + nodeMNG,
				"warning zone-mismatch " + nodeB + " node/" + nodeB,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Analyze(troubled(), tc.opts)
			if diff := cmp.Diff(tc.want, keys(got.Findings)); diff != "" {
				t.Errorf("findings mismatch (-want +got):\n%s", diff)
			}
			var nodes []string
			for _, n := range got.Nodes {
				nodes = append(nodes, n.Identity.Node)
			}
			if diff := cmp.Diff(tc.wantNodes, nodes); diff != "" {
				t.Errorf("nodes mismatch (-want +got):\n%s", diff)
			}
			total := 0
			for _, n := range got.Summary.Findings {
				total += n
			}
			if total != len(got.Findings) {
				t.Errorf("summary counts %d findings, report has %d", total, len(got.Findings))
			}
		})
	}
}

func TestValidateCheckIDs(t *testing.T) {
	if err := ValidateCheckIDs(CheckIDs()); err != nil {
		t.Errorf("ValidateCheckIDs(all) = %v, want nil", err)
	}
	if err := ValidateCheckIDs(nil); err != nil {
		t.Errorf("ValidateCheckIDs(nil) = %v, want nil", err)
	}
	err := ValidateCheckIDs([]string{"zone-mismatch", "zone-mismatc", "bogus", "bogus"})
	if err == nil {
		t.Fatal("ValidateCheckIDs(unknown) = nil, want an error")
	}
	want := `unknown check IDs "zone-mismatc", "bogus": use one of ` + strings.Join(CheckIDs(), ", ")
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

// TestFindingsCarryTheirCheck runs every check over the troubled snapshot and checks that each
// finding has its check's ID, a severity no worse than the check's, a message and a remedy.
func TestFindingsCarryTheirCheck(t *testing.T) {
	x := NewIndex(troubled())
	for _, c := range Checks() {
		for _, f := range c.Findings(x) {
			if f.ID != c.ID || f.Severity > c.Severity || f.Message == "" || f.Remedy == "" || f.Resource == "" {
				t.Errorf("check %s (%s) gave an incomplete finding: %+v", c.ID, c.Severity, f)
			}
		}
	}
}

func TestReportSubnets(t *testing.T) {
	s := healthy()
	s.AWSNode = &snapshot.AWSNode{Env: map[string]string{SettingCustomNetwork: "true", SettingENIConfigLabel: corev1.LabelTopologyZone}}
	s.ENIConfigs = []snapshot.ENIConfig{{Name: "us-west-2a", Subnet: "subnet-0pod"}}
	s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0pod", CIDR: "100.64.0.0/20", Zone: "us-west-2a", AvailableIPs: 4000})
	s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0unused", CIDR: "10.0.200.0/24", Zone: "us-west-2c", AvailableIPs: 200})

	got := Analyze(s, Options{}).Subnets
	want := []SubnetUse{
		{ID: subnetA, CIDR: s.Subnets[0].CIDR, Zone: s.Subnets[0].Zone, ZoneID: s.Subnets[0].ZoneID,
			AvailableIPs: s.Subnets[0].AvailableIPs, UsableIPs: usableIPs(s.Subnets[0].CIDR), NodeClasses: []string{"default"}, Nodes: 1},
		{ID: "subnet-0pod", CIDR: "100.64.0.0/20", Zone: "us-west-2a", AvailableIPs: 4000, UsableIPs: 4091, PodSubnet: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Report.Subnets (-want +got):\n%s", diff)
	}
	if got := Analyze(s, Options{Nodes: map[string]bool{"nobody": true}}).Subnets; len(got) != 0 {
		t.Errorf("Report.Subnets for a selection of no node: got %+v, want none", got)
	}
}

// TestChecksAtOnceFindWhatOneAtATimeFinds runs every check over the demo cluster at once, as
// Analyze does, and one after another: the findings must be the same, in the same order.
func TestChecksAtOnceFindWhatOneAtATimeFinds(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	x := NewIndex(s)
	checks := Checks()
	var want []Finding
	for _, c := range checks {
		want = append(want, c.Findings(x)...)
	}
	if len(want) == 0 {
		t.Fatal("the demo cluster has no findings")
	}
	for range 5 {
		if diff := cmp.Diff(want, runChecks(x, checks)); diff != "" {
			t.Fatalf("checks run at once (-one at a time +at once):\n%s", diff)
		}
	}
}

// statuses returns the Summary.Statuses of a report with these counts, every other status at 0.
func statuses(counts map[string]int) map[string]int {
	out := map[string]int{}
	for _, st := range NodeStatuses() {
		out[st] = counts[st]
	}
	return out
}
