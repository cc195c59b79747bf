package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// allowanceWindow is how far back the node monitoring agent's allowance events count.
const allowanceWindow = time.Hour

var specInstanceNetworkAllowanceExceeded = &Spec{
	ID:       "instance-network-allowance-exceeded",
	Severity: Warning,
	Family:   FamilyNodeAgents,
	Examines: []string{SubjectNode},
	Title:    "the instance dropped packets over an EC2 network allowance (bandwidth, PPS, conntrack, link-local)",
	FiresWhen: "in the hour before the snapshot, the EKS node monitoring agent reported a Warning event about the node " +
		"with reason NetworkingReady and a message starting BandwidthInExceeded, BandwidthOutExceeded, PPSExceeded, " +
		"ConntrackExceeded or LinkLocalExceeded",
	NotOn: "nodes without the agent (no event, no gap); older events; the agent's other NetworkingReady events",
	Why: "EC2 drops (or queues) packets beyond an instance's allowances with no error to the application: timeouts, " +
		"retransmits and failed DNS lookups that look like application bugs",
	Remedy: "a larger or network-optimised instance type (bandwidth, PPS), ENA Express where the type supports it, " +
		"spec.connectionTracking timeouts in the EC2NodeClass (conntrack), NodeLocal DNSCache (link-local)",
	Sources: []string{
		"aws/eks-node-monitoring-agent monitors/networking (ENA allowance_exceeded counters), docs/node-health-issues.adoc",
		"aws/eks-node-monitoring-agent pkg/manager (Warning events with the condition as reason, the issue as the message's prefix)",
		"docs.aws.amazon.com/AWSEC2/latest/UserGuide/monitoring-network-performance-ena.html (the ENA allowance counters)",
		"aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go (spec.connectionTracking, v1.13.0)",
	},
}

// allowanceUse is what one kind of allowance event says about a node.
type allowanceUse struct {
	count       int32
	first, last time.Time
	message     string
}

// instanceNetworkAllowanceExceeded turns the node monitoring agent's allowance events of the
// last hour into one finding per node, each allowance with its count, first and last time and
// the remedy that fits it.
var instanceNetworkAllowanceExceeded = Check{
	Spec: specInstanceNetworkAllowanceExceeded,
	Run: func(x *Index) []Finding {
		byNode := map[string]map[string]*allowanceUse{}
		since := x.Snapshot.Taken.Add(-allowanceWindow)
		for _, e := range x.Snapshot.NodeEvents {
			a := snapshot.Allowance(e.Message)
			if a == "" || e.Last.Before(since) {
				continue
			}
			uses := byNode[e.Name]
			if uses == nil {
				uses = map[string]*allowanceUse{}
				byNode[e.Name] = uses
			}
			u := uses[a]
			if u == nil {
				u = &allowanceUse{first: e.First}
				uses[a] = u
			}
			u.count += max(e.Count, 1)
			if !e.First.IsZero() && (u.first.IsZero() || e.First.Before(u.first)) {
				u.first = e.First
			}
			if !e.Last.Before(u.last) {
				u.last, u.message = e.Last, e.Message
			}
		}
		var out []Finding
		for _, n := range x.checkedNodes() {
			uses := byNode[n.Name()]
			if len(uses) == 0 {
				continue
			}
			var said, remedies []string
			for _, a := range slices.Sorted(maps.Keys(uses)) {
				u := uses[a]
				said = append(said, fmt.Sprintf("%s %s from %s to %s (\"%s\")", a, countText(u.count, "time", "times"),
					clock(u.first), clock(u.last), u.message))
				remedies = append(remedies, allowanceRemedy(n, a))
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("the EKS node monitoring agent reported in the last hour: %s; the instance%s dropped or "+
					"queued packets over its EC2 network allowances", strings.Join(said, "; "), instanceLimits(n)),
				Remedy: strings.Join(sortedUnique(remedies), "; "),
			})
		}
		return out
	},
}

// clock writes a time as HH:MM:SSZ, or "?" when unknown.
func clock(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.UTC().Format("15:04:05Z")
}

// instanceLimits names the node's instance type and the network limits DescribeInstanceTypes
// gave, e.g. " (m5.large: up to 10 Gigabit, baseline 0.75 Gbps)".
func instanceLimits(n *NodeInfo) string {
	t := n.Type
	if t == nil {
		return ""
	}
	parts := []string{}
	if t.NetworkPerformance != "" {
		parts = append(parts, t.NetworkPerformance)
	}
	if t.BaselineGbps > 0 {
		parts = append(parts, fmt.Sprintf("baseline %g Gbps", t.BaselineGbps))
	}
	if t.PeakGbps > 0 && t.PeakGbps != t.BaselineGbps {
		parts = append(parts, fmt.Sprintf("burst %g Gbps", t.PeakGbps))
	}
	if len(parts) == 0 {
		return " (" + t.Name + ")"
	}
	return " (" + t.Name + ": " + strings.Join(parts, ", ") + ")"
}

// allowanceRemedy says what lifts one allowance on the node.
func allowanceRemedy(n *NodeInfo, allowance string) string {
	typeName := "the instance type"
	if n.Type != nil {
		typeName = n.Type.Name
	}
	switch allowance {
	case snapshot.AllowanceConntrack:
		return "conntrack: shorten idle connections' tracking with the EC2NodeClass's spec.connectionTracking " +
			"(tcpEstablishedTimeout, udpStreamTimeout, udpTimeout; Karpenter v1.13+, Nitro types) or move to a larger type " +
			"than " + typeName
	case snapshot.AllowanceLinkLocal:
		return "link-local (DNS, instance metadata, NTP to 169.254.x.x, 1024 PPS per interface): cache DNS on the node " +
			"(NodeLocal DNSCache) and cache instance metadata in the pods that call it"
	default:
		r := "bandwidth and PPS: a larger or network-optimised instance type than " + typeName + " in the NodePool's " +
			"requirements, or spread the traffic over more nodes"
		if n.Type != nil && n.Type.ENAExpress {
			r += "; " + typeName + " supports ENA Express (ENA SRD), which raises the single-flow bandwidth"
		}
		return r
	}
}
