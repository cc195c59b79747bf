package diagnose

import (
	"slices"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
)

// demoReport analyses the demo cluster with every check.
func demoReport(t *testing.T) Report {
	t.Helper()
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return Analyze(s, Options{})
}

// findingOn returns the demo report's finding id on resource.
func findingOn(t *testing.T, r Report, id, resource string) Finding {
	t.Helper()
	for _, f := range r.Findings {
		if f.ID == id && f.Resource == resource {
			return f
		}
	}
	t.Fatalf("no %s on %s in the demo", id, resource)
	return Finding{}
}

// TestSubjectsOneRule: every finding's subjects follow one rule, whether or not it is on a
// node: a class finding names the class's NodePools, a NodeClaim finding its NodePool and class,
// each marked inherited; a node finding names the node and the NodePool or class its commands
// change.
func TestSubjectsOneRule(t *testing.T) {
	r := demoReport(t)
	for _, c := range []struct {
		id, resource string
		subjects     []string
		inherited    []string
	}{
		// a class finding on a node names the class's NodePools, as nodeclass-not-ready does
		{"pod-subnet-zone-missing", "nodeclass/web", []string{"node/i-0aabd605ffdb17f34", "nodeclass/web", "nodepool/web"}, []string{"nodepool/web"}},
		{"security-group-drift", "ec2nodeclass/default", []string{"node/ip-10-0-15-126.us-west-2.compute.internal", "ec2nodeclass/default", "nodepool/general"}, []string{"nodepool/general"}},
		{"subnet-not-selected", "ec2nodeclass/default", []string{"node/ip-10-0-59-16.us-west-2.compute.internal", "ec2nodeclass/default", "nodepool/general"}, []string{"nodepool/general"}},
		{"nodeclass-not-ready", "ec2nodeclass/staging", []string{"ec2nodeclass/staging", "nodepool/staging"}, []string{"nodepool/staging"}},
		// a NodeClaim with a node names its NodePool and class like one without
		{"nodeclaim-drifted", "nodeclaim/general-kdbmg", []string{"node/ip-10-0-15-126.us-west-2.compute.internal", "ec2nodeclass/default", "nodeclaim/general-kdbmg", "nodepool/general"}, []string{"ec2nodeclass/default", "nodepool/general"}},
		{"nodeclaim-not-registered", "nodeclaim/batch-szxd6", []string{"nodeclaim/batch-szxd6", "ec2nodeclass/batch", "nodepool/batch"}, []string{"ec2nodeclass/batch", "nodepool/batch"}},
		// a subnet names its classes and their NodePools; an ENI its subnet
		{"subnet-no-egress-route", "subnet/subnet-0714a16d895e97a48", []string{"subnet/subnet-0714a16d895e97a48", "ec2nodeclass/batch", "nodepool/batch"}, []string{"ec2nodeclass/batch", "nodepool/batch"}},
		{"eni-leaked", "eni/eni-0239ee3152f11eb73", []string{"eni/eni-0239ee3152f11eb73", "subnet/subnet-020782d4fbf6deef9"}, []string{"subnet/subnet-020782d4fbf6deef9"}},
		// a node finding whose fix changes its NodePool names that NodePool, and the pool's class inherited
		{"max-pods-exceeds-ip-capacity", "node/ip-10-0-50-20.us-west-2.compute.internal", []string{"node/ip-10-0-50-20.us-west-2.compute.internal", "ec2nodeclass/batch", "nodepool/batch"}, []string{"ec2nodeclass/batch"}},
		// and one whose fix is on the class names the class and its NodePools
		{"max-pods-below-ip-capacity", "node/ip-10-0-64-138.us-west-2.compute.internal", []string{"node/ip-10-0-64-138.us-west-2.compute.internal", "ec2nodeclass/efa", "nodepool/training"}, []string{"nodepool/training"}},
		// a node finding whose fix is on the node alone names the node only: nodes never inherit upward
		{"instance-not-running", "node/ip-10-0-15-186.us-west-2.compute.internal", []string{"node/ip-10-0-15-186.us-west-2.compute.internal"}, nil},
	} {
		f := findingOn(t, r, c.id, c.resource)
		if !slices.Equal(f.Subjects, c.subjects) || !slices.Equal(f.InheritedSubjects, c.inherited) {
			t.Errorf("%s on %s: subjects %q inherited %q, want %q inherited %q", c.id, c.resource, f.Subjects, f.InheritedSubjects, c.subjects, c.inherited)
		}
	}
	for _, f := range r.Findings {
		if len(f.Subjects) == 0 || f.Subjects[0] != f.Subject() {
			t.Errorf("%s on %s: subjects %q do not start with its own subject", f.ID, f.Resource, f.Subjects)
		}
		for _, s := range f.InheritedSubjects {
			if !slices.Contains(f.Subjects, s) || f.ConcernsDirectly(s) {
				t.Errorf("%s on %s: inherited %q is not an inherited one of %q", f.ID, f.Resource, s, f.Subjects)
			}
		}
	}
}

// TestReportSubnetsEverySelected: the report's subnets hold every subnet a class selects for
// nodes or pods, with the Auto Mode classes that select it for pods.
func TestReportSubnetsEverySelected(t *testing.T) {
	r := demoReport(t)
	classes := map[string][]string{}
	for _, s := range r.Subnets {
		classes[s.ID] = s.NodeClasses
	}
	for id, want := range map[string][]string{
		"subnet-024e9b39f305ba72a": {"nodeclass/web"}, // web's pod subnet in a zone without its nodes
		"subnet-08681319da30a7758": {"nodeclass/web"},
	} {
		got, ok := classes[id]
		if !ok || !slices.Equal(got, want) {
			t.Errorf("report subnet %s: listed %v, classes %q, want %q", id, ok, got, want)
		}
	}
}

// TestOnWhatUsesThroughOwnUses: a node inherits a finding only through what it uses itself,
// never through its class's other subnets or its NodePool's other NodeClaims.
func TestOnWhatUsesThroughOwnUses(t *testing.T) {
	r := demoReport(t)
	var node NodeReport
	for _, n := range r.Nodes {
		if n.Identity.Node == "ip-10-0-50-20.us-west-2.compute.internal" {
			node = n
		}
	}
	var got []string
	for _, f := range r.OnWhatUses(node) {
		got = append(got, f.ID+" "+f.Resource)
	}
	want := []string{
		"nodepool-registration-unhealthy nodepool/batch",
		"subnet-no-egress-route subnet/subnet-0714a16d895e97a48",
		"subnet-prefix-fragmented subnet/subnet-0ffd6a39ba6f48905",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings on what ip-10-0-50-20 uses:\n got %q\nwant %q", got, want)
	}
}

// TestNodeInheritsCritical: a node whose own findings are fewer or none, but whose subnet,
// NodePool or class has a critical finding, says so apart from its own status.
func TestNodeInheritsCritical(t *testing.T) {
	r := demoReport(t)
	for _, n := range r.Nodes {
		if n.Identity.Node != "ip-10-0-50-4.us-west-2.compute.internal" {
			continue
		}
		want := []string{"nodepool/batch", "subnet/subnet-0714a16d895e97a48", "subnet/subnet-0ffd6a39ba6f48905"}
		if n.Status != StatusOK || n.InheritedStatus != "critical" || !slices.Equal(n.InheritedFrom, want) {
			t.Errorf("node %s: status %s inherited %q from %q, want ok inherited critical from %q", n.Identity.Node, n.Status, n.InheritedStatus, n.InheritedFrom, want)
		}
		return
	}
	t.Fatal("no node ip-10-0-50-4 in the demo")
}

// TestDescribeNodeListsWhatTheViewsList: describe node (a report of one node) and the TUI node
// sheet (the whole report's OnWhatUses) list the same findings on what each demo node uses.
func TestDescribeNodeListsWhatTheViewsList(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	all := Analyze(s, Options{})
	keys := func(fs []Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID+" "+f.Resource)
		}
		return out
	}
	for _, n := range all.Nodes {
		one := Analyze(s, Options{Nodes: map[string]bool{n.Identity.Node: true}})
		if len(one.Nodes) != 1 {
			t.Fatalf("describe %s: %d nodes", n.Identity.Node, len(one.Nodes))
		}
		if got, want := keys(one.OnWhatTheyUse(one.Nodes)), keys(all.OnWhatUses(n)); !slices.Equal(got, want) {
			t.Errorf("node %s: describe lists %q, the TUI node sheet %q", n.Identity.Node, got, want)
		}
	}
}
