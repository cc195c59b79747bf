package diagnose

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestTrunkENIMissing(t *testing.T) {
	labelled := func(s *snapshot.Snapshot) { s.Nodes[0].Labels[labelHasTrunkAttached] = "true" }
	podENI := edits(cniEnv(SettingPodENI, "true"), func(s *snapshot.Snapshot) {
		s.Nodes[0].Status.Capacity[resourcePodENI] = resource.MustParse("9")
	})
	trunk := func(s *snapshot.Snapshot) {
		s.Instances[0].ENIs = append(s.Instances[0].ENIs, snapshot.ENI{ID: "eni-0trunk", InterfaceType: "trunk", DeviceIndex: 1, SubnetID: subnetA})
	}
	finding := func(why string) []Finding {
		return []Finding{{
			ID: "trunk-eni-missing", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
			Message: "the node " + why + ", but none of the 1 ENI attached to i-0123456789abcdef0 is a trunk ENI " +
				"(interface 1): pods with a SecurityGroupPolicy get no branch ENI",
			Remedy: "read the node's events (kubectl get events --field-selector involvedObject.name=" + nodeA + ") for the " +
				"VPC resource controller's reason (an instance type it does not support, or its IAM role missing " +
				"AmazonEKSVPCResourceController), fix it, then replace the node so the resource controller attaches a trunk " +
				"ENI again: kubectl delete nodeclaim default-abcde",
		}}
	}
	runCheckCases(t, trunkENIMissing, []checkCase{
		{name: "no security groups for pods is silent"},
		{name: "label without a trunk fires", edit: labelled, want: finding("is labelled vpc.amazonaws.com/has-trunk-attached=true")},
		{
			name: "pod-eni capacity with ENABLE_POD_ENI fires",
			edit: podENI,
			want: finding("advertises 9 vpc.amazonaws.com/pod-eni with ENABLE_POD_ENI=true"),
		},
		{
			name: "both reasons",
			edit: edits(labelled, podENI),
			want: finding("is labelled vpc.amazonaws.com/has-trunk-attached=true and advertises 9 vpc.amazonaws.com/pod-eni with ENABLE_POD_ENI=true"),
		},
		{name: "a trunk ENI is silent", edit: edits(labelled, podENI, trunk)},
		{name: "label false is silent", edit: func(s *snapshot.Snapshot) { s.Nodes[0].Labels[labelHasTrunkAttached] = "false" }},
		{name: "pod-eni capacity without ENABLE_POD_ENI is silent", edit: edits(podENI, cniEnv(SettingPodENI, "false"))},
		{name: "zero pod-eni is silent", edit: edits(podENI, func(s *snapshot.Snapshot) {
			s.Nodes[0].Status.Capacity[resourcePodENI] = resource.MustParse("0")
		})},
		{name: "instances gap is silent", edit: edits(labelled, func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances))},
		{name: "stopped instance is silent", edit: edits(labelled, func(s *snapshot.Snapshot) { s.Instances[0].State = "stopped" })},
	})
}
