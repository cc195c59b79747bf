package diagnose

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Analyze runs the chosen checks over s and returns a deterministic Report: findings sorted by
// severity, ID, node and resource, and one NodeReport per selected node in name order. Unknown
// check IDs in opts are ignored; call ValidateCheckIDs first to reject them.
func Analyze(s *snapshot.Snapshot, opts Options) Report {
	x := NewIndex(s)
	checks := selectChecks(opts.Only, opts.Skip)
	all := runChecks(x, checks)
	slices.SortFunc(all, compareFindings)

	r := newReport(s)
	r.NotRun = notRun(x, checks)
	r.AnalysisNotes = ciliumIndexNotes(x)
	r.Notes = append(r.Notes, r.AnalysisNotes...)
	related := relatedSubjects(x, opts)
	claims := selectedClaims(x, opts)
	for _, c := range claims {
		related[c.Ref()] = true
	}
	for _, f := range all {
		if keep(f, opts, related) {
			r.Findings = append(r.Findings, f)
			r.Summary.Findings[f.Severity.String()]++
		}
	}
	uses := subnetUses(x)
	relateFindings(x, uses, r.Findings)
	r.Nodes = nodeReports(x, opts, r.Findings, &r.Summary)
	r.Subnets = reportSubnets(x, uses, opts, related)
	r.NodeClaims = claimReports(x, claims, r.Findings)
	for _, c := range claims {
		r.Summary.CountClaim(c.Status)
	}
	return r
}

// newReport returns the empty report of s: its identity, notes and gaps (sorted by source),
// empty lists and a summary with every count at zero.
func newReport(s *snapshot.Snapshot) Report {
	r := Report{
		Kind:       ReportKind,
		APIVersion: ReportAPIVersion,
		Taken:      s.Taken,
		Context:    s.Context,
		Cluster:    s.Cluster,
		Region:     s.Region,
		Regions:    slices.Clone(s.Regions),
		Notes:      slices.Clone(s.Notes),
		Nodes:      []NodeReport{},
		Subnets:    []SubnetUse{},
		Findings:   []Finding{},
		Gaps:       slices.Clone(s.Gaps),
		Summary:    newSummary(),
	}
	if r.Gaps == nil {
		r.Gaps = []snapshot.Gap{}
	}
	slices.SortStableFunc(r.Gaps, func(a, b snapshot.Gap) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Reason, b.Reason))
	})
	return r
}

// relatedSubjects returns the subjects the selected nodes use (themselves, their subnets and
// ENIs' subnets, ENIConfig and its pod subnet, class and NodePool): a selection keeps the
// findings on them. It is empty when opts selects every node.
func relatedSubjects(x *Index, opts Options) map[string]bool {
	related := map[string]bool{}
	if opts.Nodes == nil {
		return related
	}
	for _, n := range x.Nodes {
		if !opts.Nodes[n.Name()] {
			continue
		}
		related[nodeRef(n.Name())] = true
		if n.Instance != nil && n.Instance.SubnetID != "" {
			related[subnetRef(n.Instance.SubnetID)] = true
		}
		for _, e := range n.instanceENIs() {
			if e.SubnetID != "" {
				related[subnetRef(e.SubnetID)] = true
			}
		}
		// With custom networking the pods of a node aws-node runs on take addresses from its
		// ENIConfig subnet; Auto Mode, Windows and other CNIs' nodes use no ENIConfig.
		if cfg := x.ENIConfigs[ENIConfigName(n.Node, x.Snapshot.AWSNode)]; cfg != nil && n.VPCCNI && x.cniSettingOn(SettingCustomNetwork) {
			related["eniconfig/"+cfg.Name] = true
			if cfg.Subnet != "" {
				related[subnetRef(cfg.Subnet)] = true
			}
		}
		// An Auto Mode node's pods take addresses from its class's pod subnets in its zone
		// (the PodSubnets of its sheet).
		if n.AutoMode() && n.Class != nil && len(n.Class.PodSubnetSelectorTerms) > 0 {
			subnets, _ := podSubnetsOf(x, n.Class)
			zone := nodeZone(n)
			for _, s := range subnets {
				if zone == "" || s.Zone == zone {
					related[subnetRef(s.ID)] = true
				}
			}
		}
		if n.ClassName != "" {
			related[n.ClassRef()] = true
		}
		if n.PoolName != "" {
			related["nodepool/"+n.PoolName] = true
		}
	}
	return related
}

// nodeReports describes the selected nodes in x's order, each with its own findings and its
// status, and counts each in sum.
func nodeReports(x *Index, opts Options, findings []Finding, sum *Summary) []NodeReport {
	byNode := map[string][]Finding{}
	critical := map[string]bool{} // direct subjects of the critical findings on shared subjects
	for _, f := range findings {
		switch {
		case f.Node != "":
			byNode[f.Node] = append(byNode[f.Node], f)
		case f.Severity == Critical && f.ID != DataUnavailableID:
			critical[f.Subject()], critical[f.Resource] = true, true
		}
	}
	described := describeAll(x, opts)
	out := described[:0] // the reports move down in place, in the nodes' order
	for i, n := range x.Nodes {
		if opts.Nodes != nil && !opts.Nodes[n.Name()] {
			continue
		}
		nr := described[i]
		if found := byNode[n.Name()]; found != nil {
			nr.Findings = found
		}
		nr.Status = nodeStatus(n, nr.Findings)
		if len(critical) > 0 && nr.Status != StatusSkipped {
			inheritCritical(&nr, critical)
		}
		kind := n.Compute
		if n.Unread != nil {
			kind = SkippedUnread
		}
		sum.CountNode(nr.Status, kind, n.Terminating(), n.Initialising())
		out = append(out, nr)
	}
	if len(out) < cap(out)/2 {
		out = slices.Clone(out) // a few nodes selected of many: not the room of all
	}
	return out
}

// inheritCritical sets nr's InheritedStatus and InheritedFrom from critical, the direct
// subjects of the report's critical findings on shared subjects: what OnWhatUses would give,
// without a pass over the findings for each node.
func inheritCritical(nr *NodeReport, critical map[string]bool) {
	for _, ref := range nr.Uses() {
		if critical[ref] {
			nr.InheritedFrom = append(nr.InheritedFrom, ref)
		}
	}
	if len(nr.InheritedFrom) > 0 {
		slices.Sort(nr.InheritedFrom)
		nr.InheritedStatus = Critical.String()
	}
}

// nodeStatus is a node's one status: skipped when it is not EC2, its worst finding's severity,
// else terminating, initialising or ok.
func nodeStatus(n *NodeInfo, findings []Finding) string {
	worst, found := Worst(findings)
	switch {
	case !n.EC2 || n.Unread != nil:
		return StatusSkipped
	case found:
		return worst.String()
	case n.Terminating():
		return StatusTerminating
	case n.Initialising():
		return StatusInitialising
	}
	return StatusOK
}

// reportSubnets lists uses (subnetUses), limited like resource findings when nodes are
// selected, with how many of the report's nodes sit in each.
func reportSubnets(x *Index, uses []subnetUse, opts Options, related map[string]bool) []SubnetUse {
	nodes, eniNodes := map[string]int{}, map[string]int{}
	for _, n := range x.Nodes {
		if n.Instance == nil || opts.Nodes != nil && !opts.Nodes[n.Name()] {
			continue
		}
		nodes[n.Instance.SubnetID]++
		// Each other subnet of the node's ENIs counts the node once (no map per node: there are
		// a handful of ENIs and 100,000 nodes).
		enis := n.instanceENIs()
		for i, e := range enis {
			if e.SubnetID == "" || e.SubnetID == n.Instance.SubnetID ||
				slices.ContainsFunc(enis[:i], func(p snapshot.ENI) bool { return p.SubnetID == e.SubnetID }) {
				continue
			}
			eniNodes[e.SubnetID]++
		}
	}
	out := []SubnetUse{}
	for _, u := range uses {
		s := u.subnet
		if opts.Nodes != nil && !related[subnetRef(s.ID)] {
			continue
		}
		var classes []string
		for _, key := range u.classes {
			classes = append(classes, reportClassName(key))
		}
		for _, name := range u.podClasses {
			classes = append(classes, kindRef(snapshot.KindNodeClass, name))
		}
		classes = sortedUnique(classes)
		use := SubnetUse{
			ID: s.ID, CIDR: s.CIDR, Zone: s.Zone, ZoneID: s.ZoneID, AvailableIPs: s.AvailableIPs,
			UsableIPs: usableIPs(s.CIDR), NodeClasses: classes, Nodes: nodes[s.ID], ENINodes: eniNodes[s.ID], PodSubnet: u.podSubnet,
		}
		if m, ok := x.BlockMap(s); ok {
			use.FreeBlocks = &m.Free
		}
		out = append(out, use)
	}
	return out
}

// keep reports whether a finding belongs in a report limited by opts: node findings of the
// selected nodes, resource findings on what those nodes use or on opts.Resources, and every
// data-unavailable finding.
func keep(f Finding, opts Options, related map[string]bool) bool {
	switch {
	case opts.Nodes == nil || f.ID == dataUnavailable.ID:
		return true
	case f.Node != "":
		return opts.Nodes[f.Node]
	default:
		return related[f.Resource] || opts.Resources[f.Resource]
	}
}

// compareFindings orders findings as Finding.Less does.
func compareFindings(a, b Finding) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	}
	return 0
}

// selectChecks returns the catalogue limited to only (when non-empty) and without skip.
func selectChecks(only, skip []string) []Check {
	var out []Check
	for _, c := range Checks() {
		if len(only) > 0 && !slices.Contains(only, c.ID) || slices.Contains(skip, c.ID) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// ValidateCheckIDs returns an error naming every ID that is not a built-in check, with the
// list of valid IDs.
func ValidateCheckIDs(ids []string) error {
	valid := CheckIDs()
	var unknown []string
	for _, id := range ids {
		if !slices.Contains(valid, id) && !slices.Contains(unknown, id) {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	word := plural(len(unknown), "check ID", "check IDs")
	return fmt.Errorf("unknown %s %s: use one of %s", word, strings.Join(quoteAll(unknown), ", "), strings.Join(valid, ", "))
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// reportClassName names a class in SubnetUse.NodeClasses: an EC2NodeClass by its name, as
// always, and an Auto Mode NodeClass as nodeclass/NAME.
func reportClassName(key string) string {
	kind, name, _ := strings.Cut(key, "/")
	if kind == snapshot.KindNodeClass {
		return kindRef(kind, name)
	}
	return name
}

// describeAll describes the nodes opts selects, on every CPU (Describe only reads the index),
// each at the node's place in x.Nodes.
func describeAll(x *Index, opts Options) []NodeReport {
	out := make([]NodeReport, len(x.Nodes))
	const batch = 256
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (len(x.Nodes)+batch-1)/batch) {
		wg.Go(func() {
			shared := newSharedSections()
			for start := int(next.Add(batch)) - batch; start < len(x.Nodes); start = int(next.Add(batch)) - batch {
				for i := start; i < min(start+batch, len(x.Nodes)); i++ {
					if n := x.Nodes[i]; opts.Nodes == nil || opts.Nodes[n.Name()] {
						out[i] = Describe(x, n)
						shared.share(&out[i])
					}
				}
			}
		})
	}
	wg.Wait()
	return out
}

// notRun lists the checks of checks that a gap keeps from running (Check.Missing), in their
// order; nil when every one runs.
func notRun(x *Index, checks []Check) []NotRun {
	var out []NotRun
	for _, c := range checks {
		if missing := c.Missing(x); len(missing) > 0 {
			out = append(out, NotRun{ID: c.ID, Needs: missing})
		}
	}
	return out
}

// runChecks runs checks over x, as many at once as the process has CPUs: checks only read
// the index, which is complete before the first runs. The findings come in the checks'
// order.
func runChecks(x *Index, checks []Check) []Finding {
	found := make([][]Finding, len(checks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(checks)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(checks); i = int(next.Add(1)) - 1 {
				found[i] = checks[i].Findings(x)
			}
		})
	}
	wg.Wait()
	return slices.Concat(found...)
}
