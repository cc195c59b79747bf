package serve

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
)

// view is one good collection as serve answers it: its figures rendered once, when the
// collection ends, so that a scrape only copies them out.
type view struct {
	// taken is when the data was read (the snapshot's Taken); nodeCount and findingCount how
	// many nodes and findings the report holds. The report itself is not kept.
	taken                   time.Time
	nodeCount, findingCount int
	// body is /report's answer, rendered when the collection ended; nil when /report is off.
	body *reportBody
	// exposition is the figures' families in the Prometheus text format: the part of /metrics
	// that only changes with the collection. The figures themselves are not kept.
	exposition []byte
	// bySeverity counts findings by severity and gaps the sources not read, for the log line.
	bySeverity map[string]int
	gaps       int
	// notRun counts the checks not run for want of a source, for the log line.
	notRun int
}

// figures are one collection's counts as the metrics show them.
type figures struct {
	// findings counts findings by check and severity; poolFindings, classFindings and
	// subnetFindings count those that concern one NodePool, one NodeClass or one subnet by
	// check, severity and that subject's name (the label is never empty: a finding that
	// concerns none is not counted there; one whose NodePool or class the cluster does not
	// have is counted under otherSubject).
	findings       map[findingKey]int
	poolFindings   map[subjectFindingKey]int
	classFindings  map[subjectFindingKey]int
	subnetFindings map[subjectFindingKey]int
	// nodeFindings counts them by node, check and severity; nil unless node metrics are on.
	nodeFindings map[nodeFindingKey]int
	// nodes is nil unless node metrics are on.
	nodes   []nodeFacts
	subnets map[subnetKey]subnetFacts
	// statuses counts nodes by status (ok, info, warning, critical, initialising, terminating,
	// skipped); gaps counts the sources that could not be read.
	statuses map[string]int
	gaps     map[string]int
	// notRun holds each check not run with each source it needs that could not be read.
	notRun map[notRunKey]bool
}

type notRunKey struct{ check, source string }

// otherSubject is the nodepool and nodeclass label of the findings whose NodePool or class
// is not one the collection read (a NodeClaim's or a node's label naming one that does not
// exist): no object name can be it, and it keeps the series count bounded by the objects
// that exist whatever the labels say.
const otherSubject = "(not in cluster)"

type subnetKey struct{ id, zone string }

// subnetFacts are a subnet's free and usable addresses, and its free /28 blocks when its block
// map is known (blocksKnown).
type subnetFacts struct {
	free, size  int64
	freeBlocks  int
	blocksKnown bool
}

type findingKey struct{ check, severity string }

// subjectFindingKey counts findings of one check and severity that concern the subject name.
type subjectFindingKey struct{ check, severity, name string }

type nodeFindingKey struct{ node, check, severity string }

// nodeFacts is what the per-node metrics show of one node.
type nodeFacts struct {
	name, nodePool, nodeClass, instanceType, zone string
	// capacity is false when the node's pod capacity could not be worked out.
	capacity        bool
	maxPods, podIPs int64
}

// nodeStatuses are the values of karpnet_nodes' status label, always exported.
var nodeStatuses = []string{"ok", "info", "warning", "critical", "initialising", "terminating", "skipped"}

// newView counts a collection's figures, the per-node ones only when perNode is set, renders
// them for /metrics, and renders /report's answer when withBody is set.
func newView(c Collection, perNode, withBody bool) *view {
	r := c.Report
	f := &figures{findings: map[findingKey]int{}, poolFindings: map[subjectFindingKey]int{},
		classFindings: map[subjectFindingKey]int{}, subnetFindings: map[subjectFindingKey]int{},
		statuses: map[string]int{}, gaps: map[string]int{}, subnets: map[subnetKey]subnetFacts{},
		notRun: map[notRunKey]bool{}}
	if perNode {
		f.nodeFindings = map[nodeFindingKey]int{}
	}
	for _, s := range nodeStatuses {
		f.statuses[s] = 0
	}
	// karpnet_nodes is the report's one summary, as check's summary line and JSON print it.
	for s, n := range r.Summary.ByStatus() {
		f.statuses[s] = n
	}
	pools, classes := existing(c.NodePools), existing(c.NodeClasses)
	owner := owners(r)
	seen := map[string]bool{}
	for i := range r.Nodes {
		if !perNode {
			break
		}
		n := &r.Nodes[i]
		id := n.Identity
		if seen[id.Node] {
			continue
		}
		seen[id.Node] = true
		facts := nodeFacts{name: id.Node, nodePool: id.NodePool, nodeClass: id.NodeClass, instanceType: id.InstanceType, zone: id.Zone}
		if c := n.Capacity; c != nil {
			facts.capacity, facts.maxPods, facts.podIPs = true, c.Pods, c.IPCapacity
		}
		f.nodes = append(f.nodes, facts)
	}
	for _, sn := range r.Subnets {
		k := subnetKey{id: sn.ID, zone: sn.Zone}
		if _, ok := f.subnets[k]; !ok {
			facts := subnetFacts{free: int64(sn.AvailableIPs), size: sn.UsableIPs}
			if sn.FreeBlocks != nil {
				facts.freeBlocks, facts.blocksKnown = *sn.FreeBlocks, true
			}
			f.subnets[k] = facts
		}
	}
	v := &view{taken: r.Taken, nodeCount: len(r.Nodes), findingCount: len(r.Findings), bySeverity: map[string]int{}}
	for _, fd := range r.Findings {
		o := owner.of(fd)
		sev := fd.Severity.String()
		f.findings[findingKey{check: fd.ID, severity: sev}]++
		v.bySeverity[sev]++
		if o.nodePool != "" {
			f.poolFindings[subjectFindingKey{check: fd.ID, severity: sev, name: pools.label(o.nodePool)}]++
		}
		if o.nodeClass != "" {
			f.classFindings[subjectFindingKey{check: fd.ID, severity: sev, name: classes.label(o.nodeClass)}]++
		}
		if o.subnet != "" {
			f.subnetFindings[subjectFindingKey{check: fd.ID, severity: sev, name: o.subnet}]++
		}
		if f.nodeFindings != nil && fd.Node != "" {
			f.nodeFindings[nodeFindingKey{node: fd.Node, check: fd.ID, severity: sev}]++
		}
	}
	for _, g := range r.Gaps {
		f.gaps[g.Subject()]++
	}
	v.gaps = len(r.Gaps)
	for _, n := range r.NotRun {
		for _, source := range n.Needs {
			f.notRun[notRunKey{check: n.ID, source: source}] = true
		}
	}
	v.notRun = len(r.NotRun)
	v.exposition = f.render()
	if withBody {
		v.body = renderReport(&r)
	}
	return v
}

// names is a set of the objects of one kind the collection read.
type names map[string]bool

func existing(list []string) names {
	set := make(names, len(list))
	for _, n := range list {
		set[n] = true
	}
	return set
}

// label returns name when the collection read an object of that name, else otherSubject.
func (set names) label(name string) string {
	if set[name] {
		return name
	}
	return otherSubject
}

// summary is the collection's part of the log line: nodes, findings by severity, gaps and the
// checks they kept from running.
func (v *view) summary() string {
	var parts []string
	for _, s := range []string{"critical", "warning", "info"} {
		if v.bySeverity[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", v.bySeverity[s], s))
		}
	}
	findings := fmt.Sprintf("%d findings", v.findingCount)
	if len(parts) > 0 {
		findings += " (" + strings.Join(parts, ", ") + ")"
	}
	line := fmt.Sprintf("%d nodes, %s, %d gaps", v.nodeCount, findings, v.gaps)
	if v.notRun > 0 {
		line += fmt.Sprintf(" (%d checks not run)", v.notRun)
	}
	return line
}

// owner is the NodePool, NodeClass and subnet a finding belongs to; "" where none applies.
type owner struct{ nodePool, nodeClass, subnet string }

// ownerIndex finds the NodePool and NodeClass of a finding: its node's, else the ones its
// subjects name (diagnose decides which subjects a finding concerns; serve does not again).
type ownerIndex struct {
	nodes map[string]owner
}

func owners(r diagnose.Report) ownerIndex {
	ix := ownerIndex{nodes: make(map[string]owner, len(r.Nodes))}
	for i := range r.Nodes {
		id := r.Nodes[i].Identity
		ix.nodes[id.Node] = owner{nodePool: id.NodePool, nodeClass: id.NodeClass}
	}
	return ix
}

// of returns a finding's owner. NodePool and class: its node's; else the ones its subjects
// name when they name exactly one of each (a NodeClaim's, a NodePool's and its class, a
// class's with its only NodePool, a subnet's only class and NodePool). Subnet: its resource
// when that is a subnet, else the one subnet its subjects name.
func (ix ownerIndex) of(f diagnose.Finding) owner {
	subjects := f.Subjects
	if subjects == nil {
		subjects = []string{f.Subject()}
		if f.Resource != "" && f.Resource != subjects[0] {
			subjects = append(subjects, f.Resource)
		}
	}
	var pools, classes, subnets []string
	for _, ref := range subjects {
		kind, name, _ := kinds.Split(ref)
		switch {
		case name == "":
		case kind == kinds.NodePool:
			pools = appendNew(pools, name)
		case kinds.IsClass(kind):
			classes = appendNew(classes, name)
		case kind == kinds.Subnet:
			subnets = appendNew(subnets, name)
		}
	}
	var o owner
	if kind, name, _ := kinds.Split(f.Resource); kind == kinds.Subnet && name != "" {
		o.subnet = name
	} else if len(subnets) == 1 {
		o.subnet = subnets[0]
	}
	if n, ok := ix.nodes[f.Node]; ok && f.Node != "" {
		o.nodePool, o.nodeClass = n.nodePool, n.nodeClass
		return o
	}
	if len(pools) == 1 {
		o.nodePool = pools[0]
	}
	if len(classes) == 1 {
		o.nodeClass = classes[0]
	}
	return o
}

// appendNew appends s to list unless it is there.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// stamp formats a log line's time.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// seconds formats a duration as seconds with two decimals.
func seconds(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

// oneLine makes an error one log line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
