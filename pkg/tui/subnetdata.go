package tui

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// awsReservedIPs is how many addresses AWS reserves in every subnet.
const awsReservedIPs = 5

// subnetRow is one subnet the nodes use, with what the report says about it.
type subnetRow struct {
	id, cidr, zone string
	// free is the subnet's available IPs, or -1 when unknown.
	free int64
	// total is the usable addresses of the CIDR, or 0 when unknown.
	total int64
	// classes are the classes of nodes in the subnet whose status selects it: EC2NodeClass
	// names, and Auto Mode NodeClasses as nodeclass/NAME.
	classes []string
	// nodes counts the nodes whose instance, or one of whose ENIs (pods' ENIs under custom
	// networking), is in the subnet.
	nodes int
	// level is the worst finding whose subjects name the subnet (Finding.Subjects), or "ok".
	level string
	hay   string
}

// used returns the fraction of the subnet in use, or -1 when unknown.
func (s subnetRow) used() float64 {
	if s.free < 0 || s.total <= 0 {
		return -1
	}
	return 1 - float64(min(s.free, s.total))/float64(s.total)
}

// deriveSubnets collects the report's subnets (node, NodeClass and ENIConfig pod subnets),
// then any other subnet of its nodes and those findings name, worst first: by finding, then
// fullest.
func deriveSubnets(r diagnose.Report) []subnetRow {
	at := map[string]int{}
	classes := map[string]map[string]bool{}
	var subnets []subnetRow
	fromReport := map[string]bool{}
	for _, u := range r.Subnets {
		fromReport[u.ID] = true
		at[u.ID] = len(subnets)
		classes[u.ID] = map[string]bool{}
		for _, c := range u.NodeClasses {
			classes[u.ID][c] = true
		}
		subnets = append(subnets, subnetRow{id: u.ID, cidr: u.CIDR, zone: u.Zone, free: int64(u.AvailableIPs),
			total: u.UsableIPs, nodes: u.Nodes + u.ENINodes, level: style.LevelOK})
	}
	for _, n := range r.Nodes {
		s := n.Subnet
		if s == nil || s.ID == "" {
			continue
		}
		if fromReport[s.ID] {
			continue
		}
		i, ok := at[s.ID]
		if !ok {
			i = len(subnets)
			at[s.ID] = i
			subnets = append(subnets, subnetRow{id: s.ID, cidr: s.CIDR, zone: s.Zone, free: -1,
				total: usableIPs(s.CIDR), level: style.LevelOK})
			classes[s.ID] = map[string]bool{}
		}
		row := &subnets[i]
		row.nodes++
		if s.AvailableIPs != nil {
			row.free = int64(*s.AvailableIPs)
		}
		if s.Selected != nil && *s.Selected && n.Identity.NodeClass != "" {
			classes[s.ID][classKey(n.Identity)] = true
		}
	}
	for _, f := range r.Findings {
		// A subnet's status is the worst finding whose subjects name it, direct (on the subnet)
		// or inherited (on an interface or instance in it).
		subjects := f.Subjects
		if subjects == nil { // a report made without subjects: the finding's own resource
			subjects = []string{f.Resource}
		}
		for _, ref := range subjects {
			id, ok := strings.CutPrefix(ref, "subnet/")
			if !ok || id == "" {
				continue
			}
			i, known := at[id]
			if !known {
				// A subnet no node uses, named by a finding (one a NodeClass selects, say).
				i = len(subnets)
				at[id] = i
				subnets = append(subnets, subnetRow{id: id, free: -1, level: style.LevelOK})
			}
			if f.Severity > levelSeverity(subnets[i].level) {
				subnets[i].level = f.Severity.String()
			}
		}
	}
	for i := range subnets {
		s := &subnets[i]
		for c := range classes[s.id] {
			s.classes = append(s.classes, c)
		}
		slices.Sort(s.classes)
		s.hay = strings.ToLower(strings.Join(append([]string{s.id, s.cidr, s.zone}, s.classes...), "\n"))
	}
	slices.SortStableFunc(subnets, func(a, b subnetRow) int {
		return cmp.Or(orderOf(b.level).compare(orderOf(a.level)), cmp.Compare(b.used(), a.used()),
			strings.Compare(a.id, b.id))
	})
	return subnets
}

// usableIPs returns the addresses of an IPv4 CIDR that instances can use, or 0 when unknown.
func usableIPs(cidr string) int64 {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() {
		return 0
	}
	return max(int64(1)<<(32-p.Bits())-awsReservedIPs, 0)
}
