package diagnose

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestNetworkPolicyNotEnforced(t *testing.T) {
	policies := func(s *snapshot.Snapshot) {
		s.NetworkPolicies = []snapshot.PolicyCount{{Kind: "NetworkPolicy", Count: 2, Names: []string{"shop/allow-web", "shop/deny-all"}}}
	}
	agent := func(on bool) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { s.AWSNode.NodeAgent = &snapshot.NodeAgent{NetworkPolicy: on} }
	}
	const remedy = `turn the agent on: aws eks update-addon --cluster-name CLUSTER --addon-name vpc-cni --configuration-values ` +
		`'{"enableNetworkPolicy":"true"}' (Helm: enableNetworkPolicy=true with nodeAgent.enabled=true; a self-managed cluster ` +
		`also runs the network policy controller); or run another enforcer, such as Calico in policy-only mode`
	npaNotRunning := func(s *snapshot.Snapshot) {
		s.Nodes[0].Status.Conditions = append(s.Nodes[0].Status.Conditions, corev1.NodeCondition{Type: "NetworkingReady",
			Status: corev1.ConditionFalse, Reason: "NPANotRunning", Message: "Network Policy Agent is not running"})
	}
	runCheckCases(t, networkPolicyNotEnforced, []checkCase{
		{name: "no policy is silent", edit: agent(false)},
		{name: "the agent on is clean", edit: edits(policies, agent(true))},
		{
			name: "the agent off fires on aws-node",
			edit: edits(policies, agent(false)),
			want: []Finding{{ID: "network-policy-not-enforced", Severity: Warning, Resource: "daemonset/kube-system/aws-node",
				Message: "2 NetworkPolicies (shop/allow-web, shop/deny-all) exist and aws-node is the CNI, but its network policy " +
					"agent runs with --enable-network-policy=false: the policies are accepted and not enforced, every pod still " +
					"reaches every other",
				Remedy: remedy}},
		},
		{
			name: "no agent container fires, for the VPC CNI's own kinds too",
			edit: func(s *snapshot.Snapshot) {
				s.NetworkPolicies = []snapshot.PolicyCount{{Kind: "ClusterNetworkPolicy", Count: 1, Names: []string{"deny-egress"}}}
			},
			want: []Finding{{ID: "network-policy-not-enforced", Severity: Warning, Resource: "daemonset/kube-system/aws-node",
				Message: "1 ClusterNetworkPolicy (deny-egress) exists and aws-node is the CNI, but it has no aws-eks-nodeagent " +
					"container, the VPC CNI's network policy agent (v1.14.0 and later): the policies are accepted and not " +
					"enforced, every pod still reaches every other",
				Remedy: remedy}},
		},
		{name: "Cilium enforces them", edit: edits(policies, agent(false), withCilium(nil))},
		{name: "Calico enforces them", edit: edits(policies, agent(false), func(s *snapshot.Snapshot) { s.Calico = "calico-system" })},
		{name: "a Calico that could not be looked for is silent", edit: edits(policies, agent(false), func(s *snapshot.Snapshot) {
			s.Gaps = []snapshot.Gap{{Source: snapshot.SourceCalico, Reason: "forbidden"}}
		})},
		{name: "aws-node that runs on no node is silent", edit: edits(policies, agent(false), func(s *snapshot.Snapshot) {
			s.AWSNode.Scheduling.NodeSelector = map[string]string{"io.cilium/aws-node-enabled": "true"}
		})},
		{
			name: "a node that reports NPANotRunning says so",
			edit: edits(policies, agent(true), npaNotRunning),
			want: []Finding{{ID: "network-policy-not-enforced", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "the node reports NetworkingReady=False reason NPANotRunning (\"Network Policy Agent is not running\"): its " +
					"network policy agent does not run, so 2 NetworkPolicies (shop/allow-web, shop/deny-all) are not enforced on its pods",
				Remedy: "collect the node's logs (a NodeDiagnostic resource on EKS Auto Mode, or the aws-eks-nodeagent container's " +
					"log) and replace the node if the agent does not come back; Karpenter's node repair replaces it after 30 " +
					"minutes of NetworkingReady=False when its NodeRepair feature gate is on"}},
		},
	})
}

func TestNetworkPolicyNotEnforcedAutoMode(t *testing.T) {
	policies := func(s *snapshot.Snapshot) {
		s.NetworkPolicies = []snapshot.PolicyCount{{Kind: "NetworkPolicy", Count: 3, More: true, Names: []string{"a/x", "b/y", "c/z"}}}
	}
	want := []Finding{{ID: "network-policy-not-enforced", Severity: Warning, Resource: "configmap/kube-system/amazon-vpc-cni",
		Message: "at least 3 NetworkPolicies (a/x, b/y, c/z) exist and EKS Auto Mode nodes run, but the amazon-vpc-cni ConfigMap " +
			"does not set enable-network-policy-controller: \"true\", so Auto Mode enforces no policy",
		Remedy: "kubectl -n kube-system patch configmap amazon-vpc-cni --type merge -p " +
			"'{\"data\":{\"enable-network-policy-controller\":\"true\"}}' (create the ConfigMap if it does not exist); the Auto " +
			"Mode NodeClass's spec.networkPolicy (DefaultAllow or DefaultDeny) sets what pods without a policy get"}}
	runCasesOver(t, autoHealthy, networkPolicyNotEnforced, []checkCase{
		{name: "no policy is silent"},
		{name: "the controller off fires on the ConfigMap", edit: policies, want: want},
		{name: "the controller on is clean", edit: edits(policies, func(s *snapshot.Snapshot) {
			s.VPCCNIConfig = map[string]string{"enable-network-policy-controller": "true"}
		})},
		{name: "an unread ConfigMap is silent", edit: edits(policies, func(s *snapshot.Snapshot) {
			s.Gaps = []snapshot.Gap{{Source: snapshot.SourceVPCCNIConfig, Reason: "forbidden"}}
		})},
	})
}
