package printer

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// PrintNodeClasses writes the `describe nodeclass` output of sheets to w in format f: the text
// sheets (NodeClassSheet at Width), or as JSON or YAML the one sheet, or a List of them. st
// colours the text; nil means no colour.
func PrintNodeClasses(w io.Writer, sheets []sheet.NodeClassSheet, f Format, st *style.Styles) error {
	return printSheets(w, sheets, f, st, "NodeClass sheets", classSheet)
}

// NodeClassSheet returns the sheet of sh as text whose lines fit width columns (at least 40;
// zero or less means Width). Strings are escaped and cut as PrintReport does. st colours the
// text; nil means no colour.
func NodeClassSheet(sh sheet.NodeClassSheet, width int, st *style.Styles) string {
	return sheetsText([]sheet.NodeClassSheet{sh}, width, true, st, classSheet)
}

func classSheet(t *text, sh sheet.NodeClassSheet) {
	subjectTitle(t, sh.Resource, sh.Findings)
	if sh.Kind == snapshot.KindNodeClass {
		t.header(snapshot.KindNodeClass)
	} else {
		t.header(snapshot.KindEC2NodeClass)
	}
	t.kvs(indent, classSettings(sh))
	classStatus(t, sh)
	classInterfaces(t, sh)
	conditionsSection(t, sh.Conditions)
	t.header("NodePools")
	if len(sh.NodePools) == 0 {
		t.para(indent, "none: no NodePool's nodeClassRef names it")
	} else {
		t.para(indent, strings.Join(sh.NodePools, ", "))
	}
	membersSection(t, "Nodes and NodeClaims", sh.Members, "none", false)
	subjectFindings(t, sh.Resource, sh.Findings)
	references(t, sh.References())
}

// classSettings are the class's selectors and settings, as label: value pairs.
func classSettings(sh sheet.NodeClassSheet) []kv {
	pairs := []kv{
		{"Name", sh.Name},
		{"Subnet selector", terms(sh.SubnetSelectorTerms)},
		{"Security-group selector", terms(sh.SecurityGroupSelectorTerms)},
	}
	if len(sh.PodSubnetSelectorTerms)+len(sh.PodSecurityGroupSelectorTerms) > 0 {
		pairs = append(pairs,
			kv{"Pod subnet selector", terms(sh.PodSubnetSelectorTerms)},
			kv{"Pod subnets selected", orNone(strings.Join(sh.PodSubnets, ", "))},
			kv{"Pod security-group selector", terms(sh.PodSecurityGroupSelectorTerms)})
	}
	public := "not set (the subnet's MapPublicIpOnLaunch decides)"
	if sh.AssociatePublicIPAddress != nil {
		public = yesNo(*sh.AssociatePublicIPAddress)
	}
	return append(pairs,
		kv{"Placement group", placementSelector(sh.PlacementGroupSelector, sh.PlacementGroup)},
		kv{"kubelet maxPods", maxPodsText(sh.Kubelet)},
		kv{"associatePublicIPAddress", public})
}

// classStatus writes the subnets and security groups Karpenter resolved for the class.
func classStatus(t *text, sh sheet.NodeClassSheet) {
	t.header("Status subnets")
	if len(sh.StatusSubnets) == 0 {
		t.para(indent, "none resolved: Karpenter launches no nodes for this class")
	}
	for _, s := range sh.StatusSubnets {
		zone := orUnknown(s.Zone)
		if s.ZoneID != "" {
			zone += " (" + s.ZoneID + ")"
		}
		t.hanging(indent, t.st.Strong.Render(s.ID)+"  ", zone)
	}
	t.header("Status security groups")
	if len(sh.StatusSecurityGroups) == 0 {
		t.para(indent, "none resolved")
	}
	for _, g := range sh.StatusSecurityGroups {
		t.hanging(indent, t.st.Strong.Render(g.ID)+"  ", orUnknown(g.Name))
	}
}

// classInterfaces writes the class's networkInterfaces.
func classInterfaces(t *text, sh sheet.NodeClassSheet) {
	t.header("Network interfaces")
	if len(sh.NetworkInterfaces) == 0 {
		t.para(indent, "not set: one interface on the default card")
		return
	}
	rows := [][]string{{"CARD", "DEV", "TYPE", "PREFIXES"}}
	for _, ni := range sh.NetworkInterfaces {
		prefixes := "-"
		if ni.SecondaryIPv4PrefixCount != nil {
			prefixes = strconv.Itoa(int(*ni.SecondaryIPv4PrefixCount))
		}
		rows = append(rows, []string{strconv.Itoa(int(ni.NetworkCardIndex)), strconv.Itoa(int(ni.DeviceIndex)), orUnknown(ni.InterfaceType), prefixes})
	}
	table(t, indent, rows)
}

// placementSelector renders a placementGroupSelector and the group it names.
func placementSelector(sel *snapshot.PlacementGroupSelector, g *snapshot.PlacementGroup) string {
	if sel == nil {
		return "none"
	}
	s := strings.TrimSpace(strings.Join([]string{prefixed("name ", sel.Name), prefixed("id ", sel.ID)}, " "))
	if g == nil {
		return s + " (not found by DescribePlacementGroups)"
	}
	return fmt.Sprintf("%s -> %s (%s, %s)", s, firstOf(g.ID, g.Name), orUnknown(g.Strategy), orUnknown(g.State))
}

// maxPodsText renders kubelet maxPods: a number, an expression, or not set.
func maxPodsText(k *snapshot.Kubelet) string {
	switch {
	case k != nil && k.MaxPods != nil:
		return strconv.Itoa(int(*k.MaxPods))
	case k != nil && k.MaxPodsExpression != "":
		return "expression " + k.MaxPodsExpression
	}
	return "not set (Karpenter derives it from the instance type's ENI limits)"
}

// prefixed returns p+s, or "" when s is empty.
func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// firstOf returns the first of a and b that is not empty.
func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
