package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// agentRole says what a node loses without a node agent, for messages.
func agentRole(name string) string {
	switch name {
	case snapshot.AgentAWSNode, snapshot.AgentCilium:
		return "the node's CNI: without it the node never becomes Ready and no pod gets an address"
	case snapshot.AgentKubeProxy:
		return "Service routing: pods on the node cannot reach Services, the cluster's DNS among them"
	case snapshot.AgentPodIdentity:
		return "EKS Pod Identity credentials at 169.254.170.23: pods with a Pod Identity association get none"
	}
	return "a node agent"
}

// agentCNI reports whether the agent is a CNI (aws-node or Cilium's agent).
func agentCNI(name string) bool { return name == snapshot.AgentAWSNode || name == snapshot.AgentCilium }

// agentScheduled reports whether the DaemonSet schedules pods at all: its status, when current,
// counts some node.
func agentScheduled(a *snapshot.Agent) bool { return a.Desired == nil || *a.Desired > 0 }

const readinessRemark = "; to hold other pods off a new node until the agent is ready, list a readiness.k8s.io/ taint " +
	"in the NodePool's startupTaints (Karpenter v1.13 and later treat those as temporary) and have the Node Readiness " +
	"Controller remove it"

var specNodePoolAgentExcluded = &Spec{
	ID:       "nodepool-agent-excluded",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyNodeAgents,
	Examines: []string{SubjectNodePool},
	Title:    "a networking or credential DaemonSet of kube-system cannot run on a NodePool's nodes",
	FiresWhen: "a DaemonSet of kube-system among aws-node, cilium, kube-proxy and eks-pod-identity-agent does not tolerate a " +
		"taint of a NodePool's `spec.template.spec.taints` (NoSchedule or NoExecute; matched by Kubernetes' own " +
		"`Toleration.ToleratesTaint`), or, for a CNI when no other CNI DaemonSet admits the pool, its nodeSelector or " +
		"required node affinity contradicts the pool's labels and requirements. Critical for a CNI, warning for " +
		"kube-proxy and the EKS Pod Identity agent",
	NotOn: "startupTaints (temporary: the agent that removes them tolerates them, see nodepool-startup-taint-missing); " +
		"PreferNoSchedule taints; a DaemonSet that schedules no pod anywhere (status.desiredNumberScheduled 0); kube-proxy " +
		"and the Pod Identity agent kept off a pool by nodeSelector or affinity (a CNI that replaces kube-proxy, a pool " +
		"that uses no Pod Identity), and aws-node kept off a pool Cilium runs on; requirements the DaemonSet cannot be " +
		"judged against without the node (Gt, Lt, a key the pool leaves open); Windows and EKS Auto Mode pools",
	Why: "Karpenter launches nodes for pending pods that tolerate the pool's taints, but the DaemonSet controller places an " +
		"agent only where its own tolerations and affinity allow: a node without its CNI never becomes Ready and is " +
		"replaced again and again, without kube-proxy its pods reach no Service, and without the Pod Identity agent pods " +
		"with an association get no credentials (169.254.170.23 answers nothing)",
	Needs: []string{snapshot.SourceAgents},
	Remedy: "add a toleration of the taint to the DaemonSet (through the EKS add-on's configuration values or its Helm " +
		"values, so an update keeps it), or widen its node affinity",
	Sources: []string{
		"k8s.io/api core/v1 toleration.go (Toleration.ToleratesTaint)",
		"kubernetes-sigs/karpenter pkg/scheduling/taints.go (KnownEphemeralTaintKeyPrefixes: readiness.k8s.io/, #2934, #3025)",
		"terraform-aws-modules/terraform-aws-eks#3621, aws/karpenter-provider-aws#6359, aws/eks-pod-identity-agent#159",
		"https://docs.aws.amazon.com/eks/latest/userguide/pod-id-agent-setup.html (the agent at 169.254.170.23 on each node)",
	},
	Verified: []Verified{
		{UpstreamKubernetes, "staging/src/k8s.io/api/core/v1/toleration.go (Toleration.ToleratesTaint)",
			"a toleration matches a taint when its effect is empty or the same, its key empty or the same, and its operator Exists (any value) or Equal/empty (the same value); Lt and Gt compare numbers when comparison operators are on"},
		{UpstreamKarpenterCore, "pkg/scheduling/taints.go (KnownEphemeralTaintKeyPrefixes, IsKnownEphemeralTaint)",
			"taints whose key begins readiness.k8s.io/ (the Node Readiness Controller's) are ephemeral: Karpenter does not count them against pods while the node initialises"},
		{UpstreamKarpenterCore, "pkg/apis/v1/nodepool.go (NodeClaimTemplateSpec.Taints, StartupTaints)",
			"taints are put on every node of the pool for good; startupTaints are expected to be removed by something on the node"},
		{UpstreamAWSDocs, "eks/latest/userguide/pod-id-agent-setup.html",
			"the EKS Pod Identity agent runs on each node and answers pods at 169.254.170.23 (IPv4) and [fd00:ec2::23] (IPv6)"},
	},
}

// nodePoolAgentExcluded finds the NodePools whose nodes a networking or credential DaemonSet of
// kube-system cannot run on: a pool taint it does not tolerate, or, for a CNI, a nodeSelector or
// required node affinity that the pool's labels and requirements contradict while no other CNI
// admits the pool.
var nodePoolAgentExcluded = Check{
	Spec: specNodePoolAgentExcluded,
	Run: func(x *Index) []Finding {
		agents := x.Snapshot.Agents
		var out []Finding
		for _, name := range sortedKeys(x.NodePools) {
			p := x.NodePools[name]
			if p.NodeClassRef.Group == snapshot.AutoModeGroup || poolKnownLabels(p)[corev1.LabelOSStable] == OSWindows {
				continue
			}
			cniAdmits := slices.ContainsFunc(agents, func(a snapshot.Agent) bool {
				return agentCNI(a.Name) && agentScheduled(&a) && a.Scheduling != nil && agentPlacementExcludes(a.Scheduling, p) == ""
			})
			for i := range agents {
				a := &agents[i]
				if a.Scheduling == nil || !agentScheduled(a) {
					continue
				}
				why := agentPlacementExcludes(a.Scheduling, p)
				placed := why == ""
				if !placed && (!agentCNI(a.Name) || cniAdmits) {
					continue // kept off on purpose, or another CNI covers the pool
				}
				var taints []string
				if placed {
					taints = untoleratedPoolTaints(a.Scheduling, p)
					if len(taints) == 0 {
						continue
					}
					why = fmt.Sprintf("it does not tolerate the pool's %s %s", plural(len(taints), "taint", "taints"), strings.Join(taints, ", "))
				}
				f := Finding{
					Resource: "nodepool/" + p.Name,
					Message: fmt.Sprintf("DaemonSet kube-system/%s cannot run on NodePool %s's nodes: %s; it is %s", a.Name, p.Name,
						why, agentRole(a.Name)),
				}
				if !agentCNI(a.Name) {
					f.Severity = Warning
				}
				if len(taints) > 0 {
					f.Remedy = fmt.Sprintf("add a toleration of %s to DaemonSet kube-system/%s's pod template (through the EKS "+
						"add-on's configuration values or its Helm values, so an update keeps it), or tolerate every taint with "+
						"operator Exists as aws-node and kube-proxy do by default", strings.Join(taints, ", "), a.Name)
				} else {
					f.Remedy = fmt.Sprintf("widen DaemonSet kube-system/%s's nodeSelector or node affinity to NodePool %s's "+
						"nodes, or run another CNI there", a.Name, p.Name)
				}
				f.Remedy += readinessRemark
				out = append(out, f)
			}
		}
		return out
	},
}

// poolKnownLabels are the labels every node of the pool carries: its template labels and its
// requirements' one-value In.
func poolKnownLabels(p *snapshot.NodePool) map[string]string {
	known := map[string]string{}
	for _, r := range p.Requirements {
		if r.Operator == string(corev1.NodeSelectorOpIn) && len(r.Values) == 1 {
			known[r.Key] = r.Values[0]
		}
	}
	for k, v := range p.Labels {
		known[k] = v
	}
	return known
}

// untoleratedPoolTaints are the pool's taints (NoSchedule or NoExecute, not the ones every
// DaemonSet tolerates) that no toleration of sched tolerates, as key=value:Effect.
func untoleratedPoolTaints(sched *snapshot.Scheduling, p *snapshot.NodePool) []string {
	var out []string
	for _, t := range p.Taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule || transientTaint(t.Key) {
			continue
		}
		if !slices.ContainsFunc(sched.Tolerations, func(tol corev1.Toleration) bool {
			// Lt and Gt are matched: the API server admits them only where the feature is on.
			return tol.ToleratesTaint(logr.Discard(), &t, true)
		}) {
			out = append(out, taintText(t))
		}
	}
	return out
}

// agentPlacementExcludes says how sched's nodeSelector or required node affinity rules out
// every node of the pool, judged on what the pool's labels and requirements fix; "" when they
// do not (or cannot be judged without the node).
func agentPlacementExcludes(sched *snapshot.Scheduling, p *snapshot.NodePool) string {
	for _, k := range sortedKeys(sched.NodeSelector) {
		req := corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{sched.NodeSelector[k]}}
		if poolContradicts(p, req) {
			return fmt.Sprintf("its nodeSelector %s=%s does not match the pool's nodes", k, sched.NodeSelector[k])
		}
	}
	aff := sched.Affinity
	if aff == nil || aff.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(aff.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		return ""
	}
	ns := aff.RequiredDuringSchedulingIgnoredDuringExecution
	for _, term := range ns.NodeSelectorTerms {
		if !slices.ContainsFunc(term.MatchExpressions, func(r corev1.NodeSelectorRequirement) bool { return poolContradicts(p, r) }) {
			return "" // a term the pool's nodes may meet
		}
	}
	return "its required node affinity (" + nodeSelectorText(ns) + ") rules out the pool's nodes"
}

// poolContradicts reports whether no node of the pool can meet the requirement, from the
// pool's template labels and requirements (In, NotIn, Exists, DoesNotExist); Gt, Lt and keys
// the pool leaves open are never contradicted.
func poolContradicts(p *snapshot.NodePool, r corev1.NodeSelectorRequirement) bool {
	allowed, set, absent := poolAllowed(p, r.Key)
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return absent || set && !slices.ContainsFunc(allowed, func(v string) bool { return slices.Contains(r.Values, v) })
	case corev1.NodeSelectorOpNotIn:
		return set && !slices.ContainsFunc(allowed, func(v string) bool { return !slices.Contains(r.Values, v) })
	case corev1.NodeSelectorOpExists:
		return absent
	case corev1.NodeSelectorOpDoesNotExist:
		return set
	}
	return false
}

// poolAllowed returns the values the pool's nodes may have for key (set when the pool fixes
// them: a template label or a requirement In), or absent when a requirement DoesNotExist rules
// the label out.
func poolAllowed(p *snapshot.NodePool, key string) (allowed []string, set, absent bool) {
	if v, ok := p.Labels[key]; ok {
		return []string{v}, true, false
	}
	for _, r := range p.Requirements {
		if r.Key != key {
			continue
		}
		switch r.Operator {
		case string(corev1.NodeSelectorOpIn):
			if set {
				allowed = slices.DeleteFunc(allowed, func(v string) bool { return !slices.Contains(r.Values, v) })
			} else {
				allowed, set = slices.Clone(r.Values), true
			}
		case string(corev1.NodeSelectorOpDoesNotExist):
			absent = true
		}
	}
	return allowed, set, absent
}
