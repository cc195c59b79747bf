package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// taintReadinessPrefix marks the taints of the Node Readiness Controller, which Karpenter
// treats as temporary on a new node from v1.13.0 (kubernetes-sigs/karpenter #3025).
const taintReadinessPrefix = "readiness.k8s.io/"

// claimBurstWindow is how close together NodeClaims of one pool must be created to count as
// one burst in nodepool-startup-taint-missing's evidence.
const claimBurstWindow = time.Minute

var specNodePoolStartupTaintMissing = &Spec{
	ID:       "nodepool-startup-taint-missing",
	Severity: Warning,
	Family:   FamilyNodeAgents,
	Examines: []string{SubjectNodePool},
	Title:    "a CNI agent taints new nodes until it is ready, and the NodePool does not list the taint in startupTaints",
	FiresWhen: "Cilium's agent DaemonSet runs (kube-system/cilium) and a NodePool's `spec.template.spec.startupTaints` " +
		"does not list the taint its operator removes once the agent is ready (`node.cilium.io/agent-not-ready`, or " +
		"cilium-config's `agent-not-ready-taint-key`)",
	NotOn: "clusters without Cilium; a taint key under `readiness.k8s.io/` (Karpenter v1.13 and later treat those as " +
		"temporary); NodePools of Windows or EKS Auto Mode nodes, or whose labels the agent's nodeSelector excludes",
	Why: "Karpenter does not know the taint is temporary: when Cilium's operator taints a new node, Karpenter counts " +
		"the pending pods as not fitting it and launches more nodes; when nothing taints it, pods are scheduled " +
		"before the agent has set up the node's datapath and fail to start or lose traffic",
	Remedy: "add the taint to the NodePool's `spec.template.spec.startupTaints` with effect NoExecute, as Cilium and " +
		"Karpenter document",
	Scope: "the startup taint added to the NodePool as a JSON patch that creates the list or appends to it; startupTaints are part of the pool's hash, so every node of the pool drifts and is replaced, which the Affects counts",
	Sources: []string{
		"cilium/cilium pkg/defaults/node.go (AgentNotReadyNodeTaint), operator/watchers/node_taint.go (the operator removes it once the agent is ready)",
		"cilium/cilium install/kubernetes/cilium/templates/cilium-configmap.yaml (agent-not-ready-taint-key, set-cilium-node-taints)",
		"aws/karpenter-provider-aws website/content/en/docs/concepts/nodepools.md (Cilium Startup Taint)",
		"kubernetes-sigs/karpenter pkg/controllers/state/statenode.go (startup taints do not block scheduling), pkg/scheduling/taints.go (readiness.k8s.io/ taints, #3025)",
		"aws/karpenter-provider-aws#5048, cilium/cilium#29405, cilium/cilium#37477",
	},
	Verified: []Verified{
		{UpstreamCilium, "pkg/defaults/node.go (AgentNotReadyNodeTaint)",
			"the taint's default key is node.cilium.io/agent-not-ready"},
		{UpstreamCilium, "pkg/option/config.go (AgentNotReadyNodeTaintKeyName)",
			"cilium-config's agent-not-ready-taint-key changes the key"},
		{UpstreamCilium, "operator/watchers/node_taint.go (checkAndMarkNode, removeNodeTaint, setNodeTaint)",
			"the operator removes the taint by key once the node's Cilium pod runs, and sets it (NoSchedule) on a node whose Cilium pod is scheduled but not running and that has no taint of that key"},
		{UpstreamCilium, "install/kubernetes/cilium/templates/cilium-configmap.yaml (remove-cilium-node-taints, set-cilium-node-taints)",
			"set-cilium-node-taints is written when operator.setNodeTaints is true, or unset with operator.removeNodeTaints (values.yaml: removeNodeTaints true, setNodeTaints unset): both on by default"},
		{UpstreamKarpenter, "website/content/en/docs/concepts/nodepools.md (Cilium Startup Taint)",
			"Karpenter documents node.cilium.io/agent-not-ready=true:NoExecute in startupTaints; without it Karpenter keeps launching nodes for pods the taint keeps off"},
		{UpstreamKarpenterCore, "pkg/apis/v1/nodepool.go (NodeClaimTemplateSpec.StartupTaints, NodePool.Hash)",
			"startupTaints is an atomic list with omitempty (absent when empty, so a JSON patch must create it), and is part of the template hash, so changing it drifts the pool's NodeClaims"},
	},
}

// nodePoolStartupTaintMissing finds the NodePools that do not list, among their startup
// taints, the taint Cilium's operator removes from a node once the agent on it is ready.
// Karpenter then either sees the taint on its new node and launches more nodes for the pods
// that do not tolerate it, or, when nothing puts the taint on, lets pods land before the
// datapath works. The evidence: the pool's nodes that carry the taint now, and its NodeClaims
// created close together.
var nodePoolStartupTaintMissing = Check{
	Spec: specNodePoolStartupTaintMissing,
	Run: func(x *Index) []Finding {
		c := x.Snapshot.Cilium
		if c == nil {
			return nil
		}
		key := c.TaintKey()
		if strings.HasPrefix(key, taintReadinessPrefix) {
			return nil
		}
		hasKey := func(t corev1.Taint) bool { return t.Key == key }
		// The pools' tainted nodes and NodeClaims' creation times, gathered in one pass each.
		tainted, created := map[string][]string{}, map[string][]time.Time{}
		for _, n := range x.Nodes {
			if slices.ContainsFunc(n.Node.Spec.Taints, hasKey) {
				tainted[n.PoolName] = append(tainted[n.PoolName], n.Name())
			}
		}
		for i := range x.Snapshot.NodeClaims {
			if cl := &x.Snapshot.NodeClaims[i]; !cl.Created.IsZero() {
				created[cl.NodePool()] = append(created[cl.NodePool()], cl.Created)
			}
		}
		var out []Finding
		for _, name := range sortedKeys(x.NodePools) {
			p := x.NodePools[name]
			if slices.ContainsFunc(p.StartupTaints, hasKey) || !ciliumRunsInPool(c, p) {
				continue
			}
			msg := fmt.Sprintf("Cilium's operator removes the taint %s from a node once the agent on it is ready, and NodePool %s "+
				"does not list it in spec.template.spec.startupTaints: Karpenter counts pending pods as not fitting a new node "+
				"that carries it and launches more, or schedules pods before the node's datapath works", key, p.Name)
			if slices.ContainsFunc(p.Taints, hasKey) {
				msg += "; the pool lists it in spec.template.spec.taints, which Karpenter expects pods to tolerate"
			}
			if ev := startupTaintEvidence(tainted[p.Name], created[p.Name]); ev != "" {
				msg += "; " + ev
			}
			out = append(out, Finding{
				Resource: "nodepool/" + p.Name,
				Message:  msg,
				Remedy: fmt.Sprintf("add the taint %s with effect NoExecute to NodePool %s's spec.template.spec.startupTaints, "+
					"as Cilium and Karpenter document", key, p.Name),
				Commands: []Command{startupTaintPatch(x, p, key)},
			})
		}
		return out
	},
}

// startupTaintPatch is the kubectl JSON patch that adds the taint key (value true, effect
// NoExecute) to pool p's startup taints: it creates the list when the pool has none, and
// appends to it otherwise, so that the patch applies to the NodePool as it is. The patch is
// encoded by encoding/json and passed as one argument. startupTaints is part of the NodePool's
// hash, so Karpenter marks the pool's NodeClaims drifted and replaces its nodes.
func startupTaintPatch(x *Index, p *snapshot.NodePool, key string) Command {
	taint := map[string]string{"key": key, "value": "true", "effect": string(corev1.TaintEffectNoExecute)}
	op := map[string]any{"op": "add", "path": "/spec/template/spec/startupTaints/-", "value": taint}
	if len(p.StartupTaints) == 0 {
		op = map[string]any{"op": "add", "path": "/spec/template/spec/startupTaints", "value": []any{taint}}
	}
	return Command{
		Argv:    []string{"kubectl", "patch", "nodepool", p.Name, "--type", "json", "-p", jsonArg([]any{op})},
		Changes: "nodepool/" + p.Name,
		Affects: "the NodePool's nodes drift and Karpenter replaces them: " +
			nodesAffected(x, "nodepool/"+p.Name, func(n *NodeInfo) bool { return n.PoolName == p.Name }),
	}
}

// ciliumRunsInPool reports whether Cilium's agent runs on the pool's nodes: not on Windows
// nodes or EKS Auto Mode nodes, and not where a pool label or a one-value requirement
// contradicts the agent's nodeSelector.
func ciliumRunsInPool(c *snapshot.Cilium, p *snapshot.NodePool) bool {
	if p.NodeClassRef.Group == snapshot.AutoModeGroup {
		return false
	}
	known := map[string]string{}
	for _, r := range p.Requirements {
		if r.Operator == string(corev1.NodeSelectorOpIn) && len(r.Values) == 1 {
			known[r.Key] = r.Values[0]
		}
	}
	for k, v := range p.Labels {
		known[k] = v
	}
	if known[corev1.LabelOSStable] == OSWindows {
		return false
	}
	if c.Scheduling != nil {
		for k, v := range c.Scheduling.NodeSelector {
			if got, ok := known[k]; ok && got != v {
				return false
			}
		}
	}
	return true
}

// startupTaintEvidence says which of a pool's nodes carry the taint now (tainted, in name
// order), and the largest number of its NodeClaims created within claimBurstWindow of one
// another (when 3 or more).
func startupTaintEvidence(tainted []string, created []time.Time) string {
	slices.SortFunc(created, func(a, b time.Time) int { return a.Compare(b) })
	burst, at := 0, time.Time{}
	for i, j := 0, 0; j < len(created); j++ {
		for created[j].Sub(created[i]) > claimBurstWindow {
			i++
		}
		if j-i+1 > burst {
			burst, at = j-i+1, created[i]
		}
	}
	var parts []string
	if len(tainted) > 0 {
		parts = append(parts, fmt.Sprintf("%d of its nodes %s the taint now (%s)", len(tainted),
			plural(len(tainted), "carries", "carry"), abbreviate(tainted, 3)))
	}
	if burst >= 3 {
		parts = append(parts, fmt.Sprintf("%d of its NodeClaims were created within a minute of %s", burst,
			at.UTC().Format(time.RFC3339)))
	}
	return strings.Join(parts, "; ")
}
