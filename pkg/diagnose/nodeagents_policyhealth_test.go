package diagnose

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestPolicyAgentUnhealthy(t *testing.T) {
	on := func(s *snapshot.Snapshot) {
		s.AWSNode.NodeAgent = &snapshot.NodeAgent{Image: "aws-network-policy-agent:v1.4.1", NetworkPolicy: true}
		s.AWSNode.Env[snapshot.EnvNetworkPolicyMode] = "standard"
		s.NetworkPolicies = []snapshot.PolicyCount{{Kind: "NetworkPolicy", Count: 1, Names: []string{"shop/deny-all"}}}
	}
	agent := func(st snapshot.ContainerState) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.PolicyAgentPods = []snapshot.SystemPod{{Name: "aws-node-x7k2p", Node: nodeA, Phase: "Running", Ready: st.Ready, Agent: &st}}
		}
	}
	logs := []Command{{Argv: []string{"kubectl", "-n", "kube-system", "logs", "aws-node-x7k2p", "-c", "aws-eks-nodeagent", "--previous"}, ReadOnly: true}}
	const remedy = "read the agent's log from its last run (the read-only command); if it cannot reach ipamd, see " +
		"network-policy-agent-version-mismatch; replace the node if the agent does not come back"
	crash := snapshot.ContainerState{Waiting: "CrashLoopBackOff", Restarts: 12, LastExit: "Error", ExitCode: 2}
	runCheckCases(t, policyAgentUnhealthy, []checkCase{
		{name: "no agent pod read is silent", edit: on},
		{name: "a ready agent is healthy", edit: edits(on, agent(snapshot.ContainerState{Ready: true, Restarts: 1}))},
		{name: "no policy: silent", edit: edits(on, agent(crash), func(s *snapshot.Snapshot) { s.NetworkPolicies = nil })},
		{name: "the agent off: silent", edit: edits(on, agent(crash), func(s *snapshot.Snapshot) { s.AWSNode.NodeAgent.NetworkPolicy = false })},
		{name: "a booting node is given its grace", edit: edits(on, agent(crash), func(s *snapshot.Snapshot) {
			s.Nodes[0].CreationTimestamp = metav1.NewTime(s.Taken.Add(-time.Minute))
			s.NodeClaims = nil
		})},
		{
			name: "a crash-looping agent is a warning",
			edit: edits(on, agent(crash)),
			want: []Finding{{ID: "network-policy-agent-unhealthy", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "the network policy agent (aws-eks-nodeagent in pod aws-node-x7k2p) is not ready (waiting: " +
					"CrashLoopBackOff; 12 restarts, the last run ended Error (exit code 2)): 1 NetworkPolicy (shop/deny-all) " +
					"is not enforced for the node's pods, and with NETWORK_POLICY_ENFORCING_MODE=standard the CNI plugin " +
					"fails new pods it cannot register with the agent",
				Remedy: remedy, Commands: logs}},
		},
		{
			name: "a ready agent that keeps restarting is information",
			edit: edits(on, agent(snapshot.ContainerState{Ready: true, Restarts: 4, LastExit: "OOMKilled", ExitCode: 137})),
			want: []Finding{{ID: "network-policy-agent-unhealthy", Severity: Info, Node: nodeA, Resource: "node/" + nodeA,
				Message: "the network policy agent (aws-eks-nodeagent in pod aws-node-x7k2p) is ready but has restarted (4 " +
					"restarts, the last run ended OOMKilled (exit code 137)): while it is down 1 NetworkPolicy (shop/deny-all) " +
					"is not enforced for the node's pods",
				Remedy: remedy, Commands: logs}},
		},
	})
}
