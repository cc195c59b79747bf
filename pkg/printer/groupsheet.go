package printer

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// PrintPlacementGroups writes the `describe placementgroup` output of sheets to w in format f:
// the text sheets (PlacementGroupSheet at Width), or as JSON or YAML the one sheet, or a List
// of them. st colours the text; nil means no colour.
func PrintPlacementGroups(w io.Writer, sheets []sheet.PlacementGroupSheet, f Format, st *style.Styles) error {
	return printSheets(w, sheets, f, st, "placement group sheets", groupSheet)
}

// PlacementGroupSheet returns the sheet of sh as text whose lines fit width columns (at least
// 40; zero or less means Width). Strings are escaped and cut as PrintReport does. st colours
// the text; nil means no colour.
func PlacementGroupSheet(sh sheet.PlacementGroupSheet, width int, st *style.Styles) string {
	return sheetsText([]sheet.PlacementGroupSheet{sh}, width, true, st, groupSheet)
}

func groupSheet(t *text, sh sheet.PlacementGroupSheet) {
	subjectTitle(t, "placementgroup/"+firstOf(sh.Name, sh.ID), sh.Findings)
	t.header("Placement group")
	pairs := []kv{
		{"Name", orUnknown(sh.Name)},
		{"ID", orUnknown(sh.ID)},
		{"Strategy", orUnknown(sh.Strategy)},
		{"State", orUnknown(sh.State)},
	}
	switch sh.Strategy {
	case "partition":
		pairs = append(pairs, kv{"Partitions", strconv.Itoa(int(sh.PartitionCount))})
	case "spread":
		pairs = append(pairs, kv{"Spread level", orUnknown(sh.SpreadLevel)})
	}
	t.kvs(indent, pairs)
	partitions := sh.Strategy == "partition"
	membersSection(t, "Instances", sh.Members, "none: no node's or NodeClaim's instance is in it", partitions)
	if partitions && len(sh.Members) > 0 {
		per := map[int32]int{}
		for _, m := range sh.Members {
			per[m.Partition]++
		}
		var parts []string
		for p := int32(1); p <= max(sh.PartitionCount, 1); p++ {
			parts = append(parts, "partition "+strconv.Itoa(int(p))+": "+strconv.Itoa(per[p]))
		}
		if per[0] > 0 {
			parts = append(parts, "partition unknown: "+strconv.Itoa(per[0]))
		}
		t.para(indent, strings.Join(parts, ", "))
	}
	if sh.Strategy == "spread" {
		perZone := map[string]int{}
		var zones []string
		for _, m := range sh.Members {
			if m.Zone != "" && (m.InstanceState == "running" || m.InstanceState == "pending") {
				if perZone[m.Zone] == 0 {
					zones = append(zones, m.Zone)
				}
				perZone[m.Zone]++
			}
		}
		slices.Sort(zones)
		for _, z := range zones {
			t.hanging(indent, t.st.Strong.Render(z)+"  ", strconv.Itoa(perZone[z])+" of "+strconv.Itoa(sheet.SpreadPerZone)+" running "+spreadBar(perZone[z]))
		}
		note := "a spread group holds at most " + strconv.Itoa(sheet.SpreadPerZone) + " running instances per zone"
		if len(sh.ZonesFull) > 0 {
			note += "; full in " + strings.Join(sh.ZonesFull, ", ") + ": the next launch there fails"
		}
		t.para(indent, note)
	}
	t.header("Selected by")
	if len(sh.Classes) == 0 {
		t.para(indent, "no class's placementGroupSelector names it")
	} else {
		t.para(indent, strings.Join(sh.Classes, ", "))
	}
	subjectFindings(t, "placementgroup/"+firstOf(sh.Name, sh.ID), sh.Findings)
	references(t, sh.References())
}

// spreadBar draws n of a spread group's SpreadPerZone places in a zone as filled cells.
func spreadBar(n int) string {
	used := min(n, sheet.SpreadPerZone)
	return "▕" + strings.Repeat("█", used) + strings.Repeat("░", sheet.SpreadPerZone-used) + "▏"
}
