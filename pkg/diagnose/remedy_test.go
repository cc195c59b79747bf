package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestReplaceNode(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-5.ec2.internal"}}
	claim := &snapshot.NodeClaim{}
	claim.Name = "default-x7k2p"
	const name = "ip-10-0-1-5.ec2.internal"
	drain := Command{Argv: []string{"kubectl", "drain", name, "--ignore-daemonsets", "--delete-emptydir-data"},
		Changes: "node/" + name + ": cordoned, its pods evicted"}
	for _, tc := range []struct {
		name  string
		n     *NodeInfo
		why   string
		prose string
		cmds  []Command
	}{
		{"Karpenter node with its NodeClaim", &NodeInfo{Node: node, Claim: claim, PoolName: "default"}, "so it takes the new subnet",
			"replace the node so it takes the new subnet by deleting its NodeClaim default-x7k2p", claimDeleted("default-x7k2p", name, "Karpenter")},
		{"Auto Mode node with its NodeClaim", &NodeInfo{Node: node, Claim: claim, PoolName: "general-purpose", ClassKind: snapshot.KindNodeClass}, "",
			"replace the node by deleting its NodeClaim default-x7k2p", claimDeleted("default-x7k2p", name, "EKS Auto Mode")},
		{"Karpenter node whose NodeClaim is unknown", &NodeInfo{Node: node, PoolName: "default"}, "",
			"replace the node by deleting the Node (Karpenter drains it and terminates its instance)", nodeDeleted(name, "Karpenter")},
		{"Auto Mode node whose NodeClaim is unknown", &NodeInfo{Node: node, PoolName: "system", ClassKind: snapshot.KindNodeClass}, "",
			"replace the node by deleting the Node (EKS Auto Mode drains it and terminates its instance)", nodeDeleted(name, "EKS Auto Mode")},
		{"node group node", &NodeInfo{Node: node}, "now", "replace the node now: drain it, then terminate its instance", []Command{drain}},
		{"node group node whose instance is known", &NodeInfo{Node: node, Instance: &snapshot.Instance{ID: "i-0abc"}}, "",
			"replace the node: drain it, then terminate its instance", []Command{drain,
				{Argv: []string{"aws", "ec2", "terminate-instances", "--instance-ids", "i-0abc"}, Changes: "instance/i-0abc (node/" + name + ")"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := replaceNodeProse(tc.n, tc.why); got != tc.prose {
				t.Errorf("replaceNodeProse = %q, want %q", got, tc.prose)
			}
			if diff := cmp.Diff(tc.cmds, replaceNodeCommands(tc.n)); diff != "" {
				t.Errorf("replaceNodeCommands (-want +got):\n%s", diff)
			}
		})
	}
}

// claimDeleted is the command that replaces a node by deleting its NodeClaim, as
// replaceNodeCommands gives it for a node launched by launcher.
func claimDeleted(claim, node, launcher string) []Command {
	return []Command{{Argv: []string{"kubectl", "delete", "nodeclaim", claim},
		Changes: "nodeclaim/" + claim + " and node/" + node + ": " + launcher + " drains the node and terminates its instance"}}
}

// nodeDeleted is the command that replaces a node of a NodePool whose NodeClaim is unknown.
func nodeDeleted(node, launcher string) []Command {
	return []Command{{Argv: []string{"kubectl", "delete", "node", node},
		Changes: "node/" + node + ": " + launcher + " drains it and terminates its instance"}}
}
