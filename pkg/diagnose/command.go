package diagnose

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// jsonArg encodes v as JSON for one argument of a command (a JSON patch, a merge patch, an
// add-on's configuration values), so that the values in it are escaped by encoding/json.
func jsonArg(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Only maps, slices and strings are passed; they always encode.
		panic("diagnose: encoding a command's JSON argument: " + err.Error())
	}
	return string(b)
}

// nodesAffected says how many of the nodes match keep and of which instance types, e.g.
// "3 nodes (c5.large, m5.large)", for a command's Affects; "no node now" when none does. set
// names the nodes keep selects ("class/EC2NodeClass/default"): the answer is counted once per
// set and analysis, however many findings' commands reach that set.
func nodesAffected(x *Index, set string, keep func(n *NodeInfo) bool) string {
	x.reachMu.Lock()
	defer x.reachMu.Unlock()
	if s, ok := x.reach[set]; ok {
		return s
	}
	s := countNodes(x, keep)
	if x.reach == nil {
		x.reach = map[string]string{}
	}
	x.reach[set] = s
	return s
}

// countNodes is nodesAffected's count, made afresh.
func countNodes(x *Index, keep func(n *NodeInfo) bool) string {
	count, types := 0, map[string]bool{}
	for _, n := range x.Nodes {
		if !keep(n) {
			continue
		}
		count++
		if t := n.Node.Labels[corev1.LabelInstanceTypeStable]; t != "" {
			types[t] = true
		}
	}
	if count == 0 {
		return "no node now"
	}
	s := fmt.Sprintf("%d %s", count, plural(count, "node", "nodes"))
	if len(types) > 0 {
		s += " (" + strings.Join(sortedKeys(types), ", ") + ")"
	}
	return s
}

// groupAffects says which nodes a rule added to security group id reaches: the nodes whose
// instance is in the group, or has an interface in it.
func groupAffects(x *Index, id string) string {
	in := func(refs []snapshot.GroupRef) bool {
		return slices.ContainsFunc(refs, func(g snapshot.GroupRef) bool { return g.ID == id })
	}
	return "every interface in " + id + ": " + nodesAffected(x, "securitygroup/"+id, func(n *NodeInfo) bool {
		if n.Instance != nil && in(n.Instance.SecurityGroups) {
			return true
		}
		return slices.ContainsFunc(n.instanceENIs(), func(e snapshot.ENI) bool { return in(e.SecurityGroups) })
	})
}

// selfRuleCommands are the AWS CLI commands that let security group id admit all traffic in
// from and out to itself; the egress rule's permissions are encoded by encoding/json.
func selfRuleCommands(x *Index, id string) []Command {
	affects := groupAffects(x, id)
	return []Command{
		{Argv: []string{"aws", "ec2", "authorize-security-group-ingress", "--group-id", id, "--protocol", "-1", "--source-group", id},
			Changes: "securitygroup/" + id, Affects: affects},
		{Argv: []string{"aws", "ec2", "authorize-security-group-egress", "--group-id", id, "--ip-permissions",
			jsonArg([]any{map[string]any{"IpProtocol": "-1", "UserIdGroupPairs": []any{map[string]string{"GroupId": id}}}})},
			Changes: "securitygroup/" + id, Affects: affects},
	}
}

// classReach says whom a change to the node's class reaches, for a remedy that proposes one in
// prose: "EC2NodeClass NAME serves 3 nodes (m5.large, m5.xlarge)".
func classReach(x *Index, n *NodeInfo) string { return classReachOf(x, n.ClassKind, n.ClassName) }

// classReachOf is classReach for the class of kind (EC2NodeClass or NodeClass) and name.
func classReachOf(x *Index, kind, name string) string {
	return kind + " " + name + " serves " + nodesAffected(x, "class/"+kind+"/"+name, func(m *NodeInfo) bool {
		return m.ClassName == name && m.ClassKind == kind
	})
}
