package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

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
	FiresWhen: "in the hour before the snapshot (an event dated after it is not counted), the EKS node monitoring agent " +
		"reported a Warning event about the node with reason NetworkingReady and a message starting BandwidthInExceeded, " +
		"BandwidthOutExceeded, PPSExceeded, ConntrackExceeded or LinkLocalExceeded, also behind client-go's \"(combined " +
		"from similar events): \" prefix; each event counts its count (an events.k8s.io series' count when larger)",
	NotOn: "nodes without the agent (no event, no gap); older events; Normal events; the agent's other NetworkingReady " +
		"events, and combined events whose latest message is one of them. Counts are what the API server kept: client-go's " +
		"spam filter lets 25 Warning events about a node through, then one per 5 minutes, and drops the rest",
	Why: "EC2 drops (or queues) packets beyond an instance's allowances with no error to the application: timeouts, " +
		"retransmits and failed DNS lookups that look like application bugs",
	Remedy: "a larger or network-optimised instance type (bandwidth, PPS), ENA Express where the type supports it, " +
		"spec.connectionTracking timeouts in the EC2NodeClass (conntrack), NodeLocal DNSCache (link-local)",
	Sources: []string{
		"aws/eks-node-monitoring-agent monitors/networking (ENA allowance_exceeded counters), docs/node-health-issues.adoc",
		"aws/eks-node-monitoring-agent pkg/manager (Warning events with the condition as reason, the issue as the message's prefix)",
		"docs.aws.amazon.com/AWSEC2/latest/UserGuide/monitoring-network-performance-ena.html (the ENA allowance counters)",
		"aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go (spec.connectionTracking, v1.13.0)",
		"kubernetes/client-go tools/record/events_cache.go (the event correlator: combined events, spam filter)",
	},
	Verified: []Verified{
		{UpstreamMonitoringAgent, "monitors/networking/monitor.go (checkEthtool, statReasons, statLimiterConstructors)",
			"every 5 minutes the agent reads each interface's ENA bw_in, bw_out, pps, conntrack and linklocal " +
				"allowance_exceeded counters and, when one grows faster than its rate limiter allows, notifies the " +
				"BandwidthInExceeded, BandwidthOutExceeded, PPSExceeded, ConntrackExceeded or LinkLocalExceeded reason with " +
				"severity Warning and the message `<counter> increased on interface \"<name>\" from N to M`"},
		{UpstreamMonitoringAgent, "pkg/manager/node_exporter.go (nodeExporter.Warning)",
			"a Warning is recorded as an Event about the Node of type Warning, reason the condition type (NetworkingReady) " +
				"and message `<Reason>: <Message>`; only Fatal issues change the node condition"},
		{UpstreamMonitoringAgent, "cmd/eks-node-monitoring-agent/main.go (GetEventRecorderFor)",
			"the agent records through controller-runtime's GetEventRecorderFor (v0.24.1: record.NewBroadcaster, client-go's " +
				"tools/record with the default correlator), so its events are core/v1 Events with count, firstTimestamp and " +
				"lastTimestamp"},
		{UpstreamClientGo, "tools/record/events_cache.go (EventAggregatorByReasonFunc, EventAggregatorByReasonMessageFunc, " +
			"defaultAggregateMaxEvents, defaultAggregateIntervalInSeconds, eventObserve)",
			"events about one object with the same source, type and reason that differ only in message are merged once 10 " +
				"different messages come, each within 600 s of the one before: the merged event's message is \"(combined from " +
				"similar events): \" and the latest message, and each further one raises its count"},
		{UpstreamClientGo, "tools/record/events_cache.go (defaultSpamBurst, defaultSpamQPS, getSpamKey)",
			"the spam filter lets 25 events per source, object and type through, then one per 300 s, and drops the rest"},
	},
}

// allowanceUse is what one kind of allowance event says about a node: how many times it
// happened (int64: the sum of counts cannot overflow), from first to last, and its latest
// message. A use of client-go's combined events counts every warning they merged.
type allowanceUse struct {
	count       int64
	first, last time.Time
	message     string
	allowance   string // the latest message's allowance
}

// allowanceCombined keys a node's combined events, apart from the allowances.
const allowanceCombined = "combined"

// instanceNetworkAllowanceExceeded turns the node monitoring agent's allowance warnings of the
// last hour into one finding per node, each allowance with its count, first and last time and
// the remedy that fits it. It reads the events as the API server keeps them: the agent's event
// recorder (client-go's correlator) merges a node's NetworkingReady warnings into one event
// whose message starts "(combined from similar events): " once 10 different messages come
// within 600 s, so such an event counts warnings of any kind and names only the latest. An
// event counts when it last happened within the hour before the snapshot, not after it.
var instanceNetworkAllowanceExceeded = Check{
	Spec: specInstanceNetworkAllowanceExceeded,
	Run: func(x *Index) []Finding {
		byNode := map[string]map[string]*allowanceUse{}
		since, now := x.Snapshot.Taken.Add(-allowanceWindow), x.Snapshot.Taken
		for _, e := range x.Snapshot.NodeEvents {
			a := snapshot.Allowance(e.Message)
			if a == "" || e.Type != corev1.EventTypeWarning || e.Last.Before(since) || e.Last.After(now) {
				continue
			}
			key := a
			if snapshot.Combined(e.Message) {
				key = allowanceCombined
			}
			uses := byNode[e.Name]
			if uses == nil {
				uses = map[string]*allowanceUse{}
				byNode[e.Name] = uses
			}
			first := e.First
			if first.IsZero() || first.After(e.Last) {
				first = e.Last
			}
			u := uses[key]
			if u == nil {
				u = &allowanceUse{first: first}
				uses[key] = u
			}
			u.count += int64(max(e.Count, 1))
			if first.Before(u.first) {
				u.first = first
			}
			if !e.Last.Before(u.last) {
				u.last, u.message, u.allowance = e.Last, e.Message, a
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
				if a == allowanceCombined {
					continue
				}
				u := uses[a]
				said = append(said, fmt.Sprintf("%s %s %s (\"%s\")", a, countText(u.count, "time", "times"),
					span(u.first, u.last, now), u.message))
				remedies = append(remedies, allowanceRemedy(x, n, a))
			}
			if u := uses[allowanceCombined]; u != nil {
				said = append(said, fmt.Sprintf("%s that client-go's event recorder combined into one event (it does once "+
					"%d different ones come within %s) %s, the latest %s (\"%s\")",
					countText(u.count, "NetworkingReady warning", "NetworkingReady warnings"), eventAggregateMax,
					ago(eventAggregateInterval), span(u.first, u.last, now), u.allowance, u.message))
				remedies = append(remedies, allowanceRemedy(x, n, u.allowance))
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

// client-go's event correlator (tools/record events_cache.go) merges the events about an object
// that differ only in their message once this many different messages come, each within the
// interval of the one before.
const (
	eventAggregateMax      = 10
	eventAggregateInterval = 600 * time.Second
)

// span writes when a run of events happened, "from 11:20:00Z to 11:55:00Z", with the dates when
// the first is not on the snapshot's day.
func span(first, last, now time.Time) string {
	if day := "2006-01-02"; !first.IsZero() && first.UTC().Format(day) != now.UTC().Format(day) {
		return fmt.Sprintf("from %s to %s", first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("from %s to %s", clock(first), clock(last))
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
func allowanceRemedy(x *Index, n *NodeInfo, allowance string) string {
	typeName := "the instance type"
	if n.Type != nil {
		typeName = n.Type.Name
	}
	switch allowance {
	case snapshot.AllowanceConntrack:
		reach := ""
		if n.ClassName != "" && n.ClassKind != snapshot.KindNodeClass {
			// connectionTracking is part of the class's hash: every node of the class drifts.
			reach = "; " + classReach(x, n) + ", each of which drifts and is replaced"
		}
		return "conntrack: shorten idle connections' tracking with the EC2NodeClass's spec.connectionTracking " +
			"(tcpEstablishedTimeout, udpStreamTimeout, udpTimeout; Karpenter v1.13+, Nitro types" + reach + ") or move " +
			"to a larger type than " + typeName
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
