package diagnose

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// agent is a node agent DaemonSet with the given tolerations, scheduled on one node.
func agent(name string, tolerations ...corev1.Toleration) snapshot.Agent {
	desired, ready := int32(1), int32(1)
	return snapshot.Agent{Name: name, Scheduling: &snapshot.Scheduling{Tolerations: tolerations}, Desired: &desired, Ready: &ready}
}

var (
	tolerateAll = corev1.Toleration{Operator: corev1.TolerationOpExists}
	gpuTaint    = corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}
)

// withAgents sets the snapshot's node agents.
func withAgents(agents ...snapshot.Agent) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) { s.Agents, s.AgentsRead = agents, true }
}

func TestNodePoolAgentExcluded(t *testing.T) {
	gpuPool := func(s *snapshot.Snapshot) { s.NodePools[0].Taints = []corev1.Taint{gpuTaint} }
	arch := func(values ...string) *corev1.NodeAffinity {
		return &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: values}}}}}}
	}
	armPool := func(s *snapshot.Snapshot) {
		s.NodePools[0].Requirements = []snapshot.Requirement{{Key: corev1.LabelArchStable, Operator: "In", Values: []string{"arm64"}}}
	}
	withAffinity := func(a snapshot.Agent, aff *corev1.NodeAffinity) snapshot.Agent { a.Scheduling.Affinity = aff; return a }
	const podIdentityRemedy = "add a toleration of nvidia.com/gpu=true:NoSchedule to DaemonSet kube-system/eks-pod-identity-agent's pod " +
		"template (through the EKS add-on's configuration values or its Helm values, so an update keeps it), or tolerate every taint " +
		"with operator Exists as aws-node and kube-proxy do by default" + readinessRemark
	runCheckCases(t, nodePoolAgentExcluded, []checkCase{
		{name: "no agent read: silent", edit: gpuPool},
		{
			name: "a GPU taint the Pod Identity agent does not tolerate",
			edit: edits(gpuPool, withAgents(agent("aws-node", tolerateAll), agent("eks-pod-identity-agent",
				corev1.Toleration{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}))),
			want: []Finding{{ID: "nodepool-agent-excluded", Severity: Warning, Resource: "nodepool/default",
				Message: "DaemonSet kube-system/eks-pod-identity-agent cannot run on NodePool default's nodes: it does not tolerate " +
					"the pool's taint nvidia.com/gpu=true:NoSchedule; it is EKS Pod Identity credentials at 169.254.170.23: pods " +
					"with a Pod Identity association get none",
				Remedy: podIdentityRemedy}},
		},
		{name: "the GPU taint tolerated with operator Exists is clean", edit: edits(gpuPool, withAgents(agent("aws-node", tolerateAll),
			agent("eks-pod-identity-agent", corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists})))},
		{
			name: "aws-node not tolerating it is critical",
			edit: edits(gpuPool, withAgents(agent("aws-node", corev1.Toleration{Key: "nvidia.com/gpu", Value: "false", Effect: corev1.TaintEffectNoSchedule}))),
			want: []Finding{{ID: "nodepool-agent-excluded", Severity: Critical, Resource: "nodepool/default",
				Message: "DaemonSet kube-system/aws-node cannot run on NodePool default's nodes: it does not tolerate the pool's taint " +
					"nvidia.com/gpu=true:NoSchedule; it is the node's CNI: without it the node never becomes Ready and no pod gets an address",
				Remedy: "add a toleration of nvidia.com/gpu=true:NoSchedule to DaemonSet kube-system/aws-node's pod template (through the " +
					"EKS add-on's configuration values or its Helm values, so an update keeps it), or tolerate every taint with operator " +
					"Exists as aws-node and kube-proxy do by default" + readinessRemark}},
		},
		{name: "a startup taint is the agent's own business", edit: edits(withAgents(agent("eks-pod-identity-agent")), func(s *snapshot.Snapshot) {
			s.NodePools[0].StartupTaints = []corev1.Taint{gpuTaint}
		})},
		{name: "a PreferNoSchedule taint keeps nothing off", edit: edits(withAgents(agent("eks-pod-identity-agent")), func(s *snapshot.Snapshot) {
			s.NodePools[0].Taints = []corev1.Taint{{Key: "spot", Effect: corev1.TaintEffectPreferNoSchedule}}
		})},
		{name: "a DaemonSet that schedules nothing anywhere is silent", edit: edits(gpuPool, withAgents(func() snapshot.Agent {
			a := agent("eks-pod-identity-agent")
			*a.Desired = 0
			return a
		}()))},
		{
			name: "the only CNI's affinity rules out the pool: critical",
			edit: edits(armPool, withAgents(withAffinity(agent("aws-node", tolerateAll), arch("amd64")))),
			want: []Finding{{ID: "nodepool-agent-excluded", Severity: Critical, Resource: "nodepool/default",
				Message: "DaemonSet kube-system/aws-node cannot run on NodePool default's nodes: its required node affinity " +
					"(kubernetes.io/arch In [amd64]) rules out the pool's nodes; it is the node's CNI: without it the node never " +
					"becomes Ready and no pod gets an address",
				Remedy: "widen DaemonSet kube-system/aws-node's nodeSelector or node affinity to NodePool default's nodes, or run " +
					"another CNI there" + readinessRemark}},
		},
		{name: "an affinity the pool's open requirement may meet is clean", edit: edits(withAgents(withAffinity(agent("aws-node", tolerateAll), arch("amd64"))))},
		{name: "aws-node kept off a pool Cilium runs on is a split, not a fault", edit: edits(armPool, withAgents(
			withAffinity(agent("aws-node", tolerateAll), arch("amd64")), agent("cilium", tolerateAll)))},
		{name: "kube-proxy kept off by affinity is on purpose", edit: edits(armPool, withAgents(agent("aws-node", tolerateAll),
			withAffinity(agent("kube-proxy", tolerateAll), arch("amd64"))))},
		{name: "a Windows pool is silent", edit: edits(gpuPool, withAgents(agent("eks-pod-identity-agent")), func(s *snapshot.Snapshot) {
			s.NodePools[0].Labels = map[string]string{corev1.LabelOSStable: OSWindows}
		})},
	})
}

func TestNodeAgentNotRunning(t *testing.T) {
	taken := healthy().Taken
	pod := func(ready bool, age time.Duration, reason string) snapshot.AgentPod {
		return snapshot.AgentPod{Name: "eks-pod-identity-agent-x7k2p", Node: nodeA, Phase: "Running", Ready: ready,
			Created: taken.Add(-age), Reason: reason}
	}
	notReady := func(name string, pods ...snapshot.AgentPod) snapshot.Agent {
		a := agent(name, tolerateAll)
		*a.Ready = 0
		a.PodsRead, a.Pods = true, pods
		return a
	}
	runCheckCases(t, nodeAgentNotRunning, []checkCase{
		{name: "no pods read: silent", edit: withAgents(agent("aws-node", tolerateAll))},
		{
			name: "no aws-node pod on the node is critical",
			edit: withAgents(notReady("aws-node")),
			want: []Finding{{ID: "node-agent-not-running", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
				Message: "no pod of aws-node runs on the node; DaemonSet kube-system/aws-node is the node's CNI: without it the " +
					"node never becomes Ready and no pod gets an address",
				Remedy: "read why in the events and logs of the node's pod of aws-node, or in the DaemonSet's events when it has " +
					"none; the DaemonSet's status counts 0 ready of 1 scheduled",
				Commands: []Command{{Argv: []string{"kubectl", "-n", "kube-system", "describe", "daemonset", "aws-node"}, ReadOnly: true}}}},
		},
		{
			name: "the Pod Identity agent crashing past its grace warns",
			edit: withAgents(notReady("eks-pod-identity-agent", pod(false, 20*time.Minute, "CrashLoopBackOff"))),
			want: []Finding{{ID: "node-agent-not-running", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "the node's pod of eks-pod-identity-agent is not ready: eks-pod-identity-agent-x7k2p (running, " +
					"CrashLoopBackOff, created 20m ago); DaemonSet kube-system/eks-pod-identity-agent is EKS Pod Identity " +
					"credentials at 169.254.170.23: pods with a Pod Identity association get none",
				Remedy: "read why in the events and logs of the node's pod of eks-pod-identity-agent, or in the DaemonSet's events " +
					"when it has none; the DaemonSet's status counts 0 ready of 1 scheduled",
				Commands: []Command{
					{Argv: []string{"kubectl", "-n", "kube-system", "describe", "pod", "eks-pod-identity-agent-x7k2p"}, ReadOnly: true},
					{Argv: []string{"kubectl", "-n", "kube-system", "logs", "eks-pod-identity-agent-x7k2p", "--all-containers"}, ReadOnly: true},
				}}},
		},
		{name: "an agent pod starting within its grace is clean", edit: withAgents(notReady("eks-pod-identity-agent", pod(false, 2*time.Minute, "")))},
		{name: "a ready pod is clean", edit: withAgents(notReady("eks-pod-identity-agent", pod(true, time.Hour, "")))},
		{name: "a new node is clean", edit: edits(withAgents(notReady("aws-node")), func(s *snapshot.Snapshot) {
			s.Nodes[0].CreationTimestamp.Time = taken.Add(-time.Minute)
		})},
		{name: "a node the DaemonSet does not admit is the pool check's", edit: edits(withAgents(func() snapshot.Agent {
			a := notReady("eks-pod-identity-agent")
			a.Scheduling.Tolerations = nil
			return a
		}()), func(s *snapshot.Snapshot) { s.Nodes[0].Spec.Taints = []corev1.Taint{gpuTaint} })},
		{name: "a CNI on a node whose network is down is node-network-not-ready's", edit: edits(withAgents(notReady("aws-node")), func(s *snapshot.Snapshot) {
			s.Nodes[0].Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse,
				Reason: "KubeletNotReady", Message: "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady"}}
		})},
	})
}
