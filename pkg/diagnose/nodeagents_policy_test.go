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
	const rest = "Helm: enableNetworkPolicy=true with nodeAgent.enabled=true; a self-managed cluster also runs the network " +
		"policy controller; or run another enforcer, such as Calico in policy-only mode"
	const remedy = `turn the agent on: set the vpc-cni add-on's configuration value enableNetworkPolicy to "true" with the ` +
		`AWS CLI's eks update-addon and your cluster's name (karpnet found the cluster's name neither in aws-node's ` +
		`CLUSTER_NAME nor in the instances' eks:eks-cluster-name tag); ` + rest
	// addon is the add-on command of a cluster named by aws-node's CLUSTER_NAME.
	addon := Command{Argv: []string{"aws", "eks", "update-addon", "--cluster-name", "prod", "--addon-name", "vpc-cni",
		"--configuration-values", `{"enableNetworkPolicy":"true"}`},
		Changes: "the vpc-cni add-on (daemonset/kube-system/aws-node, configmap/kube-system/amazon-vpc-cni)",
		Affects: "aws-node runs on 1 node (m5.large)"}
	config := func(state, value string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.VPCCNIConfigState = state
			if value != "" {
				s.VPCCNIConfig = map[string]string{"enable-network-policy-controller": value}
			}
		}
	}
	const patchProse = `set enable-network-policy-controller to "true" in the amazon-vpc-cni ConfigMap`
	patch := Command{Argv: []string{"kubectl", "-n", "kube-system", "patch", "configmap", "amazon-vpc-cni", "--type", "merge",
		"-p", `{"data":{"enable-network-policy-controller":"true"}}`}, Changes: "configmap/kube-system/amazon-vpc-cni",
		Affects: controllerReach}
	create := Command{Argv: []string{"kubectl", "-n", "kube-system", "create", "configmap", "amazon-vpc-cni",
		"--from-literal=enable-network-policy-controller=true"}, Changes: "configmap/kube-system/amazon-vpc-cni",
		Affects: controllerReach}
	controllerOff := func(state, how string, cmd Command) []Finding {
		return []Finding{{ID: "network-policy-not-enforced", Severity: Warning, Resource: "configmap/kube-system/amazon-vpc-cni",
			Message: "2 NetworkPolicies (shop/allow-web, shop/deny-all) exist and aws-node's network policy agent runs with " +
				"--enable-network-policy=true, but " + state + ": the network policy controller (run by the EKS control plane) " +
				"is off, writes no PolicyEndpoints, and the agent enforces nothing",
			Remedy: `turn the controller on with the agent: with the vpc-cni add-on, set its configuration value ` +
				`enableNetworkPolicy to "true" with the AWS CLI's eks update-addon and your cluster's name (it sets both; ` +
				`karpnet found the cluster's name neither in aws-node's CLUSTER_NAME nor in the instances' ` +
				`eks:eks-cluster-name tag); with a self-managed aws-node, ` + how + ` (the command)`,
			Commands: []Command{cmd}}}
	}
	npaNotRunning := func(s *snapshot.Snapshot) {
		s.Nodes[0].Status.Conditions = append(s.Nodes[0].Status.Conditions, corev1.NodeCondition{Type: "NetworkingReady",
			Status: corev1.ConditionFalse, Reason: "NPANotRunning", Message: "Network Policy Agent is not running"})
	}
	runCheckCases(t, networkPolicyNotEnforced, []checkCase{
		{name: "no policy is silent", edit: agent(false)},
		{name: "the agent on, the ConfigMap not read (an older snapshot) is silent", edit: edits(policies, agent(true))},
		{name: "the agent and the controller on are clean", edit: edits(policies, agent(true), config("found", "true"))},
		{
			name: "the agent on and the controller off on a standard cluster fires on the ConfigMap",
			edit: edits(policies, agent(true), config("found", "false")),
			want: controllerOff(`the amazon-vpc-cni ConfigMap sets enable-network-policy-controller: "false", and the `+
				`controller is on only for exactly "true"`, patchProse, patch),
		},
		{
			name: "\"True\" is not \"true\" to the controller",
			edit: edits(policies, agent(true), config("found", "True")),
			want: controllerOff(`the amazon-vpc-cni ConfigMap sets enable-network-policy-controller: "True", and the `+
				`controller is on only for exactly "true"`, patchProse, patch),
		},
		{
			name: "the agent on and the key absent fires",
			edit: edits(policies, agent(true), config("found", "")),
			want: controllerOff(`the amazon-vpc-cni ConfigMap does not set enable-network-policy-controller: "true"`, patchProse, patch),
		},
		{
			name: "with the cluster's name from aws-node, the add-on command comes first",
			edit: edits(policies, agent(true), config("found", ""), cniEnv(snapshot.EnvClusterName, "prod")),
			want: []Finding{{ID: "network-policy-not-enforced", Severity: Warning, Resource: "configmap/kube-system/amazon-vpc-cni",
				Message: "2 NetworkPolicies (shop/allow-web, shop/deny-all) exist and aws-node's network policy agent runs with " +
					"--enable-network-policy=true, but the amazon-vpc-cni ConfigMap does not set enable-network-policy-controller: " +
					`"true": the network policy controller (run by the EKS control plane) is off, writes no PolicyEndpoints, and ` +
					"the agent enforces nothing",
				Remedy: "turn the controller on with the agent: with the vpc-cni add-on, set its configuration value " +
					"enableNetworkPolicy (it sets both; the first command); with a self-managed aws-node, " + patchProse +
					" (the second)",
				Commands: []Command{addon, patch}}},
		},
		{
			name: "the agent on and no ConfigMap fires, the remedy creates it",
			edit: edits(policies, agent(true), config("not-found", "")),
			want: controllerOff("there is no amazon-vpc-cni ConfigMap in kube-system",
				`create the amazon-vpc-cni ConfigMap with enable-network-policy-controller "true"`, create),
		},
		{name: "an unread ConfigMap is silent", edit: edits(policies, agent(true), config("", ""), func(s *snapshot.Snapshot) {
			s.Gaps = []snapshot.Gap{{Source: snapshot.SourceVPCCNIConfig, Reason: "forbidden"}}
		})},
		{name: "the agent on and the controller off with Cilium is silent", edit: edits(policies, agent(true), config("found", "false"), withCilium(nil))},
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
			name: "the agent off with the cluster's name from aws-node: the add-on command",
			edit: edits(policies, agent(false), cniEnv(snapshot.EnvClusterName, "prod")),
			want: []Finding{{ID: "network-policy-not-enforced", Severity: Warning, Resource: "daemonset/kube-system/aws-node",
				Message: "2 NetworkPolicies (shop/allow-web, shop/deny-all) exist and aws-node is the CNI, but its network policy " +
					"agent runs with --enable-network-policy=false: the policies are accepted and not enforced, every pod still " +
					"reaches every other",
				Remedy:   "turn the agent on with the vpc-cni add-on's configuration value enableNetworkPolicy (the command); " + rest,
				Commands: []Command{addon}}},
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
					"network policy agent has not run for at least 15m (the node monitoring agent's window), so 2 NetworkPolicies " +
					"(shop/allow-web, shop/deny-all) are not enforced on its pods",
				Remedy: "read the aws-eks-nodeagent container's log in the node's aws-node pod and replace the node if the agent " +
					"does not come back; self-managed Karpenter's NodeRepair feature gate (alpha, off by default) replaces it " +
					"after 30m of NetworkingReady=False when it is on"}},
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
		Remedy: `set enable-network-policy-controller to "true" in the amazon-vpc-cni ConfigMap, creating it if it ` +
			`does not exist (the command); the Auto Mode NodeClass's spec.networkPolicy (DefaultAllow or DefaultDeny) sets ` +
			`what pods without a policy get`,
		Commands: []Command{{Argv: []string{"kubectl", "-n", "kube-system", "patch", "configmap", "amazon-vpc-cni", "--type",
			"merge", "-p", `{"data":{"enable-network-policy-controller":"true"}}`}, Changes: "configmap/kube-system/amazon-vpc-cni",
			Affects: controllerReach}}}}
	runCasesOver(t, autoHealthy, networkPolicyNotEnforced, []checkCase{
		{name: "no policy is silent"},
		{name: "the controller off fires on the ConfigMap", edit: policies, want: want},
		{name: "the controller on is clean", edit: edits(policies, func(s *snapshot.Snapshot) {
			s.VPCCNIConfig = map[string]string{"enable-network-policy-controller": "true"}
		})},
		{name: "an unread ConfigMap is silent", edit: edits(policies, func(s *snapshot.Snapshot) {
			s.Gaps = []snapshot.Gap{{Source: snapshot.SourceVPCCNIConfig, Reason: "forbidden"}}
		})},
		{
			name: "NPANotRunning on an Auto Mode node: EKS node auto repair, not Karpenter's gate",
			edit: edits(policies, func(s *snapshot.Snapshot) {
				s.VPCCNIConfig, s.VPCCNIConfigState = map[string]string{"enable-network-policy-controller": "true"}, "found"
				s.Nodes[0].Status.Conditions = append(s.Nodes[0].Status.Conditions, corev1.NodeCondition{Type: "NetworkingReady",
					Status: corev1.ConditionFalse, Reason: "NPANotRunning",
					Message: `NPA is not running on this Auto Mode node (SubState="dead", Result="exit-code")`})
			}),
			want: []Finding{{ID: "network-policy-not-enforced", Severity: Warning, Node: autoNode, Resource: "node/" + autoNode,
				Message: `the node reports NetworkingReady=False reason NPANotRunning ("NPA is not running on this Auto Mode node ` +
					`(SubState="dead", Result="exit-code")"): its network policy agent has not run for at least 15m (the node ` +
					"monitoring agent's window), so at least 3 NetworkPolicies (a/x, b/y, c/z) are not enforced on its pods",
				Remedy: "collect the node's logs with a NodeDiagnostic resource (nodediagnostics.eks.amazonaws.com; the agent runs " +
					"as the aws-network-policy-agent.service unit); EKS node auto repair, on by default on EKS Auto Mode, replaces " +
					"the node after 30m of NetworkingReady=False"}},
		},
		{name: "no ConfigMap at all on Auto Mode fires, the remedy creates it", edit: edits(policies, func(s *snapshot.Snapshot) {
			s.VPCCNIConfigState = "not-found"
		}), want: []Finding{{ID: "network-policy-not-enforced", Severity: Warning, Resource: "configmap/kube-system/amazon-vpc-cni",
			Message: "at least 3 NetworkPolicies (a/x, b/y, c/z) exist and EKS Auto Mode nodes run, but there is no amazon-vpc-cni " +
				"ConfigMap in kube-system, so Auto Mode enforces no policy",
			Remedy: `create the amazon-vpc-cni ConfigMap with enable-network-policy-controller "true" (the command); ` +
				"the Auto Mode NodeClass's spec.networkPolicy (DefaultAllow or DefaultDeny) sets what pods without a policy get",
			Commands: []Command{{Argv: []string{"kubectl", "-n", "kube-system", "create", "configmap", "amazon-vpc-cni",
				"--from-literal=enable-network-policy-controller=true"}, Changes: "configmap/kube-system/amazon-vpc-cni",
				Affects: "the network policy controller starts turning NetworkPolicies into the agents' rules on every " +
					"node of the VPC CNI or EKS Auto Mode: 1 node (m5.large)"}}}}},
	})
}

// The node sheet says policies are not enforced when the agent is on and the controller off.
func TestNetworkPolicyText(t *testing.T) {
	for _, tc := range []struct {
		name, state, value, want string
	}{
		{"the ConfigMap not read", "", "", "enforced by the VPC CNI's agent (standard mode)"},
		{"the controller on", "found", "true", "enforced by the VPC CNI's agent (standard mode)"},
		{"the controller off", "found", "false", "not enforced: aws-eks-nodeagent is on, but the network policy controller " +
			"is off (the amazon-vpc-cni ConfigMap's enable-network-policy-controller is not \"true\")"},
		{"no ConfigMap", "not-found", "", "not enforced: aws-eks-nodeagent is on, but the network policy controller " +
			"is off (the amazon-vpc-cni ConfigMap's enable-network-policy-controller is not \"true\")"},
	} {
		s := healthy()
		s.AWSNode.NodeAgent = &snapshot.NodeAgent{NetworkPolicy: true}
		s.VPCCNIConfigState = tc.state
		if tc.value != "" {
			s.VPCCNIConfig = map[string]string{"enable-network-policy-controller": tc.value}
		}
		x := NewIndex(s)
		if got := networkPolicyText(x, x.checkedNodes()[0]); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// controllerReach is whom turning the network policy controller on reaches in the fixtures.
const controllerReach = "the network policy controller starts turning NetworkPolicies into the agents' rules on " +
	"every node of the VPC CNI or EKS Auto Mode: 1 node (m5.large)"
