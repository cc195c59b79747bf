package diagnose

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestReplaceNodeRemedy(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-5.ec2.internal"}}
	claim := &snapshot.NodeClaim{}
	claim.Name = "default-x7k2p"
	for _, tc := range []struct {
		name string
		n    *NodeInfo
		why  string
		want string
	}{
		{"Karpenter node with its NodeClaim", &NodeInfo{Node: node, Claim: claim, PoolName: "default"}, "so it takes the new subnet",
			"replace the node so it takes the new subnet: kubectl delete nodeclaim default-x7k2p"},
		{"Auto Mode node with its NodeClaim", &NodeInfo{Node: node, Claim: claim, PoolName: "general-purpose", ClassKind: snapshot.KindNodeClass}, "",
			"replace the node: kubectl delete nodeclaim default-x7k2p"},
		{"Karpenter node whose NodeClaim is unknown", &NodeInfo{Node: node, PoolName: "default"}, "",
			"replace the node: kubectl delete node ip-10-0-1-5.ec2.internal (Karpenter drains it and terminates its instance)"},
		{"Auto Mode node whose NodeClaim is unknown", &NodeInfo{Node: node, PoolName: "system", ClassKind: snapshot.KindNodeClass}, "",
			"replace the node: kubectl delete node ip-10-0-1-5.ec2.internal (EKS Auto Mode drains it and terminates its instance)"},
		{"node group node", &NodeInfo{Node: node}, "now",
			"replace the node now: kubectl drain ip-10-0-1-5.ec2.internal --ignore-daemonsets --delete-emptydir-data, then terminate its instance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := replaceNodeRemedy(tc.n, tc.why); got != tc.want {
				t.Errorf("replaceNodeRemedy = %q, want %q", got, tc.want)
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
