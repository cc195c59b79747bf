package printer

import (
	"fmt"
	"io"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diff"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// Marks of a diff's text: in NEW only, in OLD only, in both but changed.
const (
	markAdded   = "+"
	markRemoved = "-"
	markChanged = "~"
	// markUnknown: in OLD, absent from NEW, and one side could not read what the other did.
	markUnknown = "?"
)

// PrintDiff writes d, what changed between two reports, to w: as text (Table) grouped into
// findings, nodes and NodeClaims without a Node, each line marked + (new), - (gone) or ~
// (changed); or as JSON or YAML, the Diff object whole. Text shows every string as
// style.Printable does. st colours the text; nil means no colour.
func PrintDiff(w io.Writer, d diff.Diff, f Format, st *style.Styles) error {
	if f == JSON || f == YAML {
		return writeObject(w, publicDiff(d), f)
	}
	if f != Table {
		return fmt.Errorf("unsupported output format %q for a diff: use json or yaml, or none for text", f)
	}
	t := newText(st, 0)
	diffText(t, style.PrintableCopy(d))
	if err := t.flush(w); err != nil {
		return fmt.Errorf("writing the diff: %w", err)
	}
	return nil
}

// publicDiff returns d with its kind and apiVersion set, times in UTC and empty lists
// instead of null, so consumers can always iterate.
func publicDiff(d diff.Diff) diff.Diff {
	d.Kind, d.APIVersion = diff.Kind, diagnose.ReportAPIVersion
	d.Old.Taken, d.New.Taken = d.Old.Taken.UTC(), d.New.Taken.UTC()
	d.Findings.Added = nonNil(d.Findings.Added)
	d.Findings.Resolved = nonNil(d.Findings.Resolved)
	d.Findings.Changed = nonNil(d.Findings.Changed)
	if len(d.Findings.Unknown) == 0 {
		d.Findings.Unknown = nil
	}
	if len(d.Nodes.NotRead) == 0 {
		d.Nodes.NotRead = nil
	}
	d.Nodes.Added = nonNil(d.Nodes.Added)
	d.Nodes.Removed = nonNil(d.Nodes.Removed)
	changed := make([]diff.NodeChange, len(d.Nodes.Changed))
	for i, c := range d.Nodes.Changed {
		c.Fields = nonNil(c.Fields)
		changed[i] = c
	}
	d.Nodes.Changed = changed
	d.NodeClaims.Added = nonNil(d.NodeClaims.Added)
	d.NodeClaims.Removed = nonNil(d.NodeClaims.Removed)
	return d
}

func diffText(t *text, d diff.Diff) {
	for _, side := range []struct {
		label string
		s     diff.Side
	}{{"old", d.Old}, {"new", d.New}} {
		t.fields([]kv{{side.label, orUnknown(side.s.Source)}, {"taken", taken(side.s.Taken)}, {"context", orUnknown(side.s.Context)}})
	}
	for _, w := range d.Warnings {
		t.hanging(0, t.st.Warning.Mark()+" warning: ", w)
	}
	t.blank()
	fc, nc, cc := d.Findings, d.Nodes, d.NodeClaims
	if len(fc.Added)+len(fc.Resolved)+len(fc.Changed)+len(fc.Unknown)+len(nc.Added)+len(nc.Removed)+len(nc.Changed)+
		len(nc.NotRead)+len(cc.Added)+len(cc.Removed) == 0 {
		t.line(t.st.OK.Mark() + " no change: the same findings, nodes and node facts")
		return
	}
	diffFindings(t, fc)
	diffNodes(t, nc)
	diffClaims(t, cc)
}

func diffFindings(t *text, c diff.FindingChanges) {
	head := fmt.Sprintf("Findings: %d new, %d resolved, %d changed severity", len(c.Added), len(c.Resolved), len(c.Changed))
	if len(c.Unknown) > 0 {
		head += fmt.Sprintf(", %d unknown (one side could not read their data)", len(c.Unknown))
	}
	t.header(head)
	for _, f := range c.Added {
		lvl := t.st.Level(f.Severity.String())
		diffFinding(t, lvl.Style.Render(markAdded), badge(t, lvl), f)
	}
	for _, f := range c.Resolved {
		diffFinding(t, t.st.OK.Style.Render(markRemoved), badge(t, t.st.Level(f.Severity.String())), f)
	}
	for _, ch := range c.Changed {
		lvl := t.st.Level(ch.Severity.String())
		was := t.st.Level(ch.OldSeverity.String())
		diffFinding(t, lvl.Style.Render(markChanged), was.Badge()+" -> "+badge(t, lvl), ch.Finding)
	}
	for _, f := range c.Unknown {
		lvl := t.st.Level(f.Severity.String())
		diffFinding(t, lvl.Style.Render(markUnknown), badge(t, lvl), f)
	}
}

// badge returns lvl's badge padded to the widest one's width.
func badge(t *text, lvl style.Level) string { return pad(lvl.Badge(), width(t.st.Critical.Badge())) }

// diffFinding writes one finding: the mark, the severity badge, the ID and the subject, then
// the message indented under them.
func diffFinding(t *text, mark, badge string, f diagnose.Finding) {
	head := mark + " " + badge + "  "
	subj := subject(f)
	switch line := head + t.st.Strong.Render(f.ID); {
	case width(line) > t.limit():
		t.hanging(0, head, f.ID)
		t.para(6, subj)
	case subj == "":
		t.line(line)
	case width(line)+2+width(subj) <= t.limit():
		t.line(line + "  " + subj)
	default:
		t.line(line)
		t.para(6, subj)
	}
	t.para(6, f.Message)
}

func diffNodes(t *text, c diff.NodeChanges) {
	if len(c.Added)+len(c.Removed)+len(c.Changed)+len(c.NotRead) == 0 {
		return
	}
	t.blank()
	head := fmt.Sprintf("Nodes: %d added, %d removed, %d changed", len(c.Added), len(c.Removed), len(c.Changed))
	if len(c.NotRead) > 0 {
		head += fmt.Sprintf(", %d not read (the node list was incomplete)", len(c.NotRead))
	}
	t.header(head)
	for _, n := range c.Added {
		t.hanging(0, t.st.Strong.Render(markAdded)+" ", n)
	}
	for _, n := range c.Removed {
		t.hanging(0, t.st.Strong.Render(markRemoved)+" ", n)
	}
	for _, n := range c.Changed {
		t.hanging(0, t.st.Strong.Render(markChanged)+" ", n.Node)
		pairs := make([]kv, len(n.Fields))
		for i, f := range n.Fields {
			pairs[i] = kv{f.Field, orNone(f.Old) + " -> " + orNone(f.New)}
		}
		t.kvs(4, pairs)
	}
	for _, n := range c.NotRead {
		t.hanging(0, t.st.Strong.Render(markUnknown)+" ", n)
	}
}

func diffClaims(t *text, c diff.ClaimChanges) {
	if len(c.Added)+len(c.Removed) == 0 {
		return
	}
	t.blank()
	t.header(fmt.Sprintf("NodeClaims without a Node: %d added, %d removed", len(c.Added), len(c.Removed)))
	for _, r := range c.Added {
		t.hanging(0, t.st.Strong.Render(markAdded)+" ", r.Name+" ("+r.Status+")")
	}
	for _, r := range c.Removed {
		t.hanging(0, t.st.Strong.Render(markRemoved)+" ", r.Name+" ("+r.Status+")")
	}
}
