package tui

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// firstSubnetFinding is the demo's first finding in the findings view: subnet-ip-exhaustion on
// a pod subnet no node is in.
const firstSubnetFinding = "subnet-0c8ae009df552f60f"

func TestFindingSheetShowsTheFindingInFull(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 100, 80), "f", "enter", "enter")
	if !m.onFinding() || m.shownFinding().ID != "subnet-ip-exhaustion" {
		t.Fatalf("enter on a finding: view %d finding %q, want the finding sheet of subnet-ip-exhaustion", m.view, m.shownFinding().ID)
	}
	screen := strings.Join(strings.Fields(m.View()), " ")
	for _, want := range []string{
		strings.Join(strings.Fields(m.shownFinding().Message), " "),
		// The remedy's prose in full.
		"point ENIConfig us-west-2b (spec.subnet) at a larger pod subnet, or add a secondary CIDR to the VPC for a new " +
			"one in us-west-2b",
		"Resource: subnet/" + firstSubnetFinding,
		"▸ subnet/" + firstSubnetFinding + " subnets view, filtered to it",
		"About the check", "Why it matters",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("finding sheet lacks %q:\n%s", want, m.View())
		}
	}
}

func TestFindingSheetFollowsASubnetAndComesBack(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 100, 40), "f", "/", "x", "enter", "enter", "enter")
	if !m.onFinding() {
		t.Fatalf("enter on the finding: view %d, want the finding sheet", m.view)
	}
	m = press(t, m, "enter")
	if m.view != viewSubnets || m.sel.query != firstSubnetFinding || len(m.subnets.shown) != 1 {
		t.Fatalf("enter on the subnet reference: view %d query %q shown %d, want the subnets view filtered to %s",
			m.view, m.sel.query, len(m.subnets.shown), firstSubnetFinding)
	}
	m = press(t, m, "esc")
	if !m.onFinding() || m.sel.query != "x" {
		t.Fatalf("esc from the followed subnets view: view %d query %q, want the finding sheet with the filter x back", m.view, m.sel.query)
	}
	m = press(t, m, "esc")
	if m.view != viewFindings || m.findings.open < 0 {
		t.Errorf("esc from the finding sheet: view %d open %d, want the opened group", m.view, m.findings.open)
	}
}

func TestFindingSheetPathThroughSubnetAndNodes(t *testing.T) {
	m := ready(t, demoReport(t), 100, 40)
	m = m.openSheet(findingSheet(nodeFinding(t, m.data)), viewFindings)
	m = press(t, m, "tab")
	if got := m.sheet.links.refs[m.sheet.links.pick].subject; !strings.HasPrefix(got, "subnet/") {
		t.Fatalf("tab on a node's finding selected %q, want its subnet", got)
	}
	subnet := strings.TrimPrefix(m.sheet.links.refs[m.sheet.links.pick].subject, "subnet/")
	m = press(t, m, "enter", "enter")
	if m.view != viewNodes || m.sel.query != subnet {
		t.Fatalf("enter on the subnet, then on it in the subnets view: view %d query %q, want its nodes", m.view, m.sel.query)
	}
	for _, want := range []struct {
		v     view
		query string
	}{{viewSubnets, subnet}, {viewSheet, ""}, {viewFindings, ""}} {
		m = press(t, m, "esc")
		if m.view != want.v || m.sel.query != want.query {
			t.Errorf("esc: view %d query %q, want view %d query %q", m.view, m.sel.query, want.v, want.query)
		}
	}
}

func TestFindingSheetReferencesOfANode(t *testing.T) {
	d := derive(demoReport(t), plain())
	f := nodeFinding(t, d)
	n, _ := d.node(f.Node)
	var got []string
	for _, ref := range findingRefs(d, f) {
		got = append(got, ref.subject+" "+map[bool]string{true: "open", false: "text"}[ref.openable()])
	}
	want := []string{
		"node/" + f.Node + " open",
		// the finding's subjects first: its fix changes the NodePool, whose class it inherits
		"ec2nodeclass/" + n.Identity.NodeClass + " text",
		"nodepool/" + n.Identity.NodePool + " text",
		"nodeclaim/" + n.Identity.NodeClaim + " text",
		"subnet/" + n.Subnet.ID + " open",
		"instance/" + n.Identity.InstanceID + " text",
	}
	if !slices.Equal(got, want) {
		t.Errorf("references of %s's finding:\n got %q\nwant %q", f.Node, got, want)
	}
}

// nodeFinding returns the first finding of d about a node whose subnet is known.
func nodeFinding(t *testing.T, d *data) diagnose.Finding {
	t.Helper()
	for _, f := range d.report.Findings {
		if n, ok := d.node(f.Node); ok && n.Subnet != nil && n.Subnet.ID != "" {
			return f
		}
	}
	t.Fatal("the demo has no finding on a node with a known subnet")
	return diagnose.Finding{}
}

func TestFindingSheetFollowsReloads(t *testing.T) {
	r := demoReport(t)
	m := press(t, ready(t, r, 100, 40), "f", "enter", "enter")
	want := m.shownFinding()
	m = update(t, m, reportMsg{report: r})
	if !m.onFinding() || !reflect.DeepEqual(m.shownFinding(), want) {
		t.Fatalf("reload with the finding: view %d finding %+v, want the same sheet", m.view, m.shownFinding())
	}
	r.Findings = slices.DeleteFunc(slices.Clone(r.Findings), func(f diagnose.Finding) bool { return reflect.DeepEqual(f, want) })
	if m = update(t, m, reportMsg{report: r}); m.view != viewFindings {
		t.Errorf("reload without the finding: view %d, want the findings view", m.view)
	}
}

func TestFindingSheetFollowsANodeClaimToItsNode(t *testing.T) {
	d := derive(demoReport(t), plain())
	n, _ := d.node(nodeFinding(t, d).Node)
	f := diagnose.Finding{ID: "nodeclaim-check", Severity: diagnose.Warning, Resource: claimPrefix + n.Identity.NodeClaim}
	refs := findingRefs(d, f)
	if len(refs) == 0 || refs[0].open != (action{kind: actOpenNode, arg: n.Identity.Node}) {
		t.Errorf("references of a finding on NodeClaim %s: got %+v, want it first, opening its Node %s", n.Identity.NodeClaim, refs, n.Identity.Node)
	}
	gone := findingRefs(d, diagnose.Finding{ID: "x", Resource: claimPrefix + "deleted-claim"})
	if len(gone) != 1 || gone[0].openable() {
		t.Errorf("references of a finding on a NodeClaim the report lacks: got %+v, want one that cannot be opened", gone)
	}
}

// TestFindingSheetReferencesAreItsSubjects checks that a finding's sheet references the
// Subjects the analysis related it to, in their order (a subnet's classes and NodePools, which
// the sheet does not work out again), that one the snapshot lacks is still listed, as not in
// it, and that a finding without Subjects names its own subject and resource.
func TestFindingSheetReferencesAreItsSubjects(t *testing.T) {
	l := demoLoaded(t)
	d := derive(l.Report, plain())
	d.subjects = subjects{index: l.Index, report: l.Report}
	var f diagnose.Finding
	for _, g := range d.report.Findings {
		if g.ID == "subnet-no-egress-route" {
			f = g
		}
	}
	if len(f.Subjects) < 3 {
		t.Fatalf("the demo's subnet-no-egress-route finding has subjects %q, want its subnet, class and NodePool", f.Subjects)
	}
	f.Subjects = append(slices.Clone(f.Subjects), "nodepool/not-in-the-demo")
	var got []string
	for _, r := range findingRefs(d, f) {
		got = append(got, r.subject)
		if r.subject == "nodepool/not-in-the-demo" && (r.openable() || r.what != "not in the snapshot") {
			t.Errorf("a subject the snapshot lacks: got %+v, want it listed as not in the snapshot", r)
		}
	}
	if !slices.Equal(got, f.Subjects) {
		t.Errorf("references of %s on %s:\n got %q\nwant its subjects %q", f.ID, f.Resource, got, f.Subjects)
	}
	f.Subjects = nil
	got = nil
	for _, r := range findingRefs(d, f) {
		got = append(got, r.subject)
	}
	if want := []string{f.Resource}; !slices.Equal(got, want) {
		t.Errorf("references of a finding without subjects: got %q, want its own subject %q", got, want)
	}
}
