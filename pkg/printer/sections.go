package printer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// The most IPs and prefixes an ENI detail line names before "+N more"; JSON has them all.
const (
	firstIPs      = 3
	firstPrefixes = 2
)

// enis writes an aligned table of the instance's ENIs with counts, then one line per ENI
// naming its first IPs and prefixes and its security groups.
func enis(t *text, list []diagnose.ENIReport) {
	t.header("ENIs")
	if len(list) == 0 {
		t.para(indent, noData)
		return
	}
	rows := [][]string{{"CARD", "DEV", "ENI", "TYPE", "SUBNET", "IPS", "PREFIXES", "SGS"}}
	for _, e := range list {
		rows = append(rows, []string{
			strconv.Itoa(int(e.NetworkCardIndex)), strconv.Itoa(int(e.DeviceIndex)), e.ID,
			orUnknown(e.InterfaceType), orUnknown(e.SubnetID), strconv.Itoa(len(e.PrivateIPs)),
			strconv.Itoa(len(e.IPv4Prefixes)), strconv.Itoa(len(e.SecurityGroups)),
		})
	}
	if tableWidth(indent, rows, 2) > t.limit() {
		// On a narrow sheet the longest heading gives way before the table loses its columns.
		rows[0][6] = "PFX"
	}
	table(t, indent, rows)
	for _, e := range list {
		if len(e.PrivateIPs)+len(e.IPv4Prefixes)+len(e.SecurityGroups) == 0 {
			continue
		}
		detail := fmt.Sprintf("IPs %s; prefixes %s; SGs %s", first(e.PrivateIPs, firstIPs),
			first(e.IPv4Prefixes, firstPrefixes), first(e.SecurityGroups, len(e.SecurityGroups)))
		t.hanging(indent, t.st.Dim.Render(e.ID+":")+" ", detail)
	}
}

// maxColumn is the widest a table column is padded to; the longest real EC2 ID (a subnet's)
// is 24 columns, so only an odd value makes its own row wider.
const maxColumn = 24

// table writes rows as columns two spaces apart, the first row as styled headings; one space
// apart when that keeps the table within the line limit and two would not. A row that would
// still pass the line limit is wrapped rather than cut.
func table(t *text, ind int, rows [][]string) {
	widths := tableWidths(rows)
	sep := "  "
	if tableWidth(ind, rows, 2) > t.limit() && tableWidth(ind, rows, 1) <= t.limit() {
		sep = " "
	}
	prefix := strings.Repeat(" ", ind)
	for ri, r := range rows {
		var b strings.Builder
		plain := 0
		for i, c := range r {
			if ri == 0 {
				c = t.st.Label.Render(c)
			}
			if i < len(r)-1 {
				c = pad(c, widths[i]) + sep
			}
			b.WriteString(c)
			plain += width(c)
		}
		if ind+plain > t.limit() {
			t.para(ind, b.String())
			continue
		}
		t.line(prefix + b.String())
	}
}

// tableWidths are the widths of rows' columns, each at most maxColumn.
func tableWidths(rows [][]string) []int {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], min(width(c), maxColumn))
		}
	}
	return widths
}

// tableWidth is the widest line table writes of rows at indent ind with columns gap spaces
// apart.
func tableWidth(ind int, rows [][]string, gap int) int {
	w := ind
	for i, c := range tableWidths(rows) {
		if i > 0 {
			w += gap
		}
		w += c
	}
	return w
}

// first lists up to n items of s, then "+N more"; "none" when s is empty.
func first(s []string, n int) string {
	if len(s) == 0 {
		return "none"
	}
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return fmt.Sprintf("%s +%d more", strings.Join(s[:n], ", "), len(s)-n)
}

func capacity(t *text, c *diagnose.CapacityReport, ips PodIPs) {
	t.header("Pod capacity")
	if c == nil {
		t.para(indent, noData)
		return
	}
	if c.AutoMode {
		autoCapacity(t, c, ips)
		return
	}
	t.kvs(indent, []kv{
		{"capacity.pods", strconv.FormatInt(c.Pods, 10)},
		{ips.Label, strconv.FormatInt(ips.IPs, 10)},
		{"Formula", orUnknown(c.Formula)},
		{"Default-card ENIs", strconv.Itoa(int(c.DefaultCardENIs))},
		{"IPv4 per ENI", strconv.Itoa(int(c.IPv4PerENI))},
		{"Prefix delegation", yesNo(c.PrefixDelegation)},
		{"Custom networking", yesNo(c.CustomNetworking)},
		{"Trunk ENI", yesNo(c.TrunkENI)},
		{"EFA-only on card 0", strconv.Itoa(int(c.EFAOnlyOnCard0))},
		{"Usable ENIs", strconv.Itoa(int(c.UsableENIs))},
		{"ENIs attached", strconv.Itoa(c.ENIsAttached) + " on the default card"},
	})
}

// efa writes the EFA section; found says which checks fired on the node, to mark the attached
// count when it is not what the class or the device plugin expects and the allocatable count
// when the plugin does not advertise the interfaces.
func efa(t *text, e *diagnose.EFAReport, kind string, found map[string]bool) {
	t.header("EFA")
	if e == nil {
		t.para(indent, noData)
		return
	}
	attached := strconv.Itoa(e.Attached)
	if found["efa-interface-count-mismatch"] {
		attached = t.offending(attached)
	}
	allocatable := strconv.FormatInt(e.Allocatable, 10)
	if found["efa-resource-not-advertised"] {
		allocatable = t.offending(allocatable)
	}
	t.kvs(indent, []kv{
		{"Supported", yesNo(e.Supported)},
		{"Maximum EFA interfaces", strconv.Itoa(int(e.MaxInterfaces))},
		{"Attached", attached},
		{"Allocatable vpc.amazonaws.com/efa", allocatable},
		{kind + " efa-only entries", strconv.Itoa(e.NodeClassEFAOnly)},
	})
}

// placement writes the Placement section; found says which checks fired on the node, to mark
// a missing group on an EFA node.
func placement(t *text, p *diagnose.PlacementReport, kind string, found map[string]bool) {
	t.header("Placement")
	if p == nil {
		t.para(indent, noData)
		return
	}
	group := "none"
	switch {
	case p.GroupName != "" && p.GroupID != "":
		group = p.GroupName + " (" + p.GroupID + ")"
	case p.GroupName != "" || p.GroupID != "":
		group = p.GroupName + p.GroupID
	}
	shown := group
	if group == "none" && found["efa-without-placement-group"] {
		shown = t.offending(group)
	}
	pairs := []kv{{"Group", shown}}
	if group != "none" {
		pairs = append(pairs, kv{"Strategy", orUnknown(p.Strategy)})
	}
	if p.Partition != 0 || p.Strategy == "partition" {
		pairs = append(pairs, kv{"Partition", strconv.Itoa(int(p.Partition))})
	}
	pairs = append(pairs, kv{kind + " selects", orNothing(p.NodeClassSelects)})
	t.kvs(indent, pairs)
}

// orNothing returns s, or "nothing" when it is empty.
func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// findings writes a node's findings with their remedies; the node itself goes unnamed.
func findings(t *text, list []diagnose.Finding) {
	t.header("Findings")
	if len(list) == 0 {
		t.line(strings.Repeat(" ", indent) + t.st.OK.Mark() + " none")
		return
	}
	for _, f := range list {
		finding(t, indent, f, f.Resource, true)
	}
}

// related writes, once after the sheets, the findings that are about no single node: the
// subnets, NodePools and EC2NodeClasses of the described nodes (one node when one), and data
// that could not be read.
func related(t *text, list []diagnose.Finding, one bool) {
	var shared []diagnose.Finding
	for _, f := range list {
		if f.Node == "" {
			shared = append(shared, f)
		}
	}
	if len(shared) == 0 {
		return
	}
	t.blank()
	title := "Findings on what these nodes use"
	if one {
		title = "Findings on what this node uses"
	}
	t.line(t.st.Title.Render(title))
	for _, f := range shared {
		finding(t, indent, f, f.Resource, true)
	}
}
