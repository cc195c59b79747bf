package printer

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// noData is what a section says when it could not be computed.
const noData = "unknown (no data)"

// indent is how far section bodies sit from their headers.
const indent = 2

// PrintNodes writes the `describe node` output of r to w in format f. Text formats print one
// sheet per node of r.Nodes, separated by a blank line, then the findings on resources those
// nodes use (their subnets, NodePools, EC2NodeClasses) and on data that could not be read; JSON and YAML print r as data, so the
// caller passes a Report that holds just the described nodes and their findings. Text shows
// strings as PrintReport does. st colours the text; nil means no colour.
func PrintNodes(w io.Writer, r diagnose.Report, f Format, st *style.Styles) error {
	if !f.text() {
		return printData(w, r, f)
	}
	r = style.PrintableCopy(r)
	t := newText(st, 0)
	if len(r.Nodes) == 0 {
		t.line("no nodes to describe")
	}
	for i, n := range r.Nodes {
		if i > 0 {
			t.blank()
		}
		if n.Context != "" {
			// Over several clusters a name may be in more than one: each sheet says whose it is.
			t.fields([]kv{{"context", n.Context}})
		}
		nodeSheet(t, n)
	}
	related(t, r.OnWhatTheyUse(r.Nodes), len(r.Nodes) == 1)
	if err := t.flush(w); err != nil {
		return fmt.Errorf("writing the node sheets: %w", err)
	}
	return nil
}

// nodeSheet writes one node's sheet: a title line, then its sections in a fixed order. The
// network path shows only when the report carries the subnet's way out.
func nodeSheet(t *text, n diagnose.NodeReport) {
	status := n.Status
	if status == "" {
		status = style.LevelOK
		if worst, ok := diagnose.Worst(n.Findings); ok {
			status = worst.String()
		}
	}
	title := t.st.Title.Render("node/" + escapeNewlines(n.Identity.Node))
	badge := t.st.Level(status).Badge()
	switch {
	case width(title)+2+width(badge) <= t.limit():
		t.line(title + "  " + badge)
	case width(badge) <= t.limit():
		t.para(0, "node/"+escapeNewlines(n.Identity.Node))
		t.line(badge)
	default:
		// Only a status karpnet does not know is this long: wrap it, at the cost of its colour.
		t.para(0, "node/"+escapeNewlines(n.Identity.Node))
		t.para(0, ansi.Strip(badge))
	}
	problems(t, n.Findings)
	identity(t, n.Identity, n.Lifecycle, n.Platform)
	if n.Identity.Skipped != "" {
		return
	}
	kind := classKind(n.Identity)
	found := map[string]bool{}
	for _, f := range n.Findings {
		found[f.ID] = true
	}
	addresses(t, n.Addresses)
	subnet(t, n.Subnet, kind)
	netPath(t, n.WayOut)
	securityGroups(t, n.SecurityGroups, kind)
	enis(t, n.ENIs)
	// The figure the PODS/IPS column shows too: one function for both.
	ips, _ := NodePodIPs(n)
	if n.Cilium != nil {
		ciliumIPAM(t, n.Cilium, ips, found)
	} else {
		capacity(t, n.Capacity, ips)
	}
	if n.Identity.AutoMode {
		autoMode(t, n.AutoMode)
	}
	efa(t, n.EFA, kind, found)
	placement(t, n.Placement, kind, found)
	findings(t, n.Findings)
}

// classKind is the kind of the node's class as the sheet names it: NodeClass on an EKS Auto
// Mode node, EC2NodeClass otherwise.
func classKind(id diagnose.Identity) string {
	if id.NodeClassKind != "" {
		return id.NodeClassKind
	}
	if id.AutoMode {
		return "NodeClass"
	}
	return "EC2NodeClass"
}

func identity(t *text, id diagnose.Identity, lc diagnose.Lifecycle, pf diagnose.Platform) {
	t.header("Identity")
	instance := orUnknown(id.InstanceID)
	if id.InstanceState != "" {
		instance += " (" + id.InstanceState + ")"
	}
	zone := orUnknown(id.Zone)
	if id.ZoneID != "" {
		zone += " (" + id.ZoneID + ")"
	}
	pairs := []kv{
		{"Node", orUnknown(id.Node)},
		{"Provider ID", orUnknown(id.ProviderID)},
	}
	if id.Skipped != "" {
		t.kvs(indent, append(pairs, kv{"Skipped", id.Skipped}))
		return
	}
	pairs = append(pairs,
		kv{"Instance", instance},
		kv{"Instance type", orUnknown(id.InstanceType)},
		kv{"Zone", zone},
		kv{"NodePool", orUnknown(id.NodePool)},
		kv{classKind(id), orUnknown(id.NodeClass)},
		kv{"NodeClaim", orUnknown(id.NodeClaim)},
	)
	if id.AutoMode {
		pairs = append(pairs, kv{"EKS Auto Mode", "yes (AWS runs the node's CNI; aws-node settings do not apply)"})
	}
	if lc.State != "" {
		state := lc.State
		if lc.Reason != "" {
			state += ": " + lc.Reason
		}
		pairs = append(pairs, kv{"State", state})
	}
	if pf.Compute != "" {
		platform := orUnknown(pf.OS)
		if pf.IPFamily != "" {
			platform += ", " + ipFamilyText(pf.IPFamily)
		}
		pairs = append(pairs, kv{"Platform", platform})
		vpc := "aws-node does not run here: " + pf.VPCCNIReason
		if pf.VPCCNI {
			vpc = pf.VPCCNIReason
		}
		pairs = append(pairs, kv{"VPC CNI", vpc})
		if pf.NetworkPolicy != "" {
			pairs = append(pairs, kv{"NetworkPolicy", pf.NetworkPolicy})
		}
	}
	t.kvs(indent, pairs)
}

// ipFamilyText names the IP family pods take.
func ipFamilyText(family string) string {
	switch family {
	case diagnose.IPv6:
		return "IPv6 pods"
	case diagnose.IPv4:
		return "IPv4 pods"
	}
	return family
}

func addresses(t *text, addrs []diagnose.AddressReport) {
	t.header("Addresses")
	if len(addrs) == 0 {
		t.para(indent, "none: the node reports no InternalIP")
		return
	}
	aw := 0
	for _, a := range addrs {
		aw = max(aw, width(a.Address))
	}
	for _, a := range addrs {
		t.hanging(indent, pad(t.st.Strong.Render(a.Address), aw)+"  ",
			"in subnet CIDR: "+t.flagged(a.InSubnet)+"  primary IP: "+triState(a.IsPrimaryIP))
	}
}

func subnet(t *text, s *diagnose.SubnetReport, kind string) {
	t.header("Subnet")
	if s == nil {
		t.para(indent, noData)
		return
	}
	zone := orUnknown(s.Zone)
	if s.ZoneID != "" {
		zone += " (" + s.ZoneID + ")"
	}
	avail := "unknown"
	if s.AvailableIPs != nil {
		avail = strconv.Itoa(int(*s.AvailableIPs))
	}
	selected := t.flagged(s.Selected)
	if s.Selected == nil {
		selected = "unknown (no " + kind + ")"
	}
	t.kvs(indent, []kv{
		{"ID", orUnknown(s.ID)},
		{"CIDR", orUnknown(s.CIDR)},
		{"Zone", zone},
		{"Available IPs", avail},
		{"Selected by " + kind, selected},
	})
}

// maxGroupName is the widest a security group name shows in a sheet; JSON has it whole.
// maxGroupID is the widest ID the column of IDs is padded to: real ones are 20 columns.
const (
	maxGroupName = 40
	maxGroupID   = 24
)

func securityGroups(t *text, sgs *diagnose.SecurityGroups, kind string) {
	t.header("Security groups")
	if sgs == nil {
		t.para(indent, noData)
		return
	}
	if len(sgs.Groups) == 0 {
		t.para(indent, "none attached")
	}
	iw, nw := 0, 0
	for _, g := range sgs.Groups {
		iw = max(iw, min(width(g.ID), maxGroupID))
		nw = max(nw, width(shorten(g.Name, maxGroupName)))
	}
	for _, g := range sgs.Groups {
		head := pad(t.st.Strong.Render(g.ID), iw) + "  " + pad(shorten(g.Name, maxGroupName), nw) + "  "
		t.hanging(indent, head, "in "+kind+": "+t.flagged(g.InNodeClass))
	}
	match := t.flagged(sgs.Match)
	if sgs.Match == nil {
		match = "unknown (no " + kind + ")"
	}
	set := "unknown"
	if sgs.NodeClass != nil {
		set = orNone(strings.Join(sgs.NodeClass, ", "))
	}
	t.kvs(indent, []kv{
		{"Matches " + kind, match},
		{kind + " set", set},
	})
}

// triState renders an optional yes/no.
func triState(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "yes"
	}
	return "no"
}

// yesNo renders a boolean.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// orNone returns s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// shorten cuts s to n columns, ending it with an ellipsis when cut.
func shorten(s string, n int) string {
	if width(s) <= n {
		return s
	}
	head, _ := cut(s, n-1)
	return head + "…"
}
