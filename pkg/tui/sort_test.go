package tui

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// shownRows returns the rows the nodes table shows, in order.
func shownRows(m Model) []row {
	var rows []row
	for _, l := range m.nodes.lines {
		if l.row >= 0 {
			rows = append(rows, m.data.rows[l.row])
		}
	}
	return rows
}

func TestSortCyclesAndShowsInStatus(t *testing.T) {
	m := ready(t, demoReport(t), 200, 60)
	worst := shownRows(m)
	want := []string{"name", "NodePool", "zone", "instance type", "pods/IP"}
	for i, name := range want {
		m = press(t, m, "S")
		if got := m.statusView(); !strings.Contains(got, "sort: "+name) {
			t.Errorf("after %d presses of S the status line is %q, want sort: %s", i+1, got, name)
		}
	}
	m = press(t, m, "S")
	if got := m.statusView(); strings.Contains(got, "sort:") {
		t.Errorf("after a full cycle the status line is %q, want the default order unnamed", got)
	}
	for i, r := range shownRows(m) {
		if r.name != worst[i].name {
			t.Fatalf("after a full cycle row %d is %q, want %q as worst first", i, r.name, worst[i].name)
		}
	}
}

func TestSortOrders(t *testing.T) {
	r := demoReport(t)
	for _, tc := range []struct {
		presses int
		cell    int
	}{{1, colName}, {2, colPool}, {3, colZone}, {4, colType}} {
		t.Run(sortBy(tc.presses).String(), func(t *testing.T) {
			m := ready(t, r, 200, 60)
			for range tc.presses {
				m = press(t, m, "S")
			}
			rows := shownRows(m)
			nodes := m.data.nodes
			pos := map[string]int{}
			for i, rw := range m.data.rows {
				pos[rw.name] = i
			}
			for i := 1; i < len(rows); i++ {
				a, b := rows[i-1], rows[i]
				if (a.claim >= 0) != (b.claim >= 0) {
					if a.claim >= 0 {
						t.Errorf("NodeClaim row %q comes before node %q", a.name, b.name)
					}
					continue
				}
				c := compareCells(a.cells[tc.cell], b.cells[tc.cell])
				if c > 0 {
					t.Errorf("row %d %q (%q) before %q (%q)", i-1, a.name, a.cells[tc.cell], b.name, b.cells[tc.cell])
				}
				if c == 0 && pos[a.name] > pos[b.name] {
					t.Errorf("equal %q: %q and %q are not in worst-first order (unstable)", a.cells[tc.cell], a.name, b.name)
				}
			}
			if len(rows) != len(m.data.rows) || nodes == len(rows) {
				t.Fatalf("the demo shows %d of %d rows, %d nodes: want every row and a NodeClaim row", len(rows), len(m.data.rows), nodes)
			}
		})
	}
}

func TestSortPodsRatio(t *testing.T) {
	capOf := func(pods, ips int64) printer.PodIPs {
		return printer.PodIPs{Pods: pods, IPs: ips, Known: true}
	}
	v6 := printer.PodIPs{Pods: 110, IPs: 1 << 20, Known: true, IPv6: true}
	for _, tc := range []struct {
		name string
		a, b printer.PodIPs
		want int
	}{
		{"higher ratio first", capOf(110, 29), capOf(29, 29), -1},
		{"lower ratio after", capOf(10, 29), capOf(29, 29), 1},
		{"equal ratios tie", capOf(10, 20), capOf(20, 40), 0},
		{"unknown last", printer.PodIPs{}, capOf(1, 29), 1},
		{"Cilium's unknown figure last", printer.PodIPs{Pods: 29, IPs: 16}, capOf(1, 29), 1},
		{"no IP ceiling last", v6, capOf(1, 29), 1},
		{"zero IP capacity last", capOf(110, 0), capOf(1, 29), 1},
		{"two unknown tie", printer.PodIPs{}, v6, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := comparePods(tc.a, tc.b); got != tc.want {
				t.Errorf("comparePods = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestSortKeepsCursorAndGrouping(t *testing.T) {
	m := press(t, ready(t, demoReport(t), 200, 60), "down", "down")
	name, _ := m.nodes.selectedName()
	m = press(t, m, "S")
	if got, _ := m.nodes.selectedName(); got != name {
		t.Errorf("after S the cursor is on %q, want %q", got, name)
	}
	m = press(t, m, "g")
	if got := m.statusView(); !strings.Contains(got, "by NodePool") || !strings.Contains(got, "sort: name") {
		t.Errorf("status line %q, want both the grouping and the order", got)
	}
	var last string
	heading := false
	for _, l := range m.nodes.lines {
		if l.row < 0 {
			heading, last = true, ""
			continue
		}
		rw := m.data.rows[l.row]
		if heading && rw.claim < 0 && last != "" && naturalCompare(rw.name, last) < 0 {
			t.Errorf("within a group %q comes after %q", rw.name, last)
		}
		if rw.claim < 0 {
			last = rw.name
		}
	}
}
