package tui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// seeAlsoOf returns the subjects listed under the "See also" of a sheet `describe` printed.
func seeAlsoOf(text string) []string {
	_, list, ok := strings.Cut(text, "See also (describe KIND NAME)\n")
	if !ok {
		return nil
	}
	return strings.Fields(list)
}

// TestSubjectSheetLinksAreDescribesSeeAlso: for every subnet, NodePool, class, placement group
// and ENI of the demo, the TUI's sheet lists as references what `describe` prints under "See
// also", in the same order (the nodes of a subnet's other interfaces included), and shows no
// "See also" of its own.
func TestSubjectSheetLinksAreDescribesSeeAlso(t *testing.T) {
	l := demoLoaded(t)
	d := &data{subjects: subjects{index: l.Index, report: l.Report}, report: l.Report}
	x, r := l.Index, l.Report
	printed := map[string]string{}
	print := func(subject string, write func(*bytes.Buffer) error) {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", subject, err)
		}
		printed[subject] = b.String()
	}
	for id := range x.Subnets {
		sh, _ := sheet.DescribeSubnet(x, r, id)
		print("subnet/"+id, func(b *bytes.Buffer) error {
			return printer.PrintSubnets(b, []sheet.SubnetSheet{sh}, printer.Table, nil)
		})
	}
	for name := range x.NodePools {
		sh, _ := sheet.DescribeNodePool(x, r, name)
		print("nodepool/"+name, func(b *bytes.Buffer) error {
			return printer.PrintNodePools(b, []sheet.NodePoolSheet{sh}, printer.Table, nil)
		})
	}
	for _, c := range x.Snapshot.NodeClasses {
		for _, kind := range sheet.NodeClassKinds(x, "", c.Name) {
			sh, _ := sheet.DescribeNodeClass(x, r, kind, c.Name)
			print(sh.Resource, func(b *bytes.Buffer) error {
				return printer.PrintNodeClasses(b, []sheet.NodeClassSheet{sh}, printer.Table, nil)
			})
		}
	}
	for _, g := range x.Snapshot.PlacementGroups {
		sh, _ := sheet.DescribePlacementGroup(x, r, g.Name)
		print("placementgroup/"+g.Name, func(b *bytes.Buffer) error {
			return printer.PrintPlacementGroups(b, []sheet.PlacementGroupSheet{sh}, printer.Table, nil)
		})
	}
	for _, e := range x.Snapshot.Interfaces {
		sh, _ := sheet.DescribeENI(x, r, e.ID)
		print("eni/"+e.ID, func(b *bytes.Buffer) error { return printer.PrintENIs(b, []sheet.ENISheet{sh}, printer.Table, nil) })
	}
	otherENINodes := 0
	for subject, text := range printed {
		p, ok := subjectPage(subject)(d)
		if !ok {
			t.Errorf("%s: the TUI has no sheet", subject)
			continue
		}
		var got []string
		capped := false
		for _, rf := range p.refs {
			switch {
			case strings.HasPrefix(rf.subject, "+"):
				capped = true
			case rf.subject != "subnets view":
				got = append(got, rf.subject)
			}
		}
		want := seeAlsoOf(text)
		if capped && len(got) < len(want) {
			want = want[:len(got)] // the TUI lists the first members, then one link to the rest
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: the TUI's references\n  %v\nwant describe's See also\n  %v", subject, got, want)
		}
		if body := p.body(120, theme{Styles: plain()}); strings.Contains(body, "See also") {
			t.Errorf("%s: the TUI's sheet shows describe's See also:\n%s", subject, body)
		}
		if strings.HasPrefix(subject, "subnet/") {
			sh, _ := sheet.DescribeSubnet(x, r, strings.TrimPrefix(subject, "subnet/"))
			for _, e := range sh.ENIs {
				if !strings.Contains(" "+strings.Join(memberNames(sh.Members), " ")+" ", " node/"+e.Node+" ") {
					otherENINodes++
				}
			}
		}
	}
	if otherENINodes == 0 {
		t.Error("no demo subnet holds an interface of a node whose instance is elsewhere: the case the subnet's references must cover")
	}
}

// memberNames returns kind/name of each member.
func memberNames(ms []sheet.Member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Kind + "/" + m.Name
	}
	return out
}

// TestSubjectSheetKeepsTextThatQuotesSeeAlso: a NodePool condition whose message holds the
// "See also" header (text from the cluster) does not cut the sheet the TUI shows.
func TestSubjectSheetKeepsTextThatQuotesSeeAlso(t *testing.T) {
	l := demoLoaded(t)
	var pool *snapshot.NodePool
	for _, p := range l.Index.NodePools {
		if pool == nil || p.Name < pool.Name {
			pool = p
		}
	}
	pool.Conditions = append(pool.Conditions, snapshot.Condition{Type: "Quoting", Status: "True",
		Message: "See also (describe KIND NAME)"})
	d := &data{subjects: subjects{index: l.Index, report: l.Report}, report: l.Report}
	p, ok := subjectPage("nodepool/" + pool.Name)(d)
	if !ok {
		t.Fatalf("nodepool/%s has no sheet", pool.Name)
	}
	body := p.body(120, theme{Styles: plain()})
	for _, want := range []string{"See also (describe KIND NAME)", "Nodes and NodeClaims", "Findings"} {
		if !strings.Contains(body, want) {
			t.Errorf("the NodePool sheet lacks %q:\n%s", want, body)
		}
	}
}
