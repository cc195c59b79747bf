package tui

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// loadedLoader always returns l.
func loadedLoader(l Loaded) Loader {
	return func(context.Context) (Loaded, error) { return l, nil }
}

// pickRef presses tab on the finding sheet until the selected reference is subject.
func pickRef(t *testing.T, m Model, subject string) Model {
	t.Helper()
	for range len(m.sheet.links.refs) {
		if m.sheet.links.refs[m.sheet.links.pick].subject == subject {
			return m
		}
		m = press(t, m, "tab")
	}
	t.Fatalf("tab never selected %s among %+v", subject, m.sheet.links.refs)
	return m
}

// nodeFindingSheet shows the sheet of the demo's first finding on a node with a known subnet,
// loaded with the snapshot's index.
func nodeFindingSheet(t *testing.T) Model {
	t.Helper()
	m := readyLoaded(t, demoLoaded(t), 100, 40)
	m = m.openSheet(findingSheet(nodeFinding(t, m.data)), viewFindings)
	return m
}

func TestFindingSheetReferencesOpenSubjectSheets(t *testing.T) {
	m := nodeFindingSheet(t)
	n, _ := m.data.node(m.shownFinding().Node)
	var got []string
	for _, ref := range m.sheet.links.refs {
		got = append(got, ref.subject+": "+ref.what)
	}
	want := []string{
		"node/" + n.Identity.Node + ": node sheet",
		"ec2nodeclass/" + n.Identity.NodeClass + ": EC2NodeClass sheet",
		"nodepool/" + n.Identity.NodePool + ": NodePool sheet",
		"nodeclaim/" + n.Identity.NodeClaim + ": its Node, listed above",
		"subnet/" + n.Subnet.ID + ": subnet sheet",
		"instance/" + n.Identity.InstanceID + ": its Node, listed above",
	}
	if !slices.Equal(got, want) {
		t.Errorf("references with the snapshot's index:\n got %q\nwant %q", got, want)
	}
}

func TestResolveRefSubjectsWithoutSheets(t *testing.T) {
	d := readyLoaded(t, demoLoaded(t), 100, 40).data
	for _, tt := range []struct{ subject, what string }{
		{"nodepool/gone", "not in the snapshot"},
		{"ec2nodeclass/gone", "not in the snapshot"},
		{"nodeclass/default", "not in the snapshot"},
		{"placementgroup/gone", "not in the snapshot"},
		{"subnet/subnet-gone", "not in the snapshot"},
		{"instance/i-gone", "no sheet here yet"},
		{"eniconfig/us-west-2a", "no sheet here yet"},
		{"eni/eni-gone", "not in the snapshot"},
	} {
		if r := resolveRef(d, "", tt.subject); r.what != tt.what || r.openable() {
			t.Errorf("%s: got %q (openable %t), want %q as text", tt.subject, r.what, r.openable(), tt.what)
		}
	}
	if r := resolveRef(d, "", "placementgroup/demo-training"); r.what != "placement group sheet" || r.open.kind != actOpenSubject {
		t.Errorf("placementgroup/demo-training: got %q %+v, want the placement group sheet", r.what, r.open)
	}
	const leaked = "eni/eni-0239ee3152f11eb73"
	if r := resolveRef(d, "", leaked); r.what != "ENI sheet" || r.open.kind != actOpenSubject {
		t.Errorf("%s: got %q %+v, want the ENI sheet", leaked, r.what, r.open)
	}
	sh, ok := d.subjects.sheet(leaked)
	if !ok {
		t.Fatalf("%s has no sheet", leaked)
	}
	if got := sh.render(80, nil); !strings.Contains(got, "Security groups it pins (1)") || !strings.Contains(got, "subnet-020782d4fbf6deef9") {
		t.Errorf("the ENI sheet lacks the groups it pins or its subnet:\n%s", got)
	}
	if got := sh.refs.All(); !slices.Equal(got, []string{"subnet/subnet-020782d4fbf6deef9"}) {
		t.Errorf("the ENI sheet's references are %v, want its subnet", got)
	}
}

func TestFindingSheetOpensNodePoolAndComesBack(t *testing.T) {
	m := nodeFindingSheet(t)
	n, _ := m.data.node(m.shownFinding().Node)
	pool := "nodepool/" + n.Identity.NodePool
	m = press(t, pickRef(t, m, pool), "enter")
	if !m.onSubject() || m.sheet.where() != pool {
		t.Fatalf("enter on %s: view %d showing %q, want its sheet", pool, m.view, m.sheet.where())
	}
	if got := m.View(); !strings.Contains(got, pool+"  ") || !strings.Contains(got, "Class's subnet zones:") ||
		!strings.Contains(got, "esc back") {
		t.Errorf("the NodePool sheet should show its heading, its zones and the esc key:\n%s", got)
	}
	m = press(t, m, "pgdown", "esc")
	if !m.onFinding() || m.sheet.links.refs[m.sheet.links.pick].subject != pool {
		t.Fatalf("esc on the NodePool sheet: view %d, want the finding sheet with %s still selected", m.view, pool)
	}
	if m = press(t, m, "esc"); m.view != viewFindings {
		t.Errorf("esc on the finding sheet: view %d, want the findings", m.view)
	}
}

func TestSubnetSheetLeadsToTheSubnetsViewAndBack(t *testing.T) {
	m := nodeFindingSheet(t)
	n, _ := m.data.node(m.shownFinding().Node)
	m = press(t, pickRef(t, m, "subnet/"+n.Subnet.ID), "enter")
	if !m.onSubject() || !strings.Contains(m.View(), n.Subnet.ID) {
		t.Fatalf("enter on the subnet: view %d, want its sheet:\n%s", m.view, m.View())
	}
	if got := m.sheet.links.refs[m.sheet.links.pick]; got.subject != "subnets view" {
		t.Errorf("the subnet sheet's selected reference is %q, want the subnets view", got.subject)
	}
	m = press(t, m, "enter")
	if m.view != viewSubnets || m.sel.query != n.Subnet.ID || len(m.subnets.shown) != 1 {
		t.Fatalf("enter on the subnet sheet: view %d query %q shown %d, want the subnets view filtered to %s",
			m.view, m.sel.query, len(m.subnets.shown), n.Subnet.ID)
	}
	for _, want := range []struct {
		v     view
		query string
	}{{viewSheet, ""}, {viewSheet, ""}, {viewFindings, ""}} {
		m = press(t, m, "esc")
		if m.view != want.v || m.sel.query != want.query {
			t.Errorf("esc: view %d query %q, want view %d query %q", m.view, m.sel.query, want.v, want.query)
		}
	}
}

func TestSubjectSheetFollowsReloads(t *testing.T) {
	l := demoLoaded(t)
	m := nodeFindingSheet(t)
	n, _ := m.data.node(m.shownFinding().Node)
	m = press(t, pickRef(t, m, "ec2nodeclass/"+n.Identity.NodeClass), "enter")
	if !m.onSubject() {
		t.Fatalf("enter on the class: view %d, want its sheet", m.view)
	}
	if m = update(t, m, reportMsg{report: l.Report, index: l.Index}); !m.onSubject() {
		t.Errorf("a reload that keeps the class: view %d, want its sheet still", m.view)
	}
	if m = update(t, m, reportMsg{report: l.Report}); !m.onFinding() {
		t.Errorf("a reload without the class's sheet: view %d, want the finding sheet", m.view)
	}
}
