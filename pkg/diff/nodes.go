package diff

import (
	"slices"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// nodeFact is one networking fact of a node that a diff compares, read from its diagnose.NodeReport.
type nodeFact struct {
	name string
	of   func(diagnose.NodeReport) string
}

// nodeFacts returns the networking facts of a node that a diff compares, in the order it lists
// them, each read from the node's NodeReport: the instance (ID, state, type, zone), its
// subnet, the node's InternalIPs, the instance's security groups, the number of ENIs, the
// pods the node advertises and the pod IPs its ENIs can give, the EFA interfaces attached,
// the placement group, and what karpnet decided about the node (lifecycle state, status).
func nodeFacts() []nodeFact {
	return []nodeFact{
		{"instanceID", func(n diagnose.NodeReport) string { return n.Identity.InstanceID }},
		{"instanceState", func(n diagnose.NodeReport) string { return n.Identity.InstanceState }},
		{"instanceType", func(n diagnose.NodeReport) string { return n.Identity.InstanceType }},
		{"zone", func(n diagnose.NodeReport) string { return n.Identity.Zone }},
		{"subnet", func(n diagnose.NodeReport) string {
			if n.Subnet == nil {
				return ""
			}
			return n.Subnet.ID
		}},
		{"addresses", func(n diagnose.NodeReport) string {
			ips := make([]string, len(n.Addresses))
			for i, a := range n.Addresses {
				ips[i] = a.Address
			}
			return sortedList(ips)
		}},
		{"securityGroups", func(n diagnose.NodeReport) string {
			if n.SecurityGroups == nil {
				return ""
			}
			ids := make([]string, len(n.SecurityGroups.Groups))
			for i, g := range n.SecurityGroups.Groups {
				ids[i] = g.ID
			}
			return sortedList(ids)
		}},
		{"enis", func(n diagnose.NodeReport) string {
			if n.Identity.InstanceID == "" {
				return ""
			}
			return strconv.Itoa(len(n.ENIs))
		}},
		{"pods", func(n diagnose.NodeReport) string {
			if n.Capacity == nil {
				return ""
			}
			return strconv.FormatInt(n.Capacity.Pods, 10)
		}},
		{"ipCapacity", func(n diagnose.NodeReport) string {
			if n.Capacity == nil {
				return ""
			}
			return strconv.FormatInt(n.Capacity.IPCapacity, 10)
		}},
		{"efaAttached", func(n diagnose.NodeReport) string {
			if n.EFA == nil {
				return ""
			}
			return strconv.Itoa(n.EFA.Attached)
		}},
		{"placementGroup", func(n diagnose.NodeReport) string {
			if n.Placement == nil {
				return ""
			}
			if n.Placement.GroupName != "" {
				return n.Placement.GroupName
			}
			return n.Placement.GroupID
		}},
		{"lifecycle", func(n diagnose.NodeReport) string { return n.Lifecycle.State }},
		{"status", func(n diagnose.NodeReport) string { return n.Status }},
	}
}

// NodeFactNames returns the names of the facts a diff compares, in its order.
func NodeFactNames() []string {
	facts := nodeFacts()
	names := make([]string, len(facts))
	for i, f := range facts {
		names[i] = f.name
	}
	return names
}

// sortedList returns items sorted and joined with commas.
func sortedList(items []string) string {
	items = slices.Clone(items)
	slices.Sort(items)
	return strings.Join(items, ",")
}

func diffNodes(old, new []diagnose.NodeReport) NodeChanges {
	index := func(ns []diagnose.NodeReport) map[string]diagnose.NodeReport {
		m := make(map[string]diagnose.NodeReport, len(ns))
		for _, n := range ns {
			m[n.Identity.Node] = n
		}
		return m
	}
	om, nm := index(old), index(new)
	facts := nodeFacts()
	c := NodeChanges{Added: []string{}, Removed: []string{}, Changed: []NodeChange{}}
	for name := range nm {
		if _, ok := om[name]; !ok {
			c.Added = append(c.Added, name)
		}
	}
	for name, o := range om {
		n, ok := nm[name]
		if !ok {
			c.Removed = append(c.Removed, name)
			continue
		}
		var fields []FieldChange
		for _, f := range facts {
			if a, b := f.of(o), f.of(n); a != b {
				fields = append(fields, FieldChange{Field: f.name, Old: a, New: b})
			}
		}
		if len(fields) > 0 {
			c.Changed = append(c.Changed, NodeChange{Node: name, Fields: fields})
		}
	}
	slices.Sort(c.Added)
	slices.Sort(c.Removed)
	slices.SortFunc(c.Changed, func(a, b NodeChange) int { return strings.Compare(a.Node, b.Node) })
	return c
}
