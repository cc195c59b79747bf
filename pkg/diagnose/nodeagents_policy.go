package diagnose

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// vpcCNIConfigResource is the VPC CNI's ConfigMap, whose enable-network-policy-controller
// turns policy enforcement on under EKS Auto Mode.
const vpcCNIConfigResource = "configmap/kube-system/amazon-vpc-cni"

var specNetworkPolicyNotEnforced = &Spec{
	ID:       "network-policy-not-enforced",
	Severity: Warning,
	Family:   FamilyNodeAgents,
	Examines: []string{SubjectDaemonSet, SubjectConfigMap, SubjectNode},
	Title:    "network policies exist but nothing enforces them",
	FiresWhen: "NetworkPolicies (or the VPC CNI's ClusterNetworkPolicies / ApplicationNetworkPolicies) exist, Cilium and " +
		"Calico do not run, and aws-node's network policy agent (`aws-eks-nodeagent`) is absent or runs with " +
		"`--enable-network-policy=false`, or EKS Auto Mode nodes run and the `amazon-vpc-cni` ConfigMap does not set " +
		"`enable-network-policy-controller: \"true\"`; and on each node that reports NetworkingReady=False with reason " +
		"NPANotRunning",
	NotOn: "clusters without policies; Cilium (it enforces them); Calico's calico-node in calico-system or kube-system " +
		"(policy-only mode beside the VPC CNI); an agent that is on; other enforcers karpnet does not read (Antrea, " +
		"kube-router) are not told apart",
	Why: "the API server accepts the policies and nothing applies them: the cluster believes it is segmented and every " +
		"pod still reaches every other",
	Remedy: "turn the VPC CNI's agent on (EKS add-on configuration `{\"enableNetworkPolicy\":\"true\"}`; on EKS Auto Mode " +
		"`enable-network-policy-controller: \"true\"` in the amazon-vpc-cni ConfigMap), or run another enforcer",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s config/master/aws-k8s-cni.yaml and charts/aws-vpc-cni (aws-eks-nodeagent, --enable-network-policy, NETWORK_POLICY_ENFORCING_MODE)",
		"aws/aws-network-policy-agent pkg/config/controller_config.go (enable-network-policy, default false)",
		"aws/amazon-network-policy-controller-k8s pkg/utils/configmap (amazon-vpc-cni enable-network-policy-controller)",
		"docs.aws.amazon.com/eks/latest/userguide/auto-net-pol.html (network policies on EKS Auto Mode)",
		"aws/eks-node-monitoring-agent docs/node-health-issues.adoc (NPANotRunning)",
		"aws/aws-network-policy-agent#73, #189, #236, #288, #635, #643",
	},
}

// networkPolicyNotEnforced finds network policies that nothing enforces: the VPC CNI's agent
// is off or absent in aws-node, off under EKS Auto Mode, or not running on a node; Cilium and
// Calico enforce policies themselves and silence it.
var networkPolicyNotEnforced = Check{
	Spec: specNetworkPolicyNotEnforced,
	Run: func(x *Index) []Finding {
		s := x.Snapshot
		policies, total := policiesText(s.NetworkPolicies)
		if policies == "" || s.Cilium != nil || s.Calico != "" || x.Unavailable(snapshot.SourceCalico) || x.Unavailable(snapshot.SourceCilium) {
			return nil
		}
		var out []Finding
		if a := s.AWSNode; a != nil && len(x.vpcCNINodes()) > 0 && (a.NodeAgent == nil || !a.NodeAgent.NetworkPolicy) {
			why := "its network policy agent runs with --enable-network-policy=false"
			if a.NodeAgent == nil {
				why = "it has no aws-eks-nodeagent container, the VPC CNI's network policy agent (v1.14.0 and later)"
			}
			out = append(out, Finding{
				Resource: awsNodeResource,
				Message: fmt.Sprintf("%s and aws-node is the CNI, but %s: the policies are accepted and not enforced, "+
					"every pod still reaches every other", policies+" "+plural(total, "exists", "exist"), why),
				Remedy: policyAgentRemedy(x),
			})
		}
		if x.autoModeNodes() && !x.Unavailable(snapshot.SourceVPCCNIConfig) &&
			!strings.EqualFold(strings.TrimSpace(s.VPCCNIConfig[snapshot.VPCCNIKeyPolicyEnable]), "true") {
			out = append(out, Finding{
				Resource: vpcCNIConfigResource,
				Message: fmt.Sprintf("%s and EKS Auto Mode nodes run, but the amazon-vpc-cni ConfigMap does not set %s: "+
					"\"true\", so Auto Mode enforces no policy", policies+" "+plural(total, "exists", "exist"), snapshot.VPCCNIKeyPolicyEnable),
				Remedy: "kubectl -n kube-system patch configmap amazon-vpc-cni --type merge -p " +
					"'{\"data\":{\"enable-network-policy-controller\":\"true\"}}' (create the ConfigMap if it does not exist); " +
					"the Auto Mode NodeClass's spec.networkPolicy (DefaultAllow or DefaultDeny) sets what pods without a policy get",
			})
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
						"agent does not run, so %s %s not enforced on its pods", c.Message, policies,
						plural(total, "is", "are")),
					Remedy: "collect the node's logs (a NodeDiagnostic resource on EKS Auto Mode, or the aws-eks-nodeagent " +
						"container's log) and replace the node if the agent does not come back; Karpenter's node repair " +
						"replaces it after 30 minutes of NetworkingReady=False when its NodeRepair feature gate is on",
				})
			}
		}
		return out
	},
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

// policyAgentRemedy says how to turn the VPC CNI's network policy agent on.
func policyAgentRemedy(x *Index) string {
	cluster := x.clusterName()
	if cluster == "" {
		cluster = "CLUSTER"
	}
	return fmt.Sprintf("turn the agent on: aws eks update-addon --cluster-name %s --addon-name vpc-cni --configuration-values "+
		"'{\"enableNetworkPolicy\":\"true\"}' (Helm: enableNetworkPolicy=true with nodeAgent.enabled=true; a self-managed "+
		"cluster also runs the network policy controller); or run another enforcer, such as Calico in policy-only mode", cluster)
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
	if strings.EqualFold(strings.TrimSpace(a.Setting(snapshot.EnvNetworkPolicyMode, "")), "strict") {
		return "enforced, strict mode: a new pod's traffic is denied until a policy allows it"
	}
	return "enforced by the VPC CNI's agent (standard mode)"
}
