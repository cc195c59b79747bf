package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specNodeAgentNotRunning = &Spec{
	ID:       "node-agent-not-running",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyNodeAgents,
	Examines: []string{SubjectNode},
	Title:    "a networking or credential agent the node should run has no pod there, or its pod is not ready",
	FiresWhen: "the status of a DaemonSet of kube-system among aws-node, cilium, kube-proxy and eks-pod-identity-agent, " +
		"current for its spec, counts fewer pods ready than scheduled, so karpnet lists its pods (by the DaemonSet's selector, paged), and a node the " +
		"DaemonSet admits (nodeSelector, required node affinity, tolerations of the node's taints) and created more than " +
		"5 minutes ago has no pod of it, or one not ready for more than 5 minutes. Critical for a CNI, warning for " +
		"kube-proxy and the EKS Pod Identity agent",
	NotOn: "nodes and agent pods younger than 5 minutes (an agent starting on a new node); nodes the DaemonSet does not " +
		"admit (nodepool-agent-excluded reports a pool's taints); a CNI agent on a node whose conditions already say its " +
		"network is down (node-network-not-ready reports it); Windows, Fargate, hybrid and EKS Auto Mode nodes; nodes " +
		"being deleted; an agent whose pods karpnet could not read (a gap says why); a DaemonSet whose status the controller has not written for its spec; runs scoped to some nodes, " +
		"which read no agent",
	Why: "a node without its CNI never becomes Ready; without kube-proxy its pods reach no Service; without the Pod " +
		"Identity agent pods with an association get no credentials from 169.254.170.23 (aws/eks-pod-identity-agent#159)",
	Needs:  []string{snapshot.SourceAgents},
	Remedy: "read the events and logs of the node's agent pod, or the DaemonSet's events when it placed none",
	Sources: []string{
		"aws/eks-pod-identity-agent#159, terraform-aws-modules/terraform-aws-eks#3621, aws/karpenter-provider-aws#6359",
		"https://docs.aws.amazon.com/eks/latest/userguide/pod-id-agent-setup.html (the agent at 169.254.170.23 on each node)",
	},
	Verified: []Verified{
		{UpstreamKubernetes, "staging/src/k8s.io/api/apps/v1/types.go (DaemonSetStatus)",
			"desiredNumberScheduled counts the nodes that should run the daemon pod, numberReady those of them with a daemon pod Ready, observedGeneration the generation the controller last observed"},
		{UpstreamKubernetes, "staging/src/k8s.io/api/core/v1/toleration.go (Toleration.ToleratesTaint)",
			"a toleration matches a taint by effect, key and operator (Exists any value, Equal the same value)"},
		{UpstreamAWSDocs, "eks/latest/userguide/pod-id-agent-setup.html",
			"the EKS Pod Identity agent runs on each node and answers pods at 169.254.170.23 (IPv4) and [fd00:ec2::23] (IPv6)"},
	},
}

// nodeAgentNotRunning finds the nodes past their boot grace that a node agent DaemonSet admits
// but where its pod is missing, or not ready past the grace. Its pods are in the snapshot only
// when the DaemonSet's status counts some not ready.
var nodeAgentNotRunning = Check{
	Spec: specNodeAgentNotRunning,
	Run: func(x *Index) []Finding {
		var out []Finding
		for i := range x.Snapshot.Agents {
			a := &x.Snapshot.Agents[i]
			if !a.PodsRead || a.Scheduling == nil {
				continue
			}
			pods := map[string][]*snapshot.AgentPod{}
			for j := range a.Pods {
				pods[a.Pods[j].Node] = append(pods[a.Pods[j].Node], &a.Pods[j])
			}
			startup := ""
			if a.Name == snapshot.AgentCilium {
				startup = x.Snapshot.Cilium.TaintKey()
			}
			for _, n := range x.checkedNodes() {
				if !n.EC2 || n.AutoMode() || n.Windows() || n.Initialising() || x.Snapshot.Taken.Sub(n.Node.CreationTimestamp.Time) < bootGrace {
					continue
				}
				if ok, _ := daemonSetAdmits(a.Scheduling, n, startup); !ok {
					continue
				}
				if agentCNI(a.Name) && slices.ContainsFunc(n.Node.Status.Conditions, networkConditionBad) {
					continue
				}
				msg := agentPodTrouble(x, a.Name, pods[n.Name()])
				if msg == "" {
					continue
				}
				f := Finding{
					Node:     n.Name(),
					Resource: nodeRef(n.Name()),
					Message:  fmt.Sprintf("%s; DaemonSet kube-system/%s is %s", msg, a.Name, agentRole(a.Name)),
					Remedy: fmt.Sprintf("read why in the events and logs of the node's pod of %s, or in the DaemonSet's events "+
						"when it has none; the DaemonSet's status counts %s", a.Name, agentCounts(a)),
					Commands: agentReadCommands(a.Name, pods[n.Name()]),
				}
				if !agentCNI(a.Name) {
					f.Severity = Warning
				}
				out = append(out, f)
			}
		}
		return out
	},
}

// agentPodTrouble says what is wrong with a node's pods of agent name: none, or none ready for
// longer than bootGrace; "" when one is ready or one not ready is still within the grace.
func agentPodTrouble(x *Index, name string, pods []*snapshot.AgentPod) string {
	if len(pods) == 0 {
		return fmt.Sprintf("no pod of %s runs on the node", name)
	}
	var bad []string
	for _, p := range pods {
		if p.Ready || !p.Created.IsZero() && x.Snapshot.Taken.Sub(p.Created) < bootGrace {
			return ""
		}
		s := fmt.Sprintf("%s (%s", p.Name, strings.ToLower(cmpOr(p.Phase, "phase unknown")))
		if p.Reason != "" {
			s += ", " + p.Reason
		}
		if !p.Created.IsZero() {
			s += ", created " + ago(x.Snapshot.Taken.Sub(p.Created)) + " ago"
		}
		bad = append(bad, s+")")
	}
	return fmt.Sprintf("the node's pod of %s is not ready: %s", name, strings.Join(bad, ", "))
}

// agentReadCommands are the reads that say why a node's agent pod is not ready (its events and
// logs), or why the DaemonSet placed none (its events).
func agentReadCommands(name string, pods []*snapshot.AgentPod) []Command {
	if len(pods) == 0 {
		return []Command{{Argv: []string{"kubectl", "-n", snapshot.AgentNamespace, "describe", "daemonset", name}, ReadOnly: true}}
	}
	p := pods[0].Name
	return []Command{
		{Argv: []string{"kubectl", "-n", snapshot.AgentNamespace, "describe", "pod", p}, ReadOnly: true},
		{Argv: []string{"kubectl", "-n", snapshot.AgentNamespace, "logs", p, "--all-containers"}, ReadOnly: true},
	}
}

// agentCounts renders a DaemonSet's desired and ready counts.
func agentCounts(a *snapshot.Agent) string {
	if a.Desired == nil || a.Ready == nil {
		return "nothing current (the controller has not observed its spec)"
	}
	return fmt.Sprintf("%d ready of %d scheduled", *a.Ready, *a.Desired)
}

// cmpOr returns s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
