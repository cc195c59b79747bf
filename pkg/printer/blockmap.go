package printer

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
)

// maxMapRows is the most rows a block map takes; a larger subnet draws several blocks a cell.
const maxMapRows = 16

// blockMap draws a subnet's /28 blocks as rows of cells, each row headed by its first address,
// with a legend, the counts and the largest free run. Cells are plain characters
// (sheet.BlockChars), coloured when the styles colour: free green, partly used yellow, full
// and reserved dim. A cell of several blocks is free only when all of them are, full or
// reserved only when all are, and otherwise ':' when some are free, 'o' when none is.
func blockMap(t *text, cidr string, b *sheet.SubnetBlocks) {
	if b == nil {
		return
	}
	total := b.Blocks()
	t.header(fmt.Sprintf("/28 blocks (%s: %d)", cidr, total))
	if _, err := netip.ParsePrefix(b.CIDR); err != nil {
		return
	}
	if cells := b.Cells(); cells != "" {
		blockCells(t, b, cells)
	}
	blockCounts(t, b, total)
}

// blockCells draws the cells of a block map, at most maxMapRows rows: a larger subnet draws
// several blocks a cell (summarised as blockCell says), so a map of any size takes the same
// room.
func blockCells(t *text, b *sheet.SubnetBlocks, cells string) {
	cols := 64
	for cols > 8 && indent+len("255.255.255.255  ")+cols > t.limit() {
		cols /= 2
	}
	per := 1
	for (len(cells)+per*cols-1)/(per*cols) > maxMapRows {
		per *= 2
	}
	var addrs []string
	label := 0
	for row := 0; row*cols*per < len(cells); row++ {
		addrs = append(addrs, b.BlockAddr(row*cols*per).String())
		label = max(label, len(addrs[row])+2)
	}
	for row, addr := range addrs {
		var line strings.Builder
		for c := 0; c < cols; c++ {
			lo := (row*cols + c) * per
			if lo >= len(cells) {
				break
			}
			line.WriteString(t.blockCell(cells[lo:min(lo+per, len(cells))]))
		}
		t.line(strings.Repeat(" ", indent) + fmt.Sprintf("%-*s", label, addr) + line.String())
	}
	items := []string{t.blockCell(".") + " free", t.blockCell("+") + " free, reserved for prefixes",
		t.blockCell("o") + " partly used", t.blockCell("#") + " full", t.blockCell("x") + " reserved"}
	if per > 1 {
		items = append(items, t.blockCell(":")+" some free", fmt.Sprintf("a cell is %d blocks", per))
	}
	line := ""
	for _, it := range items {
		if line != "" && indent+width(line)+2+width(it) > t.limit() {
			t.line(strings.Repeat(" ", indent) + line)
			line = ""
		}
		if line != "" {
			line += "  "
		}
		line += it
	}
	t.line(strings.Repeat(" ", indent) + line)
}

// blockCounts writes a block map's counts, its largest free run, an example of what holds a
// partly used block and the CIDR reservations it ignored.
func blockCounts(t *text, b *sheet.SubnetBlocks, total int) {
	run := "none"
	if b.LargestFreeRun > 0 {
		run = fmt.Sprintf("%d block", b.LargestFreeRun)
		if b.LargestFreeRun > 1 {
			run += "s"
		}
		if b.LargestFreeCIDR != "" {
			run += ", largest free CIDR not reserved for prefixes " + b.LargestFreeCIDR
		}
	}
	t.kvs(indent, []kv{
		{"Free /28 blocks", fmt.Sprintf("%d of %d (%d partly used, %d full, %d reserved)", b.Free, total, b.Partly, b.Full, b.Reserved)},
		{"Largest free run", run},
	})
	if e := b.Example; e != nil && b.Partly > 0 {
		holder := e.ENI
		if e.Description != "" {
			holder += ", " + fmt.Sprintf("%q", e.Description)
		}
		t.para(indent, t.st.Dim.Render(fmt.Sprintf("A partly used block holds e.g. %s (%s).", e.Address, holder)))
	}
	if n := len(b.IgnoredReservations); n > 0 {
		what := "the CIDR reservation " + b.IgnoredReservations[0] + " is"
		if n > 1 {
			what = "the CIDR reservations " + strings.Join(b.IgnoredReservations, ", ") + " are"
		}
		t.para(indent, t.st.Dim.Render(fmt.Sprintf("Ignored: %s not within the subnet's %s (a reservation is a range "+
			"of the subnet's own addresses) and reserves none of its blocks.", what, b.CIDR)))
	}
}

// blockCell renders the cell of one or more blocks' map characters.
func (t *text) blockCell(states string) string {
	c := states[0]
	if len(states) > 1 {
		free := strings.Count(states, ".") + strings.Count(states, "+")
		switch {
		case free == len(states):
			c = '.'
		case strings.Count(states, "#") == len(states):
			c = '#'
		case strings.Count(states, "x") == len(states):
			c = 'x'
		case free > 0:
			c = ':'
		default:
			c = 'o'
		}
	}
	s := string(c)
	switch c {
	case '.', '+', ':':
		return t.st.OK.Style.Render(s)
	case 'o':
		return t.st.Warning.Style.UnsetBold().Render(s)
	}
	return t.st.Dim.Render(s)
}
