package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// conditionNetworkingReady is the node condition the EKS node monitoring agent sets.
const conditionNetworkingReady = corev1.NodeConditionType("NetworkingReady")

// networkNotReadyTexts mark a NotReady node whose cause is the network plugin, as kubelet
// reports it ("container runtime network not ready: NetworkReady=false
// reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized").
var networkNotReadyTexts = [...]string{
	"networkpluginnotready",
	"cni plugin not initialized",
	"network plugin is not ready",
	"networkready=false",
}

var specNodeNetworkNotReady = &Spec{
	ID:       "node-network-not-ready",
	Severity: Critical,
	Lower:    []Severity{Info},
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "the node is not ready because of its network",
	FiresWhen: "Ready is False/Unknown with a network reason or message (NetworkPluginNotReady, \"cni plugin not " +
		"initialized\", \"network plugin is not ready\"), or NetworkUnavailable=True, or " +
		"NetworkingReady=False",
	NotOn: "nodes still initialising (created under 5 minutes ago and NodeClaim not Initialized): info, as " +
		"every node says so until ipamd is up; nodes being deleted; a lost kubelet (Unknown without a " +
		"network reason); NetworkingReady=False with reason NPANotRunning, the only Fatal networking reason that " +
		"leaves the node's network up (network-policy-not-enforced reports it)",
	Why: "no pod can start; Karpenter deletes unregistered nodes after 15 minutes; a node whose NetworkingReady (the EKS " +
		"node monitoring agent's condition) stays False for 30 minutes is replaced by EKS node auto repair on EKS Auto Mode " +
		"(on by default), or on self-managed Karpenter by its NodeRepair feature gate (alpha, off by default): the finding " +
		"says which applies to the node, and when",
	Remedy: "read the aws-node pod and ipamd logs; check security groups to the EKS API, routes to EC2/API, " +
		"and AmazonEKS_CNI_Policy on the node or IRSA role",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s cmd/aws-vpc-cni/main.go (waitForIPAM)",
		"aws/karpenter-provider-aws website/content/en/docs/troubleshooting.md (Node NotReady)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go (15-minute registration TTL)",
		"aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go (RepairPolicies: NetworkingReady False, 30 minutes)",
		"aws/eks-node-monitoring-agent pkg/conditions, docs/node-health-issues.adoc (NetworkingReady and its reasons)",
		"docs.aws.amazon.com/eks/latest/userguide/node-repair.html (EKS node auto repair, on by default on EKS Auto Mode)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/cloudprovider/cloudprovider.go (RepairPolicies)",
			"Karpenter's repair policies replace a node whose NetworkingReady is False for 30 minutes (and Ready False or " +
				"Unknown for 30 minutes)"},
		{UpstreamKarpenter, "charts/karpenter/values.yaml (settings.featureGates.nodeRepair)",
			"nodeRepair is ALPHA and false by default; the chart passes it as the NodeRepair feature gate " +
				"(templates/deployment.yaml, FEATURE_GATES)"},
		{UpstreamMonitoringAgent, "pkg/manager/node_exporter.go (nodeExporter.Fatal)",
			"a Fatal issue sets the node's condition (NetworkingReady for the networking monitor) to False with the issue as " +
				"reason, keeping the transition time while it stays False and joining further messages with \"; \""},
		{UpstreamMonitoringAgent, "pkg/reasons/reasons.yaml (NetworkingReady)",
			"the Fatal NetworkingReady reasons are MissingLoopbackInterface, IPAMDNotReady, IPAMDNotRunning, " +
				"InterfaceNotRunning, InterfaceNotUp and NPANotRunning (the network policy agent's unit not running)"},
		{UpstreamAWSDocs, "eks/latest/userguide/node-repair.html (Automatically repair nodes in EKS clusters)",
			"EKS automatic node repair is on by default in EKS Auto Mode; a NetworkingReady node condition is repaired after " +
				"30m by Replace"},
	},
}

// nodeNetworkNotReady finds nodes that are not ready because of their network: kubelet's
// Ready condition blames the CNI, NetworkUnavailable is True, or the EKS node monitoring agent
// reports NetworkingReady=False. No pod can start on such a node; on a new Karpenter node it is
// usually aws-node failing to reach the EKS API or EC2 (security groups, routes, IAM), and
// Karpenter deletes the node after 15 minutes without registration. Every node says so for its
// first minute or so, until ipamd is up and aws-node has written the CNI configuration: inside
// its start-up grace (bootGrace) the finding is info that the node is still initialising.
var nodeNetworkNotReady = Check{
	Spec: specNodeNetworkNotReady,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			var bad []string
			for _, c := range n.Node.Status.Conditions {
				if networkConditionBad(c) {
					bad = append(bad, fmt.Sprintf("%s=%s reason %s: \"%s\"", c.Type, c.Status, c.Reason, c.Message))
				}
			}
			if len(bad) == 0 {
				continue
			}
			slices.Sort(bad)
			remedy, commands := networkNotReadyRemedy(n)
			if n.AutoMode() {
				commands = nil
				remedy = "EKS Auto Mode runs the node's CNI itself: check that the node's security groups let it reach " +
					"the cluster endpoint (VPC Reachability Analyzer from the instance to the kubernetes endpoint IPs on TCP " +
					"443), that its subnet routes to the endpoint and to AWS APIs, and collect the node's logs with a " +
					"NodeDiagnostic resource (nodediagnostics.eks.amazonaws.com)"
			}
			f := Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message:  "node conditions show its network is down: " + strings.Join(bad, "; ") + repairWindow(x, n),
				Remedy:   remedy,
				Commands: commands,
			}
			if n.Initialising() {
				f.Severity = Info
				f.Message = fmt.Sprintf("the node is still initialising (%s): its network is not up yet, as on every new "+
					"node until the CNI has started: %s; it becomes critical if it lasts past %s", n.StateReason,
					strings.Join(bad, "; "), ago(bootGrace))
				f.Remedy = "nothing yet; if the node is still not ready after " + ago(bootGrace) + ", " + remedy
			}
			out = append(out, f)
		}
		return out
	},
}

// nodeRepairToleration is how long node repair tolerates NetworkingReady=False before it
// replaces the node: Karpenter's RepairPolicies (v1.2.0+), and EKS node auto repair on EKS Auto
// Mode.
const nodeRepairToleration = 30 * time.Minute

// nodeRepairer says which node repair applies to a node: EKS node auto repair on an EKS Auto
// Mode node (on by default there), Karpenter's NodeRepair feature gate on a self-managed
// Karpenter node (alpha, off by default); "" for a node neither manages.
func nodeRepairer(n *NodeInfo) string {
	switch {
	case n.AutoMode():
		return "EKS node auto repair (on by default on EKS Auto Mode)"
	case n.Claim != nil:
		return "self-managed Karpenter's NodeRepair feature gate (alpha, off by default), when it is on,"
	}
	return ""
}

// repairWindow says when node repair would replace a Karpenter or EKS Auto Mode node whose
// NetworkingReady condition is False, counted from the condition's last transition, naming the
// repair that applies to the node; "" when the node has no such condition with a time, or
// neither repairs it. On an Auto Mode node it never infers Karpenter's feature gate.
func repairWindow(x *Index, n *NodeInfo) string {
	repairer := nodeRepairer(n)
	if repairer == "" {
		return ""
	}
	for _, c := range n.Node.Status.Conditions {
		if c.Type != conditionNetworkingReady || c.Status != corev1.ConditionFalse || c.LastTransitionTime.IsZero() {
			continue
		}
		since := c.LastTransitionTime.UTC().Format(time.RFC3339)
		left := c.LastTransitionTime.Add(nodeRepairToleration).Sub(x.Snapshot.Taken)
		if left > 0 {
			return fmt.Sprintf("; %s replaces the node in about %s (NetworkingReady False since %s, tolerated %s)",
				repairer, ago(left), since, ago(nodeRepairToleration))
		}
		if n.AutoMode() {
			return fmt.Sprintf("; NetworkingReady has been False since %s, longer than the %s after which EKS node auto repair "+
				"(on by default on EKS Auto Mode) replaces the node: the node is still here, so EKS has held the repair back "+
				"(the events of the node, its NodeClaim and its NodePool say why)", since, ago(nodeRepairToleration))
		}
		return fmt.Sprintf("; NetworkingReady has been False since %s, longer than the %s Karpenter's node repair tolerates: "+
			"the node is still here, so self-managed Karpenter's NodeRepair feature gate (alpha) is off, or more than 20%% of "+
			"the NodePool is unhealthy", since, ago(nodeRepairToleration))
	}
	return ""
}

// networkNotReadyRemedy points at aws-node and ipamd logs of a VPC CNI node: the read-only
// command names the node's aws-node pod, whose log is then read (one plain command each, no
// command substitution).
func networkNotReadyRemedy(n *NodeInfo) (string, []Command) {
	return "read the log of the aws-node container of the node's aws-node pod, which the command names, and " +
			"ipamd's log (/var/log/aws-routed-eni/ipamd.log); the usual causes are " +
			"security groups that do not allow the node to reach the EKS API, a subnet without a route to EC2 and the " +
			"API, or a node or IRSA role without AmazonEKS_CNI_Policy",
		[]Command{{Argv: []string{"kubectl", "-n", "kube-system", "get", "pod", "-l", "k8s-app=aws-node",
			"--field-selector", "spec.nodeName=" + n.Name(), "-o", "name"}, ReadOnly: true}}
}

// networkConditionBad reports whether a node condition says the node's network is down.
func networkConditionBad(c corev1.NodeCondition) bool {
	switch c.Type {
	case corev1.NodeReady:
		if c.Status == corev1.ConditionTrue {
			return false
		}
		text := strings.ToLower(c.Reason + " " + c.Message)
		for _, t := range networkNotReadyTexts {
			if strings.Contains(text, t) {
				return true
			}
		}
	case corev1.NodeNetworkUnavailable:
		return c.Status == corev1.ConditionTrue
	case conditionNetworkingReady:
		// NPANotRunning is the network policy agent, not the node's network: pods start and talk,
		// only their policies are not enforced, which network-policy-not-enforced reports.
		return c.Status == corev1.ConditionFalse && c.Reason != snapshot.ReasonNPANotRunning
	}
	return false
}

// networkDrift returns, for a Drifted reason Karpenter gives for a networking change, what
// changed and what to fix when the change was not meant; false for other reasons.
func networkDrift(reason, class string) (string, bool) {
	switch reason {
	case "SubnetDrift":
		return fmt.Sprintf("the instance's subnet is no longer in status.subnets of %s; "+
			"if the subnet should stay, add it back to spec.subnetSelectorTerms", class), true
	case "SecurityGroupDrift":
		return fmt.Sprintf("the instance's security groups differ from status.securityGroups of %s; "+
			"if they should stay, fix spec.securityGroupSelectorTerms", class), true
	case reasonPlacementGroupDrift:
		return fmt.Sprintf("the NodeClaim's karpenter.k8s.aws/placement-group-id label differs from the placement group of "+
			"spec.placementGroupSelector of %s; if the old group should stay, point the selector back at it", class), true
	}
	return "", false
}

var specNodeClaimDrifted = &Spec{
	ID:       "nodeclaim-drifted",
	Severity: Info,
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "Karpenter will replace the node: its network drifted from the EC2NodeClass",
	FiresWhen: "the node's NodeClaim is Drifted=True with reason SubnetDrift, SecurityGroupDrift or " +
		"PlacementGroupDrift",
	NotOn: "drift for other reasons (AMI, NodeClass hash, requirements); PlacementGroupDrift on a node that " +
		"`placement-group-missing` or `placement-group-mismatch` reports (their warning says the node will be " +
		"replaced as drifted: one finding per node)",
	Why: "Karpenter will replace the node; until then it runs on the old network",
	Remedy: "nothing if intended (or `kubectl delete nodeclaim NAME` now); otherwise restore " +
		"`subnetSelectorTerms` / `securityGroupSelectorTerms` / `placementGroupSelector`",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/drift.go (SubnetDrift, SecurityGroupDrift, PlacementGroupDrift)",
		"kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_status.go (Drifted condition)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/cloudprovider/drift.go (SubnetDrift, SecurityGroupDrift, PlacementGroupDrift)",
			"the provider's networking drift reasons are SubnetDrift, SecurityGroupDrift and PlacementGroupDrift"},
		{UpstreamKarpenter, "pkg/cloudprovider/drift.go (isSubnetDrifted)",
			"SubnetDrift when the instance's subnet is not in the EC2NodeClass's status.subnets"},
		{UpstreamKarpenter, "pkg/cloudprovider/drift.go (areSecurityGroupsDrifted)",
			"SecurityGroupDrift when the instance's security groups are not exactly the EC2NodeClass's status.securityGroups"},
		{UpstreamKarpenter, "pkg/cloudprovider/drift.go (isPlacementGroupDrifted), pkg/apis/v1/labels.go (LabelPlacementGroupID)",
			"PlacementGroupDrift when the NodeClaim's karpenter.k8s.aws/placement-group-id label differs from the ID of the " +
				"placement group the EC2NodeClass resolves (none counts as empty)"},
	},
}

// nodeClaimDrifted finds Karpenter nodes whose NodeClaim drifted for a networking reason:
// their subnet, security groups or placement group no longer match the EC2NodeClass. Karpenter
// will replace them, as its disruption budgets allow; until then they run with the old network.
// A placement drift that placement-group-missing or -mismatch reports is left to their warning.
var nodeClaimDrifted = Check{
	Spec: specNodeClaimDrifted,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Claim == nil {
				continue
			}
			c := findCondition(n.Claim.Conditions, "Drifted")
			if c == nil || c.Status != "True" {
				continue
			}
			class := n.ClassLabel()
			if n.ClassName == "" {
				class = n.classKind() + " (unknown)"
			}
			what, ok := networkDrift(c.Reason, class)
			if !ok || c.Reason == reasonPlacementGroupDrift && (placementMissing(x, n) != nil || placementMismatch(x, n) != nil) {
				continue // one warning of placement-group-missing or -mismatch says it
			}
			detail := ""
			if c.Message != "" {
				detail = fmt.Sprintf(" (\"%s\")", c.Message)
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: "nodeclaim/" + n.Claim.Name,
				Message:  fmt.Sprintf("NodeClaim %s is Drifted=True with reason %s%s: %s", n.Claim.Name, c.Reason, detail, what),
				Remedy: fmt.Sprintf("nothing to do if the change was meant: Karpenter replaces the node as spec.disruption.budgets "+
					"of NodePool %s allow (to %s); otherwise revert the EC2NodeClass change",
					n.PoolName, replaceNodeProse(n, "now")),
				Commands: replaceNodeCommands(n),
			})
		}
		return out
	},
}
