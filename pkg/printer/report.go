package printer

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// PrintReport writes the `check` output of r to w in format f. Text formats list the findings
// worst first (the order of r.Findings) and end with a summary line; wide adds each remedy.
// Text shows every string of r as style.Printable does: control characters escaped, at most
// style.MaxShown bytes of each; JSON and YAML hold them whole. st colours the text; nil means
// no colour.
func PrintReport(w io.Writer, r diagnose.Report, f Format, st *style.Styles) error {
	if !f.text() {
		return printData(w, r, f)
	}
	t := newText(st, 0)
	reportText(t, style.PrintableCopy(r), f == Wide)
	if err := t.flush(w); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// printData writes r as data, or fails on an unknown format.
func printData(w io.Writer, r diagnose.Report, f Format) error {
	switch f {
	case JSON, YAML:
		return writeData(w, r, f)
	}
	_, err := ParseFormat(string(f))
	if err == nil {
		err = fmt.Errorf("unsupported output format %q", f)
	}
	return err
}

// orPlain returns st, or colourless styles when st is nil.
func orPlain(st *style.Styles) *style.Styles {
	if st != nil {
		return st
	}
	return style.New(style.Renderer(io.Discard, false))
}

func reportText(t *text, r diagnose.Report, wide bool) {
	if len(r.Clusters) > 0 {
		clustersText(t, r, wide)
	} else {
		t.fields([]kv{
			{"context", orUnknown(r.Context)},
			{"region", orUnknown(r.Region)},
			{"taken", taken(r.Taken)},
		})
		t.blank()
		findingsText(t, r, wide)
	}
	// Once, last: where the remedies are that this output leaves out.
	if !wide && slices.ContainsFunc(r.Findings, func(f diagnose.Finding) bool { return f.Remedy != "" }) {
		t.line(t.st.Dim.Render("remedies: -o wide (or describe node NAME)"))
	}
}

// groupAfter is how many findings of a grouped check (Spec.Grouped) text output shows in full
// when it has more than groupAfter+1; one line names the rest's subjects, and wide lists every
// one.
const groupAfter = 3

// grouped reports whether the findings of check id are grouped in text output: its Spec says so.
func grouped(id string) bool {
	spec, ok := diagnose.SpecOf(id)
	return ok && spec.Grouped
}

// findingsText writes r's findings, worst first, and its summary line.
func findingsText(t *text, r diagnose.Report, wide bool) {
	switch {
	case len(r.Findings) == 0 && len(r.NotRun) > 0:
		t.line(t.st.OK.Mark() + " no findings: every check that ran passed")
	case len(r.Findings) == 0:
		t.line(t.st.OK.Mark() + " no findings: every check passed")
	}
	total, shown, group := map[string]int{}, map[string]int{}, map[string]bool{}
	for _, f := range r.Findings {
		if total[f.ID]++; total[f.ID] == 1 {
			group[f.ID] = !wide && grouped(f.ID)
		}
	}
	first := true
	for _, f := range r.Findings {
		group := group[f.ID] && total[f.ID] > groupAfter+1
		if group && shown[f.ID] > groupAfter {
			continue
		}
		if !first {
			t.blank()
		}
		first = false
		shown[f.ID]++
		if group && shown[f.ID] > groupAfter {
			rest := restOf(r.Findings, f.ID, groupAfter)
			t.para(4, fmt.Sprintf("... and %d more %s findings: %s (-o wide shows "+
				"each with its remedy)", len(rest), f.ID, strings.Join(rest, ", ")))
			continue
		}
		finding(t, 0, f, subject(f), wide)
	}
	t.blank()
	summary(t, r.Summary, r.NodeClaims, r.Findings)
	notRunText(t, r.NotRun, wide)
}

// notRunText says which checks did not run because a source they need is a gap: one line
// naming them, or with wide one line per check naming what it needs.
func notRunText(t *text, notRun []diagnose.NotRun, wide bool) {
	if len(notRun) == 0 {
		return
	}
	if wide {
		for _, n := range notRun {
			t.hanging(0, t.st.Dim.Render("not run: "), n.ID+" (needs "+strings.Join(n.Needs, ", ")+")")
		}
		return
	}
	ids := make([]string, len(notRun))
	for i, n := range notRun {
		ids[i] = n.ID
	}
	what := "checks"
	if len(notRun) == 1 {
		what = "check"
	}
	t.hanging(0, t.st.Dim.Render("not run: "), fmt.Sprintf("%d %s, for want of a source each needs: %s (-o wide names the sources)",
		len(notRun), what, strings.Join(ids, ", ")))
}

// restOf returns the subjects of the findings of a check after its first skip.
func restOf(findings []diagnose.Finding, id string, skip int) []string {
	var out []string
	for _, f := range findings {
		if f.ID != id {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		out = append(out, f.Subject())
	}
	return out
}

// finding writes one finding at indent: a head line with the severity, the ID and subj, then
// the message and, when withRemedy, the remedy, indented under it.
func finding(t *text, indent int, f diagnose.Finding, subj string, withRemedy bool) {
	lvl := t.st.Level(f.Severity.String())
	badge := pad(lvl.Badge(), width(t.st.Critical.Badge())) + "  "
	head := badge + t.st.Strong.Render(f.ID)
	ind := strings.Repeat(" ", indent)
	switch {
	case indent+width(head) > t.limit():
		t.hanging(indent, badge, f.ID)
		t.para(indent+4, subj)
	case subj == "":
		t.line(ind + head)
	case indent+width(head)+2+width(subj) <= t.limit():
		t.line(ind + head + "  " + subj)
	default:
		t.line(ind + head)
		t.para(indent+4, subj)
	}
	t.para(indent+4, f.Message)
	if withRemedy {
		t.findingRemedy(indent+4, t.st.Label.Render("remedy:")+" ", f, false)
	}
}

// subject names what a finding is about: node/NAME, its resource, or both.
func subject(f diagnose.Finding) string {
	var parts []string
	if f.Node != "" {
		parts = append(parts, "node/"+f.Node)
	}
	if f.Resource != "" && f.Resource != "node/"+f.Node {
		parts = append(parts, f.Resource)
	}
	return escapeNewlines(strings.Join(parts, "  "))
}

// summary writes "N nodes: O ok, W with warnings, C with criticals, ..." from the summary's
// counts by status, whose parts add up to N (the report's nodes[]), with non-zero problem
// counts coloured, then the NodeClaims without a Node (claimSummary), then the findings by
// severity ("; findings: 1 critical, 2 warning"): a finding on a subnet or a class is on no
// node's status. listed are the findings the report lists; a severity the summary counts more
// of was left out of the list (check --min-severity), which the line says.
func summary(t *text, s diagnose.Summary, claims []diagnose.NodeClaimReport, listed []diagnose.Finding) {
	count := func(n int, what string, lvl style.Level) string {
		txt := fmt.Sprintf("%d %s", n, what)
		if n == 0 {
			return txt
		}
		return lvl.Style.Render(txt)
	}
	by := s.ByStatus()
	parts := []string{
		fmt.Sprintf("%d ok", by[diagnose.StatusOK]),
		count(by[diagnose.Warning.String()], "with warnings", t.st.Warning),
		count(by[diagnose.Critical.String()], "with criticals", t.st.Critical),
	}
	if n := by[diagnose.Info.String()]; n > 0 {
		parts = append(parts, count(n, "with info", t.st.Info))
	}
	if n := by[diagnose.StatusInitialising]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d initialising", n))
	}
	if n := by[diagnose.StatusTerminating]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d terminating", n))
	}
	if n := by[diagnose.StatusSkipped]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped (%s)", n, skippedKinds(s)))
	}
	parts = append(parts, claimSummary(t.st, s, claims)...)
	nodes := "nodes"
	if s.Total() == 1 {
		nodes = "node"
	}
	parts[0] = fmt.Sprintf("%d %s: %s", s.Total(), nodes, parts[0])
	for i := range parts[:len(parts)-1] {
		parts[i] += ","
	}
	if found := findingCounts(t, s, listed); len(found) > 0 {
		// One part, so that a wrapped line breaks before the counts, not among them.
		parts[len(parts)-1] += ";"
		parts = append(parts, "findings: "+strings.Join(found, " "))
	}
	for _, l := range pack(parts, " ", t.limit()) {
		t.line(l)
	}
}

// findingCounts are the parts of the summary line that count the findings by severity, worst
// first and only those there are ("1 critical,", "2 warning"), then those of them the list
// leaves out ("(4 info not listed)"); none without findings.
func findingCounts(t *text, s diagnose.Summary, listed []diagnose.Finding) []string {
	shown := map[string]int{}
	for _, f := range listed {
		shown[f.Severity.String()]++
	}
	var parts, hidden []string
	for sev := diagnose.Critical; sev >= diagnose.Info; sev-- {
		n := max(s.Findings[sev.String()], shown[sev.String()])
		if n == 0 {
			continue
		}
		parts = append(parts, t.st.Level(sev.String()).Style.Render(fmt.Sprintf("%d %s", n, sev)))
		if left := n - shown[sev.String()]; left > 0 {
			hidden = append(hidden, fmt.Sprintf("%d %s", left, sev))
		}
	}
	for i := range parts[:max(len(parts)-1, 0)] {
		parts[i] += ","
	}
	if len(hidden) > 0 {
		parts = append(parts, "("+strings.Join(hidden, ", ")+" not listed)")
	}
	return parts
}

// skippedKinds says what the skipped nodes are, e.g. "1 Fargate, 1 hybrid"; "not EC2" for
// reports without the breakdown.
func skippedKinds(s diagnose.Summary) string {
	names := map[string]string{diagnose.ComputeFargate: "Fargate", diagnose.ComputeHybrid: "hybrid", diagnose.ComputeOther: "not EC2",
		diagnose.SkippedUnread: "in a Region not read"}
	var parts []string
	for _, k := range []string{diagnose.ComputeFargate, diagnose.ComputeHybrid, diagnose.ComputeOther, diagnose.SkippedUnread} {
		if n := s.SkippedBy[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, names[k]))
		}
	}
	if len(parts) == 0 {
		return "not EC2"
	}
	if len(parts) == 1 && s.SkippedBy[diagnose.ComputeOther] > 0 {
		return "not EC2"
	}
	return strings.Join(parts, ", ")
}

// taken formats a snapshot time as RFC 3339 in UTC.
func taken(tm time.Time) string {
	if tm.IsZero() {
		return "unknown"
	}
	return tm.UTC().Format(time.RFC3339)
}

// orUnknown returns s, or "unknown" when it is empty.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
