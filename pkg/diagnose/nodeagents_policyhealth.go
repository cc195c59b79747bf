package diagnose

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// agentRestartsWorthNoting is how many restarts of a ready policy agent are worth a note: one
// or two follow a node's boot or an aws-node update.
const agentRestartsWorthNoting = 3

var specPolicyAgentUnhealthy = &Spec{
	ID:       "network-policy-agent-unhealthy",
	Severity: Warning,
	Lower:    []Severity{Info},
	Family:   FamilyNodeAgents,
	Needs:    []string{snapshot.SourceAWSNodePods},
	Examines: []string{SubjectNode},
	Title:    "the network policy agent is not ready, or keeps restarting, on a node where policies exist",
	FiresWhen: "network policies exist, aws-node's `aws-eks-nodeagent` runs with `--enable-network-policy=true`, and on a " +
		"node past its first minutes the container is not ready (warning) or is ready after " +
		fmt.Sprint(agentRestartsWorthNoting) + " or more restarts (info)",
	NotOn: "clusters without policies or with the agent off (aws-node's pods are not read then); nodes in their first " +
		"minutes; nodes being deleted; an agent that restarted once or twice",
	Why: "the agent enforces the policies on its node and serves the socket the CNI plugin calls for every new pod: while " +
		"it is down the node's pods are not policed, and with a network policy mode set new pods fail to start",
	Remedy: "read the container's log (`kubectl logs -c aws-eks-nodeagent --previous`); a VPC CNI and agent pair that " +
		"cannot talk is network-policy-agent-version-mismatch",
	Sources: []string{
		"aws/aws-network-policy-agent main.go (exits when ipamd gives no network policy mode; readiness on its gRPC socket)",
		"aws/amazon-vpc-cni-k8s cmd/routed-eni-cni-plugin/cni.go (every pod's ADD calls the agent when a mode is set)",
		"ministryofjustice/cloud-platform#8281",
	},
	Verified: append(versionFactsVerified(agentSocketSince), Verified{UpstreamPolicyAgent,
		"main.go (AddReadyzCheck grpc-socket)", "the agent's readiness and liveness check its gRPC socket npa.sock, which it " +
			"serves whether or not network policy is enabled"}),
}

// policyAgentUnhealthy finds, where network policies exist and aws-node's agent enforces
// them, a node whose aws-eks-nodeagent container is not ready or keeps restarting: the node's
// pods go unpoliced while it is down, and with a network policy mode set the CNI plugin fails
// every new pod that it cannot register with the agent.
var policyAgentUnhealthy = Check{
	Spec: specPolicyAgentUnhealthy,
	Run: func(x *Index) []Finding {
		s := x.Snapshot
		policies, total := policiesText(s.NetworkPolicies)
		if policies == "" || s.AWSNode == nil || s.AWSNode.NodeAgent == nil || !s.AWSNode.NodeAgent.NetworkPolicy {
			return nil
		}
		byNode := map[string]*NodeInfo{}
		for _, n := range x.checkedNodes() {
			byNode[n.Name()] = n
		}
		var out []Finding
		for _, p := range s.PolicyAgentPods {
			n, a := byNode[p.Node], p.Agent
			if n == nil || a == nil || n.Initialising() {
				continue
			}
			state := agentStateText(a)
			f := Finding{Node: n.Name(), Resource: nodeRef(n.Name()),
				Remedy: "read the agent's log from its last run (the read-only command); if it cannot reach ipamd, see " +
					"network-policy-agent-version-mismatch; replace the node if the agent does not come back",
				Commands: []Command{{Argv: []string{"kubectl", "-n", "kube-system", "logs", p.Name, "-c",
					snapshot.NodeAgentContainer, "--previous"}, ReadOnly: true}}}
			switch {
			case !a.Ready:
				f.Message = fmt.Sprintf("the network policy agent (aws-eks-nodeagent in pod %s) is not ready%s: %s %s not "+
					"enforced for the node's pods", p.Name, state, policies, plural(total, "is", "are"))
				if mode := s.AWSNode.Setting(snapshot.EnvNetworkPolicyMode, ""); mode != "" && mode != "none" {
					f.Message += fmt.Sprintf(", and with %s=%s the CNI plugin fails new pods it cannot register with the agent",
						snapshot.EnvNetworkPolicyMode, mode)
				}
			case a.Restarts >= agentRestartsWorthNoting:
				f.Severity = Info
				f.Message = fmt.Sprintf("the network policy agent (aws-eks-nodeagent in pod %s) is ready but has restarted%s: "+
					"while it is down %s %s not enforced for the node's pods", p.Name, state, policies, plural(total, "is", "are"))
			default:
				continue
			}
			out = append(out, f)
		}
		return out
	},
}

// agentStateText says how the container fares: " (CrashLoopBackOff; 12 restarts, the last run
// ended Error, exit code 1)", or "" with nothing to say.
func agentStateText(a *snapshot.ContainerState) string {
	var parts []string
	if a.Waiting != "" {
		parts = append(parts, "waiting: "+a.Waiting)
	}
	if a.Restarts > 0 {
		r := countText(a.Restarts, "restart", "restarts")
		if a.LastExit != "" {
			r += fmt.Sprintf(", the last run ended %s (exit code %d)", a.LastExit, a.ExitCode)
		}
		parts = append(parts, r)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
