package tui

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// The columns of the nodes table, in display order.
const (
	colLevel = iota
	// colCluster is the node's kubeconfig context, shown only over several clusters.
	colCluster
	colName
	colPool
	colType
	colZone
	colSubnet
	colIP
	colENIs
	colPods
	colEFA
	colPG
	colFindings
	numCols
)

// none fills a cell whose value is unknown or absent.
const none = "-"

// row is one node's line of the nodes table, or one NodeClaim's without a Node, computed once
// per report.
type row struct {
	// node indexes Report.Nodes, claim Report.NodeClaims; the other is -1.
	node  int
	claim int
	name  string
	level string
	// look is the level whose glyph and colour the level cell takes; empty means level.
	look string
	// inherited marks a node whose level cell shows a status it inherits from its subnet,
	// class, NodePool or NodeClaim rather than its own findings' (see inheritedMark).
	inherited bool
	order     levelOrder
	// findings counts the node's findings.
	findings int
	cells    [numCols]string
	// hay is the lower-case text the filter searches: name, pool, type, zone, subnet, lifecycle
	// state, compute kind, OS, IPs and check IDs, one per line so a query never spans two
	// fields; on Auto Mode nodes also "auto" and nodeclass/NAME.
	hay    string
	groups [numGroups]string
}

// nodeLevel returns the node's status, computing it from its findings when unset.
func nodeLevel(n diagnose.NodeReport) string {
	switch {
	case n.Identity.Skipped != "":
		return style.LevelSkipped
	case n.Status != "":
		return n.Status
	}
	if w, ok := diagnose.Worst(n.Findings); ok {
		return w.String()
	}
	return style.LevelOK
}

// inheritedLevel returns the level cell of a node whose subnet, NodeClaim, NodePool or class
// has a finding worse than the node's own level: the inherited status and what it comes from,
// the subnet before the class, the NodePool and the NodeClaim, e.g. "critical (subnet)"; ""
// when the node's own level is as bad, or it was not checked. Its sheet lists them all.
func inheritedLevel(n diagnose.NodeReport, own string) string {
	if n.InheritedStatus == "" || own == style.LevelSkipped || levelSeverity(n.InheritedStatus) <= levelSeverity(own) {
		return ""
	}
	from := ""
	for _, kind := range []string{kinds.Subnet, kinds.NodeClass, kinds.EC2NodeClass, kinds.NodePool, kinds.NodeClaim} {
		if slices.ContainsFunc(n.InheritedFrom, func(ref string) bool { k, _, _ := kinds.Split(ref); return k == kind }) {
			from = kinds.SubjectOf(kind)
			break
		}
	}
	if from == "" {
		return n.InheritedStatus + " (inherited)"
	}
	return n.InheritedStatus + " (" + from + ")"
}

// newRow computes the cells, search text and group keys of node i.
func newRow(i int, n diagnose.NodeReport) row {
	id := n.Identity
	r := row{node: i, claim: -1, name: rowKey(n.Context, id.Node), level: nodeLevel(n), findings: len(n.Findings)}
	r.order = orderOf(r.level)
	level := r.level
	if inherited := inheritedLevel(n, r.level); inherited != "" {
		// The worst of what the node uses shows in its level cell, marked by what it comes from:
		// "critical (subnet)". Its order, the severity toggles and the header's counts stay its
		// own status's, so the critical nodes are those whose own findings are.
		r.look, r.inherited = n.InheritedStatus, true
		level = inherited
	}
	subnet := ""
	if n.Subnet != nil {
		subnet = n.Subnet.ID
	}
	ips := make([]string, 0, len(n.Addresses))
	for _, a := range n.Addresses {
		ips = append(ips, a.Address)
	}
	r.cells = [numCols]string{
		colLevel:    level,
		colCluster:  orDash(n.Context),
		colName:     id.Node,
		colPool:     poolCell(id),
		colType:     orDash(id.InstanceType),
		colZone:     orDash(id.Zone),
		colSubnet:   orDash(subnet),
		colIP:       orDash(strings.Join(ips, ",")),
		colENIs:     enis(n),
		colPods:     pods(n),
		colEFA:      efaCount(n.EFA),
		colPG:       placementGroup(n.Placement),
		colFindings: strconv.Itoa(len(n.Findings)),
	}
	hay := []string{id.Node, id.NodePool, id.InstanceType, id.Zone, subnet, n.Context}
	if id.AutoMode {
		hay = append(hay, "auto", classKey(id))
	}
	// The node's state and what it runs on, so "terminating", "fargate" or "windows" find it.
	hay = append(hay, n.Lifecycle.State, n.Platform.Compute, n.Platform.OS)
	hay = append(hay, ips...)
	for _, f := range n.Findings {
		hay = append(hay, f.ID)
	}
	r.hay = strings.ToLower(strings.Join(hay, "\n"))
	r.groups = [numGroups]string{
		groupPool:   orNone(id.NodePool),
		groupClass:  orNone(classKey(id)),
		groupZone:   orNone(id.Zone),
		groupSubnet: orNone(subnet),
	}
	return r
}

// rowKey is the key of a node's row in data.byName, and the name actions carry: the node's
// name, or over several clusters its context, a NUL and its name (a name can be in more
// than one cluster; a context cannot hold a NUL, so the key cannot be mistaken).
func rowKey(context, name string) string {
	if context == "" {
		return name
	}
	return context + "\x00" + name
}

// sortRows orders rows worst first, then by most findings, then by name (naturally).
func sortRows(rows []row) {
	slices.SortStableFunc(rows, func(a, b row) int {
		if c := b.order.compare(a.order); c != 0 {
			return c
		}
		if c := cmp.Compare(b.findings, a.findings); c != 0 {
			return c
		}
		return naturalCompare(a.name, b.name)
	})
}

// enis renders ENIs attached on the default card over the most it takes.
func enis(n diagnose.NodeReport) string {
	if c := n.Capacity; c != nil {
		return strconv.Itoa(c.ENIsAttached) + "/" + strconv.Itoa(int(c.DefaultCardENIs))
	}
	if len(n.ENIs) > 0 {
		return strconv.Itoa(len(n.ENIs)) + "/?"
	}
	return none
}

// pods renders the node's pods over the pod IPs its sheet's capacity section shows (Cilium's
// pod IPs on a Cilium ENI-mode node, else the IP capacity), marked as PodIPs.Cell marks them.
func pods(n diagnose.NodeReport) string {
	if p, ok := printer.NodePodIPs(n); ok {
		return p.Cell()
	}
	return none
}

// efaCount renders attached EFA interfaces, or a dash when the type has none.
func efaCount(e *diagnose.EFAReport) string {
	if e == nil || (!e.Supported && e.Attached == 0) {
		return none
	}
	return strconv.Itoa(e.Attached) + "/" + strconv.Itoa(int(e.MaxInterfaces))
}

// placementGroup names the instance's placement group.
func placementGroup(p *diagnose.PlacementReport) string {
	if p == nil {
		return none
	}
	return orDash(cmp.Or(p.GroupName, p.GroupID))
}

// poolCell renders the node's NodePool, marked "(auto)" on an EKS Auto Mode node, whose
// class is a NodeClass rather than an EC2NodeClass.
func poolCell(id diagnose.Identity) string {
	if !id.AutoMode {
		return orDash(id.NodePool)
	}
	if id.NodePool == "" {
		return "(auto)"
	}
	return id.NodePool + " (auto)"
}

// classKey names the node's class as the report's subnets do: an EC2NodeClass by its name, an
// EKS Auto Mode NodeClass as nodeclass/NAME, so classes of the two kinds never share a name.
func classKey(id diagnose.Identity) string {
	if id.NodeClass == "" || id.NodeClassKind == "" {
		return id.NodeClass
	}
	return strings.ToLower(id.NodeClassKind) + "/" + id.NodeClass
}

// orDash returns s, or a dash when it is empty.
func orDash(s string) string { return cmp.Or(s, none) }

// orNone returns s, or "(none)" when it is empty.
func orNone(s string) string { return cmp.Or(s, "(none)") }
