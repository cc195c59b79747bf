package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// stripBar is the width of a subnet's bar in the header strip.
const stripBar = 10

// headerView renders the header: what is shown and when, node counts per level, then the
// subnet strip on at most stripLines lines.
func headerView(th theme, title string, d *data, clock time.Time, w, stripLines int) string {
	label := func(k, v string) string { return th.Label.Render(k+":") + " " + v }
	parts := []string{th.Title.Render("karpnet")}
	if d == nil {
		parts = append(parts, label("context", orDash(title)))
		return fit(strings.Join(parts, "  "), w, false)
	}
	r := d.report
	ctx := title
	if ctx == "" {
		ctx = r.Context
	}
	read := label("taken", takenAt(r.Taken))
	if !clock.IsZero() {
		read = readAt(r.Taken, clock)
	}
	parts = append(parts, label("context", orDash(ctx)), label("region", orDash(r.Region)), read)
	lines, _ := packLine(parts, "  ", w, 2)
	// The counts are the report's one summary, as the text summary line and JSON print them.
	byStatus := r.Summary.ByStatus()
	counts := []string{th.Strong.Render(strconv.Itoa(r.Summary.Total()) + " nodes")}
	for _, lvl := range []style.Level{th.Critical, th.Warning, th.Info, th.OK, th.Initialising, th.Terminating, th.Skipped} {
		if n := byStatus[lvl.Name]; n > 0 || !optionalLevel(lvl.Name) {
			counts = append(counts, lvl.Style.Render(fmt.Sprintf("%s %d %s", lvl.Glyph, n, lvl.Name)))
		}
	}
	counts = append(counts, th.Dim.Render(countOf(len(r.Findings), "finding", "findings")))
	if len(r.NotRun) > 0 {
		// Checks that could not judge for want of a source: their silence is no all-clear.
		counts = append(counts, th.Warning.Style.Render(countOf(len(r.NotRun), "check", "checks")+" not run (f)"))
	}
	more, _ := packLine(counts, "  ", w, 2)
	lines = append(lines, more...)
	lines = append(lines, subnetStrip(th, d.subnets, w, stripLines)...)
	return strings.Join(lines, "\n")
}

// subnetStrip renders every subnet the report lists (node, ENI, pod and NodeClass subnets),
// worst first, each with its bar, packed into at most n lines.
func subnetStrip(th theme, subnets []subnetRow, w, n int) []string {
	if n <= 0 || len(subnets) == 0 {
		return nil
	}
	var entries []string
	for _, s := range subnets {
		entries = append(entries, th.Level(s.level).Mark()+" "+s.id+" "+bar(th, s, stripBar)+" "+freeText(s))
	}
	if len(entries) == 0 {
		return nil
	}
	head := th.Label.Render("subnets") + " "
	lines, shown := packLine(append([]string{head + entries[0]}, entries[1:]...), "  ", w, n)
	if rest := len(entries) - shown; rest > 0 {
		more := th.Dim.Render(fmt.Sprintf("+%d more (s)", rest))
		last := len(lines) - 1
		if width(lines[last])+2+width(more) > w {
			lines[last] = fit(lines[last], max(w-width(more)-2, 0), false)
		}
		lines[last] += "  " + more
	}
	return lines
}

// bar draws a subnet's use in cells columns: used cells filled, free ones shaded.
func bar(th theme, s subnetRow, cells int) string {
	u := s.used()
	if u < 0 {
		return "▕" + th.BarFree.Render(strings.Repeat("?", cells)) + "▏"
	}
	full := min(int(u*float64(cells)+0.5), cells)
	if u > 0 && full == 0 {
		full = 1
	}
	used := th.BarUsed
	switch {
	case u >= 0.9:
		used = th.Critical.Style
	case u >= 0.75:
		used = th.Warning.Style
	}
	return "▕" + used.Render(strings.Repeat("█", full)) + th.BarFree.Render(strings.Repeat("░", cells-full)) + "▏"
}

// freeText says how many of a subnet's IPs are free.
func freeText(s subnetRow) string {
	switch {
	case s.free < 0:
		return "? free"
	case s.total <= 0:
		return strconv.FormatInt(s.free, 10) + " free"
	}
	return strconv.FormatInt(s.free, 10) + "/" + strconv.FormatInt(s.total, 10) + " free"
}

// packLine joins fields with sep into at most n lines of w columns and returns them with
// how many fields they hold; fields that do not fit are left out, one wider than w is cut.
func packLine(fields []string, sep string, w, n int) ([]string, int) {
	var lines []string
	cur := ""
	for i, f := range fields {
		f = oneLine(f)
		switch {
		case cur == "":
			cur = fit(f, w, false)
		case width(cur)+width(sep)+width(f) <= w:
			cur += sep + f
		default:
			lines = append(lines, cur)
			if len(lines) == n {
				return lines, i
			}
			cur = fit(f, w, false)
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines, len(fields)
}

// takenAt formats the snapshot time as RFC 3339 in UTC.
func takenAt(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339)
}

// optionalLevel reports whether the header shows a level's count only when it is not zero:
// nodes starting up, being deleted or skipped, which most clusters do not have.
func optionalLevel(name string) bool {
	return name == style.LevelSkipped || name == style.LevelInitialising || name == style.LevelTerminating
}
