package diagnose

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Small helpers the families share: counted words, sorted and abbreviated lists, resource
// names and lookups.

// plural returns one when n is 1 and many otherwise. It is the one place a word's number is
// chosen; countText puts the count in front.
func plural[N ~int | ~int32 | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// countText returns "1 thing" or "N things".
func countText[N ~int | ~int32 | ~int64](n N, one, many string) string {
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}

// abbreviate joins the first limit items and says how many more there are.
func abbreviate(items []string, limit int) string {
	if len(items) <= limit+1 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:limit], ", "), len(items)-limit)
}

// sortedUnique returns the distinct non-empty values of ss, sorted.
func sortedUnique(ss []string) []string {
	out := slices.DeleteFunc(slices.Clone(ss), func(s string) bool { return s == "" })
	slices.Sort(out)
	return slices.Compact(out)
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// nodeRef returns the resource name of a node, node/NAME.
func nodeRef(name string) string { return kinds.Ref(kinds.Node, name) }

// subnetRef returns the resource name of a subnet, subnet/ID.
func subnetRef(id string) string { return kinds.Ref(kinds.Subnet, id) }

// findCondition returns the condition of the given type, or nil.
func findCondition(conds []snapshot.Condition, conditionType string) *snapshot.Condition {
	for i := range conds {
		if conds[i].Type == conditionType {
			return &conds[i]
		}
	}
	return nil
}

// nodeZone returns the node's zone: its instance's, else its topology.kubernetes.io/zone label.
func nodeZone(n *NodeInfo) string {
	if n.Instance != nil && n.Instance.Zone != "" {
		return n.Instance.Zone
	}
	return n.Node.Labels[corev1.LabelTopologyZone]
}

// podsCapacity returns the node's status.capacity.pods, false when it advertises none.
func podsCapacity(n *NodeInfo) (int64, bool) {
	q, ok := n.Node.Status.Capacity[corev1.ResourcePods]
	if !ok {
		return 0, false
	}
	return q.Value(), true
}
