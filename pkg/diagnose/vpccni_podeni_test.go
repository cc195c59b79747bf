package diagnose

import (
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestTrunkENIMissing(t *testing.T) {
	labelled := func(s *snapshot.Snapshot) { s.Nodes[0].Labels[labelHasTrunkAttached] = "true" }
	// The real failure: ENABLE_POD_ENI on an m5.large (Karpenter's NodeClaim gives it 9
	// pod-eni), and the resource controller never attached the trunk, so neither the label nor
	// the node's pod-eni capacity appeared.
	podENI := edits(cniEnv(SettingPodENI, "true"), cniCreated(30*time.Minute), func(s *snapshot.Snapshot) {
		s.NodeClaims[0].Capacity = map[string]string{string(resourcePodENI): "9"}
	})
	trunk := func(s *snapshot.Snapshot) {
		s.Instances[0].ENIs = append(s.Instances[0].ENIs, snapshot.ENI{ID: "eni-0trunk", InterfaceType: "trunk", DeviceIndex: 1, SubnetID: subnetA})
	}
	cniNode := func(features ...string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			c := snapshot.CNINode{Name: nodeA}
			for _, f := range features {
				c.Features = append(c.Features, snapshot.CNINodeFeature{Name: f})
			}
			s.CNINodes = append(s.CNINodes, c)
		}
	}
	finding := func(why, cni string) []Finding {
		return []Finding{{
			ID: "trunk-eni-missing", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
			Message: "the node " + why + ", but none of the 1 ENI attached to i-0123456789abcdef0 is a trunk ENI " +
				"(interface 1)" + cni + ": pods with a SecurityGroupPolicy get no branch ENI",
			Remedy: "read the node's events (the get events command) for the " +
				"VPC resource controller's reason (an instance type it does not support, or the EKS cluster role missing " +
				"AmazonEKSVPCResourceController), fix it, then replace the node so the resource controller attaches a trunk " +
				"ENI again by deleting its NodeClaim default-abcde",
			Commands: append([]Command{{Argv: []string{"kubectl", "get", "events", "-A", "--field-selector", "involvedObject.name=" + nodeA},
				ReadOnly: true}}, claimDeleted("default-abcde", nodeA, "Karpenter")...),
		}}
	}
	const capable = "runs aws-node with ENABLE_POD_ENI=true on a type that supports trunking (NodeClaim default-abcde has " +
		"vpc.amazonaws.com/pod-eni 9)"
	runCheckCases(t, trunkENIMissing, []checkCase{
		{name: "no security groups for pods is silent"},
		{name: "ENABLE_POD_ENI on a trunking type without a trunk fires", edit: podENI, want: finding(capable, "")},
		{
			name: "the CNINode says ipamd asked for it",
			edit: edits(podENI, cniNode(featureSGP)),
			want: finding(capable, "; its CNINode asks for SecurityGroupsForPods, so the VPC resource controller failed to attach it"),
		},
		{
			name: "the CNINode says ipamd did not ask",
			edit: edits(podENI, cniNode("CustomNetworking")),
			want: finding(capable, "; its CNINode does not ask for SecurityGroupsForPods: ipamd has not requested the trunk"),
		},
		{name: "a trunk ENI is silent", edit: edits(labelled, podENI, trunk)},
		{name: "a node still starting is silent", edit: edits(podENI, cniCreated(2*time.Minute))},
		{name: "a type without trunking is silent", edit: edits(podENI, func(s *snapshot.Snapshot) { s.NodeClaims[0].Capacity = nil })},
		{name: "a node aws-node does not run on is silent", edit: edits(podENI, ciliumAWSNode)},
		{name: "label without a trunk fires", edit: labelled, want: finding("is labelled vpc.amazonaws.com/has-trunk-attached=true", "")},
		{name: "label false is silent", edit: func(s *snapshot.Snapshot) { s.Nodes[0].Labels[labelHasTrunkAttached] = "false" }},
		{name: "pod-eni capacity without ENABLE_POD_ENI is silent", edit: edits(podENI, cniEnv(SettingPodENI, "false"))},
		{name: "instances gap is silent", edit: edits(labelled, func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances))},
		{name: "stopped instance is silent", edit: edits(labelled, func(s *snapshot.Snapshot) { s.Instances[0].State = "stopped" })},
	})
}
