package diagnose

import (
	"math"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestInstanceNetworkAllowanceExceeded(t *testing.T) {
	event := func(msg string, count int32, ago time.Duration) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.NodeEvents = append(s.NodeEvents, snapshot.KubeEvent{Kind: "Node", Name: nodeA, Type: "Warning",
				Reason: "NetworkingReady", Message: msg, Count: count, First: s.Taken.Add(-ago - 10*time.Minute), Last: s.Taken.Add(-ago)})
		}
	}
	const conntrack = `ConntrackExceeded: conntrack_allowance_exceeded increased on interface "ens5" from 10 to 2410`
	const pps = `PPSExceeded: pps_allowance_exceeded increased on interface "ens5" from 0 to 512`
	limits := func(s *snapshot.Snapshot) {
		s.InstanceTypes[0].NetworkPerformance, s.InstanceTypes[0].BaselineGbps, s.InstanceTypes[0].PeakGbps = "Up to 10 Gigabit", 0.75, 10
		s.InstanceTypes[0].ENAExpress = true
	}
	runCheckCases(t, instanceNetworkAllowanceExceeded, []checkCase{
		{name: "no event (no agent) is silent"},
		{name: "an event older than an hour is silent", edit: event(conntrack, 2, 90*time.Minute)},
		{name: "the agent's other events are silent", edit: event("MissingDefaultRoutes: no default route on ens5", 1, time.Minute)},
		{
			name: "conntrack and PPS events of the last hour fire, with the type's limits",
			edit: edits(limits, event(conntrack, 2, 30*time.Minute), event(conntrack, 1, 5*time.Minute), event(pps, 0, 20*time.Minute)),
			want: []Finding{{ID: "instance-network-allowance-exceeded", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "the EKS node monitoring agent reported in the last hour: ConntrackExceeded 3 times from 11:20:00Z to " +
					"11:55:00Z (\"" + `ConntrackExceeded: conntrack_allowance_exceeded increased on interface "ens5" from 10 to 2410` +
					"\"); PPSExceeded 1 time from 11:30:00Z to 11:40:00Z (\"" + `PPSExceeded: pps_allowance_exceeded increased on ` +
					`interface "ens5" from 0 to 512` + "\"); the instance (m5.large: Up to 10 Gigabit, baseline 0.75 Gbps, burst " +
					"10 Gbps) dropped or queued packets over its EC2 network allowances",
				Remedy: "bandwidth and PPS: a larger or network-optimised instance type than m5.large in the NodePool's " +
					"requirements, or spread the traffic over more nodes; m5.large supports ENA Express (ENA SRD), which raises " +
					"the single-flow bandwidth; conntrack: shorten idle connections' tracking with the EC2NodeClass's " +
					"spec.connectionTracking (tcpEstablishedTimeout, udpStreamTimeout, udpTimeout; Karpenter v1.13+, Nitro types; EC2NodeClass default serves 1 node (m5.large), each of which drifts and is replaced) " +
					"or move to a larger type than m5.large"}},
		},
		{
			name: "client-go's combined event fires through its prefix, its count apart from the allowances'",
			edit: edits(event(conntrack, 2, 40*time.Minute), event("(combined from similar events): "+pps, 57, 2*time.Minute)),
			want: []Finding{{ID: "instance-network-allowance-exceeded", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "the EKS node monitoring agent reported in the last hour: ConntrackExceeded 2 times from 11:10:00Z to " +
					"11:20:00Z (\"" + conntrack + "\"); 57 NetworkingReady warnings that client-go's event recorder combined into " +
					"one event (it does once 10 different ones come within 10m) from 11:48:00Z to 11:58:00Z, the latest " +
					"PPSExceeded (\"(combined from similar events): " + pps + "\"); the instance (m5.large) dropped or queued " +
					"packets over its EC2 network allowances",
				Remedy: "bandwidth and PPS: a larger or network-optimised instance type than m5.large in the NodePool's " +
					"requirements, or spread the traffic over more nodes; conntrack: shorten idle connections' tracking with the " +
					"EC2NodeClass's spec.connectionTracking (tcpEstablishedTimeout, udpStreamTimeout, udpTimeout; Karpenter " +
					"v1.13+, Nitro types; EC2NodeClass default serves 1 node (m5.large), each of which drifts and is replaced) or move to a larger type than m5.large"}},
		},
		{name: "a Normal event is silent", edit: edits(event(conntrack, 3, time.Minute), func(s *snapshot.Snapshot) {
			s.NodeEvents[0].Type = "Normal"
		})},
		{name: "an event dated after the snapshot is not in the last hour", edit: event(conntrack, 3, -10*time.Minute)},
		{
			name: "first after last is put in order, a first on another day is dated, counts do not overflow",
			edit: edits(event(conntrack, math.MaxInt32, 5*time.Minute), event(conntrack, math.MaxInt32, 3*time.Minute),
				func(s *snapshot.Snapshot) {
					s.NodeEvents[0].First = s.Taken.Add(-26 * time.Hour)
					s.NodeEvents[1].First = s.Taken.Add(time.Minute) // after its last
				}),
			want: []Finding{{ID: "instance-network-allowance-exceeded", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "the EKS node monitoring agent reported in the last hour: ConntrackExceeded 4294967294 times from " +
					"2026-08-20T10:00:00Z to 2026-08-21T11:57:00Z (\"" + conntrack + "\"); the instance (m5.large) dropped or " +
					"queued packets over its EC2 network allowances",
				Remedy: "conntrack: shorten idle connections' tracking with the EC2NodeClass's spec.connectionTracking " +
					"(tcpEstablishedTimeout, udpStreamTimeout, udpTimeout; Karpenter v1.13+, Nitro types; EC2NodeClass default serves 1 node (m5.large), each of which drifts and is replaced) or move to a larger " +
					"type than m5.large"}},
		},
		{
			name: "link-local",
			edit: event("LinkLocalExceeded: linklocal_allowance_exceeded increased on interface \"ens5\" from 0 to 40", 1, time.Minute),
			want: []Finding{{ID: "instance-network-allowance-exceeded", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "the EKS node monitoring agent reported in the last hour: LinkLocalExceeded 1 time from 11:49:00Z to " +
					"11:59:00Z (\"LinkLocalExceeded: linklocal_allowance_exceeded increased on interface \"ens5\" from 0 to 40\"); " +
					"the instance (m5.large) dropped or queued packets over its EC2 network allowances",
				Remedy: "link-local (DNS, instance metadata, NTP to 169.254.x.x, 1024 PPS per interface): cache DNS on the node " +
					"(NodeLocal DNSCache) and cache instance metadata in the pods that call it"}},
		},
	})
}
