package diagnose

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// vpcCNIConfigResource is the VPC CNI's ConfigMap, whose enable-network-policy-controller
// switches the network policy controller on, on EKS Auto Mode and on standard clusters.
const vpcCNIConfigResource = "configmap/kube-system/amazon-vpc-cni"

var specNetworkPolicyNotEnforced = &Spec{
	ID:       "network-policy-not-enforced",
	Severity: Warning,
	Family:   FamilyNodeAgents,
	Needs:    []string{snapshot.SourceCilium, snapshot.SourceCalico},
	Examines: []string{SubjectDaemonSet, SubjectConfigMap, SubjectNode},
	Title:    "network policies exist but nothing enforces them",
	FiresWhen: "NetworkPolicies (or the VPC CNI's ClusterNetworkPolicies / ApplicationNetworkPolicies) exist, Cilium and " +
		"Calico do not run, and aws-node's network policy agent (`aws-eks-nodeagent`) is absent or runs with " +
		"`--enable-network-policy=false`; or the agent is on, or EKS Auto Mode nodes run, and the `amazon-vpc-cni` " +
		"ConfigMap in kube-system does not set `enable-network-policy-controller` to exactly `\"true\"` (absent, \"false\", " +
		"no ConfigMap), so the network policy controller writes no PolicyEndpoints for the agent to enforce; and on each " +
		"node that reports NetworkingReady=False with reason NPANotRunning",
	NotOn: "clusters without policies; Cilium (it enforces them); Calico's calico-node in calico-system or kube-system " +
		"(policy-only mode beside the VPC CNI); an agent and a controller that are on; other enforcers karpnet does not read " +
		"(Antrea, kube-router) are not told apart, nor a network policy controller run in the cluster with " +
		"`--enable-configmap-check=false` (it then ignores the ConfigMap)",
	Why: "the API server accepts the policies and nothing applies them: the cluster believes it is segmented and every " +
		"pod still reaches every other",
	Remedy: "turn the VPC CNI's agent and the controller on (EKS add-on configuration `{\"enableNetworkPolicy\":\"true\"}` " +
		"sets both; otherwise `enable-network-policy-controller: \"true\"` in the amazon-vpc-cni ConfigMap), or run another " +
		"enforcer",
	Scope: "the vpc-cni add-on's enableNetworkPolicy (aws-node on every node it runs on restarts with the agent), or, where only the network policy controller is off, the amazon-vpc-cni ConfigMap key that starts it for the whole cluster; the Affects of each names the nodes",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s config/master/aws-k8s-cni.yaml and charts/aws-vpc-cni (aws-eks-nodeagent, --enable-network-policy, NETWORK_POLICY_ENFORCING_MODE)",
		"aws/aws-network-policy-agent pkg/config/controller_config.go (enable-network-policy, default false)",
		"aws/amazon-network-policy-controller-k8s pkg/utils/configmap (amazon-vpc-cni enable-network-policy-controller)",
		"docs.aws.amazon.com/eks/latest/userguide/auto-net-pol.html (network policies on EKS Auto Mode)",
		"aws/eks-node-monitoring-agent docs/node-health-issues.adoc (NPANotRunning)",
		"aws/aws-network-policy-agent#73, #189, #236, #288, #635, #643",
		"docs.aws.amazon.com/eks/latest/userguide/node-repair.html (EKS node auto repair, on by default on EKS Auto Mode)",
	},
	Verified: []Verified{
		{UpstreamPolicyController, "pkg/utils/configmap/configmap.go (GetControllerConfigMapId, GetConfigmapCheckFn)",
			"the controller is on when the kube-system/amazon-vpc-cni ConfigMap's enable-network-policy-controller is exactly " +
				"\"true\" (no trimming, no case folding)"},
		{UpstreamPolicyController, "README.md",
			"on an EKS cluster the network policy controller is installed on the EKS control plane and reconciles the " +
				"policies into PolicyEndpoints for the node agent"},
		{UpstreamPolicyController, "pkg/config/configmap_manager.go (getCurrentEnabledConfig), cmd/main.go",
			"a missing ConfigMap leaves the controller off; the ConfigMap is consulted when --enable-configmap-check is true, " +
				"its default (pkg/config/controller_config.go, charts values enableConfigMapCheck: true)"},
		{UpstreamPolicyAgent, "main.go, controllers/policyendpoints_controller.go",
			"the agent, with --enable-network-policy (default false, pkg/config/controller_config.go), reconciles the " +
				"PolicyEndpoints the controller writes: without the controller it has nothing to enforce"},
		{UpstreamVPCCNI, "charts/aws-vpc-cni/templates/configmap.yaml, templates/daemonset.yaml (enableNetworkPolicy)",
			"the chart's enableNetworkPolicy sets both the ConfigMap's enable-network-policy-controller and the agent's " +
				"--enable-network-policy; the manifest config/master/aws-k8s-cni.yaml ships \"false\""},
		{UpstreamMonitoringAgent, "monitors/networking/monitor.go (npaEnabled), monitors/networking/npa/npa.go (checkNotRunning)",
			"NPANotRunning is detected on EKS Auto Mode nodes only (the eks-auto runtime tag), when the " +
				"aws-network-policy-agent.service unit has not been active for 15 minutes; it is Fatal, so NetworkingReady " +
				"turns False (since v1.6.7)"},
		{UpstreamAWSDocs, "eks/latest/userguide/node-repair.html (Automatically repair nodes in EKS clusters)",
			"EKS automatic node repair is on by default in EKS Auto Mode and replaces a node whose NetworkingReady is False " +
				"for 30 minutes"},
		{UpstreamKarpenter, "charts/karpenter/values.yaml (settings.featureGates.nodeRepair), pkg/cloudprovider/cloudprovider.go (RepairPolicies)",
			"self-managed Karpenter's NodeRepair feature gate is alpha and off by default; with it on, NetworkingReady False " +
				"for 30 minutes replaces the node"},
	},
}

// networkPolicyNotEnforced finds network policies that nothing enforces: the VPC CNI's agent
// is off or absent in aws-node; the network policy controller, which the amazon-vpc-cni
// ConfigMap switches on EKS Auto Mode and on standard clusters alike, is off while the agent
// is on or Auto Mode nodes run; or the agent does not run on a node. Cilium and Calico enforce
// policies themselves and silence it.
var networkPolicyNotEnforced = Check{
	Spec: specNetworkPolicyNotEnforced,
	Run: func(x *Index) []Finding {
		s := x.Snapshot
		policies, total := policiesText(s.NetworkPolicies)
		if policies == "" || s.Cilium != nil || s.Calico != "" {
			return nil
		}
		exist := policies + " " + plural(total, "exists", "exist")
		var out []Finding
		vpcCNI := len(x.vpcCNINodes()) > 0
		if a := s.AWSNode; a != nil && vpcCNI && (a.NodeAgent == nil || !a.NodeAgent.NetworkPolicy) {
			why := "its network policy agent runs with --enable-network-policy=false"
			if a.NodeAgent == nil {
				why = "it has no aws-eks-nodeagent container, the VPC CNI's network policy agent (v1.14.0 and later)"
			}
			out = append(out, Finding{
				Resource: awsNodeResource,
				Message: fmt.Sprintf("%s and aws-node is the CNI, but %s: the policies are accepted and not enforced, "+
					"every pod still reaches every other", exist, why),
			})
			out[len(out)-1].Remedy, out[len(out)-1].Commands = policyAgentRemedy(x)
		}
		if f, ok := policyControllerOff(x, exist, vpcCNI); ok {
			out = append(out, f)
		}
		for _, n := range x.checkedNodes() {
			for _, c := range n.Node.Status.Conditions {
				if string(c.Type) != snapshot.ConditionNetworkingReady || c.Status != corev1.ConditionFalse || c.Reason != snapshot.ReasonNPANotRunning {
					continue
				}
				out = append(out, Finding{
					Node:     n.Name(),
					Resource: nodeRef(n.Name()),
					Message: fmt.Sprintf("the node reports NetworkingReady=False reason NPANotRunning (\"%s\"): its network policy "+
						"agent has not run for at least %s (the node monitoring agent's window), so %s %s not enforced on its pods",
						c.Message, ago(npaNotRunningWindow), policies, plural(total, "is", "are")),
					Remedy: npaNotRunningRemedy(n),
				})
			}
		}
		return out
	},
}

// npaNotRunningWindow is how long the EKS node monitoring agent waits for the network policy
// agent's systemd unit to come back before it reports NPANotRunning (monitors/networking/npa).
const npaNotRunningWindow = 15 * time.Minute

// npaNotRunningRemedy says how to find out why a node's network policy agent does not run and
// which node repair replaces the node: EKS node auto repair on EKS Auto Mode (where the node
// monitoring agent reports NPANotRunning), Karpenter's NodeRepair feature gate elsewhere.
func npaNotRunningRemedy(n *NodeInfo) string {
	if n.AutoMode() {
		return "collect the node's logs with a NodeDiagnostic resource (nodediagnostics.eks.amazonaws.com; the agent runs as " +
			"the aws-network-policy-agent.service unit); EKS node auto repair, on by default on EKS Auto Mode, replaces the " +
			"node after " + ago(nodeRepairToleration) + " of NetworkingReady=False"
	}
	r := "read the aws-eks-nodeagent container's log in the node's aws-node pod and replace the node if the agent does not " +
		"come back"
	if n.Claim != nil {
		r += "; self-managed Karpenter's NodeRepair feature gate (alpha, off by default) replaces it after " +
			ago(nodeRepairToleration) + " of NetworkingReady=False when it is on"
	}
	return r
}

// policyControllerOff finds the network policy controller off while policies exist and
// something relies on it: EKS Auto Mode nodes run, or aws-node's agent is on (the agent
// enforces only the PolicyEndpoints the controller writes). The amazon-vpc-cni ConfigMap's
// enable-network-policy-controller switches it; the controller compares the value with "true"
// exactly. A ConfigMap karpnet could not read, or did not read (older snapshots of standard
// clusters), is no evidence.
func policyControllerOff(x *Index, exist string, vpcCNI bool) (Finding, bool) {
	s := x.Snapshot
	if x.Unavailable(snapshot.SourceVPCCNIConfig) {
		return Finding{}, false
	}
	value, set := s.VPCCNIConfig[snapshot.VPCCNIKeyPolicyEnable]
	if value == snapshot.VPCCNIPolicyEnabled {
		return Finding{}, false
	}
	var who []string
	if x.autoModeNodes() {
		who = append(who, "EKS Auto Mode nodes run")
	}
	agentOn := vpcCNI && s.AWSNode != nil && s.AWSNode.NodeAgent != nil && s.AWSNode.NodeAgent.NetworkPolicy
	if agentOn && s.VPCCNIConfigState != "" {
		who = append(who, "aws-node's network policy agent runs with --enable-network-policy=true")
	}
	if len(who) == 0 {
		return Finding{}, false
	}
	var state string
	switch {
	case s.VPCCNIConfigState == snapshot.ConfigMapNotFound:
		state = "there is no amazon-vpc-cni ConfigMap in kube-system"
	case set:
		state = fmt.Sprintf("the amazon-vpc-cni ConfigMap sets %s: %q, and the controller is on only for exactly \"%s\"",
			snapshot.VPCCNIKeyPolicyEnable, value, snapshot.VPCCNIPolicyEnabled)
	default:
		state = fmt.Sprintf("the amazon-vpc-cni ConfigMap does not set %s: \"%s\"", snapshot.VPCCNIKeyPolicyEnable,
			snapshot.VPCCNIPolicyEnabled)
	}
	f := Finding{Resource: vpcCNIConfigResource}
	patch, patchProse := policyControllerConfigMap(x)
	if agentOn && s.VPCCNIConfigState != "" {
		f.Message = fmt.Sprintf("%s and %s, but %s: the network policy controller (run by the EKS control plane) is off, "+
			"writes no PolicyEndpoints, and the agent enforces nothing", exist, strings.Join(who, " and "), state)
		addon, ok := enableNetworkPolicyAddon(x)
		if ok {
			f.Remedy = "turn the controller on with the agent: with the vpc-cni add-on, set its configuration value " +
				"enableNetworkPolicy (it sets both; the first command); with a self-managed aws-node, " + patchProse +
				" (the second)"
			f.Commands = []Command{addon, patch}
		} else {
			f.Remedy = "turn the controller on with the agent: with the vpc-cni add-on, set its configuration value " +
				"enableNetworkPolicy to \"true\" with the AWS CLI's eks update-addon and your cluster's name (it sets both; " +
				clusterNameUnknown + "); with a self-managed aws-node, " + patchProse + " (the command)"
			f.Commands = []Command{patch}
		}
	} else {
		f.Message = fmt.Sprintf("%s and %s, but %s, so Auto Mode enforces no policy", exist, strings.Join(who, " and "), state)
		f.Remedy = patchProse + " (the command)"
		f.Commands = []Command{patch}
	}
	if x.autoModeNodes() {
		f.Remedy += "; the Auto Mode NodeClass's spec.networkPolicy (DefaultAllow or DefaultDeny) sets what pods without a " +
			"policy get"
	}
	return f, true
}

// policiesText says which policies exist, e.g. "2 NetworkPolicies (shop/allow-web,
// shop/deny-all)", and how many ("at least" counts one more); "" and 0 when there are none.
func policiesText(counts []snapshot.PolicyCount) (string, int) {
	var parts []string
	total := 0
	for _, c := range counts {
		if c.Count == 0 {
			continue
		}
		total += c.Count
		n := fmt.Sprint(c.Count)
		if c.More {
			n, total = "at least "+n, total+1
		}
		text := fmt.Sprintf("%s %s", n, plural(c.Count, c.Kind, strings.TrimSuffix(c.Kind, "y")+"ies"))
		if len(c.Names) > 0 {
			text += " (" + abbreviate(c.Names, 3) + ")"
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, " and "), total
}

// clusterNameUnknown says why a remedy names no cluster.
const clusterNameUnknown = "karpnet found the cluster's name neither in aws-node's CLUSTER_NAME nor in the instances' " +
	"eks:eks-cluster-name tag"

// policyAgentRemedy says how to turn the VPC CNI's network policy agent on, and the add-on
// command that does it when karpnet knows the cluster's name.
func policyAgentRemedy(x *Index) (string, []Command) {
	const rest = "Helm: enableNetworkPolicy=true with nodeAgent.enabled=true; a self-managed cluster also runs the network " +
		"policy controller; or run another enforcer, such as Calico in policy-only mode"
	if addon, ok := enableNetworkPolicyAddon(x); ok {
		return "turn the agent on with the vpc-cni add-on's configuration value enableNetworkPolicy (the command); " + rest,
			[]Command{addon}
	}
	return "turn the agent on: set the vpc-cni add-on's configuration value enableNetworkPolicy to \"true\" with the AWS " +
		"CLI's eks update-addon and your cluster's name (" + clusterNameUnknown + "); " + rest, nil
}

// enableNetworkPolicyAddon is the aws eks update-addon command that sets the vpc-cni add-on's
// enableNetworkPolicy, which turns on both the network policy agent in aws-node and the
// controller; false when karpnet does not know the cluster's name. The configuration values
// are encoded by encoding/json; the cluster's name is one argument.
func enableNetworkPolicyAddon(x *Index) (Command, bool) {
	cluster := x.clusterName()
	if cluster == "" {
		return Command{}, false
	}
	return Command{
		Argv: []string{"aws", "eks", "update-addon", "--cluster-name", cluster, "--addon-name", "vpc-cni",
			"--configuration-values", jsonArg(map[string]string{"enableNetworkPolicy": "true"})},
		Changes: "the vpc-cni add-on (" + awsNodeResource + ", " + vpcCNIConfigResource + ")",
		Affects: "aws-node runs on " + nodesAffected(x, "vpc-cni", func(n *NodeInfo) bool { return n.VPCCNI }),
	}, true
}

// policyControllerConfigMap is the kubectl command that turns the network policy controller on
// in the amazon-vpc-cni ConfigMap (a merge patch, or a create when the ConfigMap does not
// exist), and the prose that leads to it.
func policyControllerConfigMap(x *Index) (Command, string) {
	const key = "enable-network-policy-controller"
	prose := "set " + key + " to \"true\" in the amazon-vpc-cni ConfigMap"
	switch x.Snapshot.VPCCNIConfigState {
	case snapshot.ConfigMapNotFound:
		prose = "create the amazon-vpc-cni ConfigMap with " + key + " \"true\""
	case "":
		prose += ", creating it if it does not exist"
	}
	affects := "the network policy controller starts turning NetworkPolicies into the agents' rules on every node of " +
		"the VPC CNI or EKS Auto Mode: " + nodesAffected(x, "vpc-cni-or-auto-mode", func(n *NodeInfo) bool { return n.VPCCNI || n.AutoMode() })
	return vpcCNIConfigTrue(x, key, affects), prose
}

// vpcCNIConfigTrue is the kubectl command that sets key to "true" in the amazon-vpc-cni
// ConfigMap: a merge patch, or a create when karpnet found the ConfigMap absent (a patch of an
// absent ConfigMap fails with NotFound). affects says whom the setting reaches.
func vpcCNIConfigTrue(x *Index, key, affects string) Command {
	if x.Snapshot.VPCCNIConfigState == snapshot.ConfigMapNotFound {
		return Command{Argv: []string{"kubectl", "-n", "kube-system", "create", "configmap", "amazon-vpc-cni", "--from-literal=" + key + "=true"},
			Changes: vpcCNIConfigResource, Affects: affects}
	}
	return Command{
		Argv: []string{"kubectl", "-n", "kube-system", "patch", "configmap", "amazon-vpc-cni", "--type", "merge", "-p",
			jsonArg(map[string]any{"data": map[string]string{key: "true"}})},
		Changes: vpcCNIConfigResource, Affects: affects,
	}
}

// autoModeNodes reports whether any EKS Auto Mode node runs.
func (x *Index) autoModeNodes() bool {
	for _, n := range x.checkedNodes() {
		if n.AutoMode() {
			return true
		}
	}
	return false
}

// networkPolicyText says how the VPC CNI enforces network policies on a node it runs on, for
// the node sheet; "" when aws-node has no policy agent container.
func networkPolicyText(x *Index, n *NodeInfo) string {
	a := x.Snapshot.AWSNode
	if !n.VPCCNI || a == nil || a.NodeAgent == nil {
		return ""
	}
	if !a.NodeAgent.NetworkPolicy {
		return "not enforced by the VPC CNI (aws-eks-nodeagent runs with --enable-network-policy=false)"
	}
	if st := x.Snapshot.VPCCNIConfigState; st != "" && !x.Unavailable(snapshot.SourceVPCCNIConfig) &&
		x.Snapshot.VPCCNIConfig[snapshot.VPCCNIKeyPolicyEnable] != snapshot.VPCCNIPolicyEnabled {
		return "not enforced: aws-eks-nodeagent is on, but the network policy controller is off (the amazon-vpc-cni " +
			"ConfigMap's enable-network-policy-controller is not \"true\")"
	}
	if strings.EqualFold(strings.TrimSpace(a.Setting(snapshot.EnvNetworkPolicyMode, "")), "strict") {
		return "enforced, strict mode: a new pod's traffic is denied until a policy allows it"
	}
	return "enforced by the VPC CNI's agent (standard mode)"
}
