package diagnose

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// internalIP returns an edit that sets the node's InternalIPs.
func internalIP(ips ...string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.Nodes[0].Status.Addresses = nil
		for _, ip := range ips {
			s.Nodes[0].Status.Addresses = append(s.Nodes[0].Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip})
		}
	}
}

func TestInternalIPOutsideSubnet(t *testing.T) {
	runCheckCases(t, internalIPOutsideSubnet, []checkCase{
		{name: "IP in subnet is silent"},
		{
			name: "IP outside subnet fires",
			edit: internalIP("10.0.2.10"),
			want: []Finding{{
				ID: "internal-ip-outside-subnet", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
				Message: "InternalIP 10.0.2.10 is outside " + subnetA + " (10.0.1.0/24) of instance " + instanceA,
				Remedy: "kubelet must report the primary ENI's IP: remove any --node-ip override (nodeadm NodeConfig " +
					"spec.kubelet.flags or user data), then replace the node by deleting its NodeClaim default-abcde; a Node " +
					"reused by another instance must be deleted",
				Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
			}},
		},
		{name: "only the first InternalIP counts", edit: internalIP("10.0.1.10", "192.168.0.1")},
		{name: "IPv6 InternalIP is not compared", edit: internalIP("2600:1f14::10")},
		{name: "no InternalIP is silent", edit: internalIP()},
		{name: "subnet gap is silent", edit: edits(internalIP("10.0.2.10"), func(s *snapshot.Snapshot) { s.Subnets = nil }, gap(snapshot.SourceDescribeSubnets))},
		{name: "missing instance is silent", edit: edits(internalIP("10.0.2.10"), func(s *snapshot.Snapshot) { s.Instances = nil })},
	})
}

func TestInternalIPNotInstanceIP(t *testing.T) {
	remedy := "kubelet must report the instance's primary IP: remove any --node-ip override, then replace the node by " +
		"deleting its NodeClaim default-abcde; or delete the stale Node " + nodeA + " if another instance took its name"
	runCheckCases(t, internalIPNotInstanceIP, []checkCase{
		{name: "primary IP is silent"},
		{name: "secondary ENI IP is silent", edit: internalIP("10.0.1.200")},
		{
			name: "foreign IP fires",
			edit: internalIP("10.0.1.99"),
			want: []Finding{{
				ID: "internal-ip-not-instance-ip", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
				Message:  "InternalIP 10.0.1.99 is none of the 2 private IPs of instance " + instanceA + " (primary 10.0.1.10)",
				Remedy:   remedy,
				Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
			}},
		},
		{
			name: "primary from ENI when PrivateIP is empty",
			edit: edits(internalIP("10.0.1.99"), func(s *snapshot.Snapshot) { s.Instances[0].PrivateIP = "" }),
			want: []Finding{{
				ID: "internal-ip-not-instance-ip", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
				Message:  "InternalIP 10.0.1.99 is none of the 2 private IPs of instance " + instanceA + " (primary 10.0.1.10)",
				Remedy:   remedy,
				Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
			}},
		},
		{
			name: "instance without IP data is silent",
			edit: edits(internalIP("10.0.1.99"), func(s *snapshot.Snapshot) { s.Instances[0].PrivateIP, s.Instances[0].ENIs = "", nil }),
		},
		{name: "missing instance is silent", edit: edits(internalIP("10.0.1.99"), func(s *snapshot.Snapshot) { s.Instances = nil })},
	})
}
