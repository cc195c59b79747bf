package diagnose

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestCoreDNSConcentrated(t *testing.T) {
	const nodeB, nodeC = "ip-10-0-2-10.us-west-2.compute.internal", "ip-10-0-3-10.us-west-2.compute.internal"
	// Three nodes: A in us-west-2a, B in us-west-2a, C in us-west-2b.
	nodes := func(s *snapshot.Snapshot) {
		b := karpenterNode(nodeB, "i-0bbb", "10.0.2.10")
		c := karpenterNode(nodeC, "i-0ccc", "10.0.3.10")
		c.Labels[corev1.LabelTopologyZone] = "us-west-2b"
		s.Nodes = append(s.Nodes, b, c)
	}
	pods := func(on ...string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			for i, n := range on {
				s.CoreDNS = append(s.CoreDNS, snapshot.SystemPod{Name: "coredns-5d8f-" + string(rune('a'+i)), Node: n,
					Phase: "Running", Ready: true})
			}
		}
	}
	list := []Command{{Argv: []string{"kubectl", "-n", "kube-system", "get", "pods", "-l", "k8s-app=kube-dns", "-o", "wide"}, ReadOnly: true}}
	runCheckCases(t, coreDNSConcentrated, []checkCase{
		{name: "no CoreDNS read is silent"},
		{name: "replicas spread over zones are healthy", edit: edits(nodes, pods(nodeA, nodeC))},
		{name: "a single replica is silent", edit: edits(nodes, pods(nodeA))},
		{name: "one zone in a one-zone cluster is silent", edit: pods(nodeA, "ip-elsewhere")},
		{name: "finished pods do not count", edit: edits(nodes, pods(nodeA, nodeA), func(s *snapshot.Snapshot) {
			s.CoreDNS[1].Phase = "Failed"
		})},
		{
			name: "two replicas on one node is a warning",
			edit: edits(nodes, pods(nodeA, nodeA)),
			want: []Finding{{ID: "coredns-replicas-concentrated", Severity: Warning, Resource: "deployment/kube-system/coredns",
				Message: "all 2 CoreDNS replicas (coredns-5d8f-a, coredns-5d8f-b) run on node " + nodeA + ": they share its " +
					"network interfaces, from each of which the VPC's Amazon DNS server takes at most 1024 packets a second, " +
					"and the node's loss stops the cluster's DNS",
				Remedy: coreDNSRemedy, Commands: list}},
		},
		{
			name: "two nodes of one zone in a cluster of two zones is information",
			edit: edits(nodes, pods(nodeA, nodeB)),
			want: []Finding{{ID: "coredns-replicas-concentrated", Severity: Info, Resource: "deployment/kube-system/coredns",
				Message: "all 2 CoreDNS replicas run in zone us-west-2a (on 2 nodes: " + nodeA + ", " + nodeB + ") while the " +
					"cluster's nodes span 2 zones: the zone's loss stops the cluster's DNS",
				Remedy: coreDNSRemedy, Commands: list}},
		},
	})
}
