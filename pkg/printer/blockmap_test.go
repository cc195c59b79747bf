package printer

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/blocks"
	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
)

// TestBlockMapCells: a /16 of 4,096 blocks draws 16 rows of 64 cells, each cell four blocks:
// '.' when all four are free, '#' when all are full, ':' when some are free, 'o' when none is
// and they are not all alike; the legend says a cell's size. A /24 draws one block a cell.
func TestBlockMapCells(t *testing.T) {
	states := []byte(strings.Repeat(".", 4096))
	copy(states[0:], "x###")  // not free, mixed: o
	copy(states[4:], "####")  // full: #
	copy(states[8:], "..o.")  // some free: :
	copy(states[12:], "+.+.") // free: .
	states[4095] = 'x'
	b := &sheet.SubnetBlocks{BlockMap: diagnose.BlockMap{CIDR: "10.1.0.0/16", Free: 4085, Partly: 1, Full: 7, Reserved: 2,
		LargestFreeRun: 4079, LargestFreeCIDR: "10.1.128.0/17"}, Map: string(states)}
	out := SubnetSheet(sheet.SubnetSheet{ID: "subnet-0big", CIDR: "10.1.0.0/16", Blocks: b}, 120, nil)
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 2 && strings.HasPrefix(f[0], "10.1.") {
			rows = append(rows, f[1])
		}
	}
	if len(rows) != 16 {
		t.Fatalf("%d rows, want 16:\n%s", len(rows), out)
	}
	if !strings.HasPrefix(rows[0], "o#:.") || len(rows[0]) != 64 {
		t.Errorf("first row %q, want 64 cells starting o#:.", rows[0])
	}
	if !strings.HasSuffix(rows[15], ":") {
		t.Errorf("last row %q, want it to end in a cell with some free", rows[15])
	}
	for _, want := range []string{"a cell is 4 blocks", "Free /28 blocks:  4085 of 4096", "10.1.128.0/17"} {
		if !strings.Contains(out, want) {
			t.Errorf("sheet lacks %q:\n%s", want, out)
		}
	}
	small := SubnetSheet(sheet.SubnetSheet{ID: "subnet-0small", CIDR: "10.0.1.0/24", Blocks: &sheet.SubnetBlocks{
		BlockMap: diagnose.BlockMap{CIDR: "10.0.1.0/24"}, Map: "xo#.+..........x"}}, 80, nil)
	if !strings.Contains(small, "  10.0.1.0  xo#.+..........x\n") || strings.Contains(small, "a cell is") {
		t.Errorf("a /24 does not draw one block a cell:\n%s", small)
	}
}

// TestBlockMapLargeSubnet: a subnet wider than a /16 (EC2 makes none, a snapshot can say so)
// has a map longer than the 4 KiB text shows of any string: it is drawn from the block states,
// summarised to 16 rows, and counted in full; a map string that was cut or is short is never
// drawn, its counts are. Reservations outside the subnet are named as ignored.
func TestBlockMapLargeSubnet(t *testing.T) {
	states := make([]string, 8192) // a /15
	for i := range states {
		states[i] = blocks.Free
	}
	states[0], states[8191] = blocks.Reserved, blocks.Reserved
	m := diagnose.BlockMap{CIDR: "10.0.0.0/15", States: states, Free: 8190, Reserved: 2, LargestFreeRun: 8190,
		IgnoredReservations: []string{"scr-0all 0.0.0.0/0"}}
	b := &sheet.SubnetBlocks{BlockMap: m, Map: "x" + strings.Repeat(".", 8190) + "x"}
	out := SubnetSheet(sheet.SubnetSheet{ID: "subnet-0wide", CIDR: "10.0.0.0/15", Blocks: b}, 120, nil)
	rows := 0
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 2 && strings.HasPrefix(f[0], "10.") {
			rows++
			if strings.Trim(f[1], ".:ox#") != "" {
				t.Errorf("row %q has cells that are not block states", l)
			}
		}
	}
	for _, want := range []string{"/28 blocks (10.0.0.0/15: 8192)", "Free /28 blocks:  8190 of 8192", "a cell is 8 blocks",
		"Ignored: the CIDR reservation scr-0all 0.0.0.0/0 is not within the subnet's 10.0.0.0/15"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("sheet lacks %q:\n%s", want, out)
		}
	}
	if rows != 16 || strings.Contains(out, "cut") {
		t.Errorf("%d rows, want 16, and nothing cut:\n%s", rows, out)
	}

	// Read back from JSON: no states, and a map string cut (or short) is not drawn.
	for _, cut := range []string{b.Map[:4074] + "… (4118 more bytes cut)", b.Map[:100]} {
		read := &sheet.SubnetBlocks{BlockMap: diagnose.BlockMap{CIDR: "10.0.0.0/15", Free: 8190, Reserved: 2}, Map: cut}
		out := SubnetSheet(sheet.SubnetSheet{ID: "subnet-0wide", CIDR: "10.0.0.0/15", Blocks: read}, 120, nil)
		if strings.Contains(out, "10.0.0.0  ") || !strings.Contains(out, "8190 of 8192") {
			t.Errorf("a map of %d bytes for 8192 blocks: want the counts and no cells:\n%s", len(cut), out)
		}
	}
}
