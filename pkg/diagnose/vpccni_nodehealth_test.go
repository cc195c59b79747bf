package diagnose

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestNodeNetworkNotReady(t *testing.T) {
	conditions := func(cs ...corev1.NodeCondition) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { s.Nodes[0].Status.Conditions = cs }
	}
	const cniMessage = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady " +
		"message:Network plugin returns error: cni plugin not initialized"
	remedy := "read the log of the aws-node container of the node's aws-node pod, which the command names, and " +
		"ipamd's log (/var/log/aws-routed-eni/ipamd.log); the usual causes are security groups that do not allow the node to reach " +
		"the EKS API, a subnet without a route to EC2 and the API, or a node or IRSA role without AmazonEKS_CNI_Policy"
	finding := func(msg string) []Finding {
		return []Finding{{ID: "node-network-not-ready", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA, Message: msg, Remedy: remedy,
			Commands: []Command{{Argv: []string{"kubectl", "-n", "kube-system", "get", "pod", "-l", "k8s-app=aws-node",
				"--field-selector", "spec.nodeName=" + nodeA, "-o", "name"}, ReadOnly: true}}}}
	}
	runCheckCases(t, nodeNetworkNotReady, []checkCase{
		{name: "Ready is silent", edit: conditions(corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"})},
		{
			name: "kubelet NotReady for the CNI fires",
			edit: conditions(corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady", Message: cniMessage}),
			want: finding(`node conditions show its network is down: Ready=False reason KubeletNotReady: "` + cniMessage + `"`),
		},
		{
			name: "NetworkUnavailable and NetworkingReady fire together",
			edit: conditions(
				corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"},
				corev1.NodeCondition{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionTrue, Reason: "NoRouteCreated", Message: "route not created"},
				corev1.NodeCondition{Type: "NetworkingReady", Status: corev1.ConditionFalse, Reason: "IPAMDNotReady", Message: "ipamd is not running"},
			),
			want: finding(`node conditions show its network is down: NetworkUnavailable=True reason NoRouteCreated: "route not created"; ` +
				`NetworkingReady=False reason IPAMDNotReady: "ipamd is not running"`),
		},
		{
			name: "NetworkingReady False for 10 minutes: Karpenter's node repair window",
			edit: func(s *snapshot.Snapshot) {
				s.Nodes[0].Status.Conditions = []corev1.NodeCondition{{Type: "NetworkingReady", Status: corev1.ConditionFalse,
					Reason: "IPAMDNotRunning", Message: "ipamd is not running", LastTransitionTime: metav1.NewTime(s.Taken.Add(-10 * time.Minute))}}
			},
			want: finding(`node conditions show its network is down: NetworkingReady=False reason IPAMDNotRunning: "ipamd is not running"` +
				"; self-managed Karpenter's NodeRepair feature gate (alpha, off by default), when it is on, replaces the node in " +
				"about 20m (NetworkingReady False since 2026-08-21T11:50:00Z, tolerated 30m)"),
		},
		{
			name: "NetworkingReady False for 45 minutes: past the window",
			edit: func(s *snapshot.Snapshot) {
				s.Nodes[0].Status.Conditions = []corev1.NodeCondition{{Type: "NetworkingReady", Status: corev1.ConditionFalse,
					Reason: "InterfaceNotUp", Message: "ens6 is down", LastTransitionTime: metav1.NewTime(s.Taken.Add(-45 * time.Minute))}}
			},
			want: finding(`node conditions show its network is down: NetworkingReady=False reason InterfaceNotUp: "ens6 is down"` +
				"; NetworkingReady has been False since 2026-08-21T11:15:00Z, longer than the 30m Karpenter's node repair " +
				"tolerates: the node is still here, so self-managed Karpenter's NodeRepair feature gate (alpha) is off, or more " +
				"than 20% of the NodePool is unhealthy"),
		},
		{
			name: "a node no Karpenter manages: no repair window",
			edit: func(s *snapshot.Snapshot) {
				s.NodeClaims = nil
				s.Nodes[0].Status.Conditions = []corev1.NodeCondition{{Type: "NetworkingReady", Status: corev1.ConditionFalse,
					Reason: "InterfaceNotUp", Message: "ens6 is down", LastTransitionTime: metav1.NewTime(s.Taken.Add(-45 * time.Minute))}}
			},
			want: finding(`node conditions show its network is down: NetworkingReady=False reason InterfaceNotUp: "ens6 is down"`),
		},
		{name: "NotReady for another cause is silent", edit: conditions(corev1.NodeCondition{
			Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady", Message: "PLEG is not healthy: pleg was last seen active 3m0s ago",
		})},
		{name: "a lost kubelet is silent", edit: conditions(corev1.NodeCondition{
			Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.",
		})},
		{name: "NetworkUnavailable False is silent", edit: conditions(corev1.NodeCondition{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse})},
		{name: "a non-EC2 node is silent", edit: edits(conditions(corev1.NodeCondition{
			Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady", Message: cniMessage,
		}), func(s *snapshot.Snapshot) {
			s.Nodes[0].Spec.ProviderID = "kind://docker/kind/kind-worker"
			s.Nodes[0].Labels = nil
		})},
	})
}

// An EKS Auto Mode node is repaired by EKS node auto repair, on by default there: the finding
// says so, and never that Karpenter's feature gate is off.
func TestNodeNetworkNotReadyAutoModeRepair(t *testing.T) {
	networkingFalseFor := func(reason, message string, since time.Duration) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.Nodes[0].Status.Conditions = []corev1.NodeCondition{{Type: "NetworkingReady", Status: corev1.ConditionFalse,
				Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(s.Taken.Add(-since))}}
		}
	}
	networkingFalse := func(since time.Duration) func(*snapshot.Snapshot) {
		return networkingFalseFor("InterfaceNotUp", "Interface eth1 is not up", since)
	}
	finding := func(msg string) []Finding {
		return []Finding{{ID: "node-network-not-ready", Severity: Critical, Node: autoNode, Resource: "node/" + autoNode,
			Message: `node conditions show its network is down: NetworkingReady=False reason InterfaceNotUp: "Interface eth1 ` +
				`is not up"` + msg,
			Remedy: "EKS Auto Mode runs the node's CNI itself: check that the node's security groups let it reach the cluster " +
				"endpoint (VPC Reachability Analyzer from the instance to the kubernetes endpoint IPs on TCP 443), that its subnet " +
				"routes to the endpoint and to AWS APIs, and collect the node's logs with a NodeDiagnostic resource " +
				"(nodediagnostics.eks.amazonaws.com)"}}
	}
	runCasesOver(t, autoHealthy, nodeNetworkNotReady, []checkCase{
		{name: "a healthy Auto Mode node is silent"},
		{
			name: "NPANotRunning leaves the network up: network-policy-not-enforced reports it",
			edit: networkingFalseFor("NPANotRunning", "NPA is not running on this Auto Mode node", 10*time.Minute),
		},
		{
			name: "inside the window: EKS node auto repair replaces it",
			edit: networkingFalse(10 * time.Minute),
			want: finding("; EKS node auto repair (on by default on EKS Auto Mode) replaces the node in about 20m (NetworkingReady " +
				"False since 2026-08-21T11:50:00Z, tolerated 30m)"),
		},
		{
			name: "past the window: held back, not a feature gate",
			edit: networkingFalse(45 * time.Minute),
			want: finding("; NetworkingReady has been False since 2026-08-21T11:15:00Z, longer than the 30m after which EKS node " +
				"auto repair (on by default on EKS Auto Mode) replaces the node: the node is still here, so EKS has held the repair " +
				"back (the events of the node, its NodeClaim and its NodePool say why)"),
		},
	})
}

func TestNodeClaimDrifted(t *testing.T) {
	drifted := func(reason, msg string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.NodeClaims[0].Conditions = []snapshot.Condition{{Type: "Ready", Status: "True"}, {Type: "Drifted", Status: "True", Reason: reason, Message: msg}}
		}
	}
	finding := func(msg string) []Finding {
		return []Finding{{
			ID: "nodeclaim-drifted", Severity: Info, Node: nodeA, Resource: "nodeclaim/default-abcde", Message: msg,
			Remedy: "nothing to do if the change was meant: Karpenter replaces the node as spec.disruption.budgets of NodePool " +
				"default allow (to replace the node now by deleting its NodeClaim default-abcde); otherwise revert the EC2NodeClass change",
			Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
		}}
	}
	runCheckCases(t, nodeClaimDrifted, []checkCase{
		{name: "no drift is silent"},
		{
			name: "subnet drift fires",
			edit: drifted("SubnetDrift", ""),
			want: finding("NodeClaim default-abcde is Drifted=True with reason SubnetDrift: the instance's subnet is no longer in " +
				"status.subnets of EC2NodeClass default; if the subnet should stay, add it back to spec.subnetSelectorTerms"),
		},
		{
			name: "security group drift fires with its message",
			edit: drifted("SecurityGroupDrift", "security groups changed"),
			want: finding(`NodeClaim default-abcde is Drifted=True with reason SecurityGroupDrift ("security groups changed"): ` +
				"the instance's security groups differ from status.securityGroups of EC2NodeClass default; if they should stay, " +
				"fix spec.securityGroupSelectorTerms"),
		},
		{
			name: "placement group drift fires",
			edit: drifted("PlacementGroupDrift", ""),
			want: finding("NodeClaim default-abcde is Drifted=True with reason PlacementGroupDrift: the NodeClaim's " +
				"karpenter.k8s.aws/placement-group-id label differs from the placement group of spec.placementGroupSelector of " +
				"EC2NodeClass default; if the old group should stay, point the selector back at it"),
		},
		{
			name: "placement group drift of a node in no group is left to placement-group-missing's warning",
			edit: edits(drifted("PlacementGroupDrift", ""), func(s *snapshot.Snapshot) {
				s.NodeClasses[0].PlacementGroupSelector = &snapshot.PlacementGroupSelector{Name: "training"}
			}),
		},
		{
			name: "placement group drift of a node in another group is left to placement-group-mismatch's warning",
			edit: edits(drifted("PlacementGroupDrift", ""), func(s *snapshot.Snapshot) {
				s.NodeClasses[0].PlacementGroupSelector = &snapshot.PlacementGroupSelector{Name: "training"}
				s.Instances[0].Placement = snapshot.Placement{GroupName: "old", GroupID: "pg-0old"}
				s.PlacementGroups = []snapshot.PlacementGroup{{ID: "pg-0old", Name: "old", Strategy: strategyCluster},
					{ID: "pg-0train", Name: "training", Strategy: strategyCluster}}
			}),
		},
		{name: "other drift reasons are silent", edit: drifted("NodeClassDrift", "")},
		{name: "AMI drift is silent", edit: drifted("AMIDrift", "")},
		{name: "Drifted False is silent", edit: func(s *snapshot.Snapshot) {
			s.NodeClaims[0].Conditions = []snapshot.Condition{{Type: "Drifted", Status: "False", Reason: "SubnetDrift"}}
		}},
		{name: "NodeClaims gap is silent", edit: edits(drifted("SubnetDrift", ""), func(s *snapshot.Snapshot) { s.NodeClaims = nil }, gap(snapshot.SourceNodeClaims))},
	})
}
