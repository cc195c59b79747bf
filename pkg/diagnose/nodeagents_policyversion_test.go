package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestPolicyAgentVersionMismatch(t *testing.T) {
	const (
		cni1230   = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.23.0-eksbuild.1"
		cni1224   = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.22.4-eksbuild.1"
		agent141  = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon/aws-network-policy-agent:v1.4.1-eksbuild.1"
		agent135  = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon/aws-network-policy-agent:v1.3.5-eksbuild.1"
		agent150  = "aws-network-policy-agent:v1.5.0"
		remedy    = "run a paired release on both containers: VPC CNI 1.23.0 or later with agent 1.4.1 or later, as the vpc-cni add-on versions the read-only command lists and the aws-vpc-cni chart pair them; with the add-on, update it rather than either image, and remove an image set by hand on one container"
		newCNIWhy = "from VPC CNI 1.23.0 ipamd serves its gRPC API on the Unix socket /var/run/aws-node/ipamd.sock only, and agents before 1.4.1 dial TCP 127.0.0.1:50051"
	)
	pair := func(cni, agent string, on bool, mode string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.AWSNode.Image = cni
			s.AWSNode.NodeAgent = &snapshot.NodeAgent{Image: agent, NetworkPolicy: on}
			if mode != "" {
				s.AWSNode.Env[snapshot.EnvNetworkPolicyMode] = mode
			}
		}
	}
	cmds := []Command{{Argv: []string{"aws", "eks", "describe-addon-versions", "--addon-name", "vpc-cni"}, ReadOnly: true}}
	runCheckCases(t, policyAgentVersionMismatch, []checkCase{
		{name: "no agent container is silent"},
		{name: "VPC CNI 1.23.0 with agent 1.4.1 is paired", edit: pair(cni1230, agent141, true, "standard")},
		{name: "VPC CNI 1.23.0 with a later agent is paired", edit: pair(cni1230, agent150, true, "standard")},
		{name: "VPC CNI 1.22.4 with agent 1.3.5 is paired", edit: pair(cni1224, agent135, true, "standard")},
		{name: "an agent image by digest is silent", edit: pair(cni1230, "aws-network-policy-agent@sha256:abc", true, "standard")},
		{
			name: "VPC CNI 1.23.0 with agent 1.3.5 and policies on is critical",
			edit: pair(cni1230, agent135, true, "standard"),
			want: []Finding{{ID: "network-policy-agent-version-mismatch", Severity: Critical, Resource: "daemonset/kube-system/aws-node",
				Message: "aws-node runs VPC CNI 1.23.0 (image " + cni1230 + ") with network policy agent 1.3.5 (image " + agent135 +
					"): " + newCNIWhy + "; with --enable-network-policy=true the agent exits at start without ipamd's network " +
					"policy mode on the 1 node aws-node runs on, and with NETWORK_POLICY_ENFORCING_MODE=standard the CNI plugin " +
					"calls the agent for every new pod: sandboxes fail with \"failed to setup network policy\"",
				Remedy: remedy, Commands: cmds}},
		},
		{
			name: "agent 1.4.1 beside VPC CNI 1.22.4 is critical too",
			edit: pair(cni1224, agent141, true, ""),
			want: []Finding{{ID: "network-policy-agent-version-mismatch", Severity: Critical, Resource: "daemonset/kube-system/aws-node",
				Message: "aws-node runs VPC CNI 1.22.4 (image " + cni1224 + ") with network policy agent 1.4.1 (image " + agent141 +
					"): agents from 1.4.1 dial ipamd on the Unix socket /var/run/aws-node/ipamd.sock, which VPC CNI before " +
					"1.23.0 does not serve (it listens on TCP 127.0.0.1:50051); with --enable-network-policy=true the agent " +
					"exits at start without ipamd's network policy mode on the 1 node aws-node runs on",
				Remedy: remedy, Commands: cmds}},
		},
		{
			name: "a mismatch with policies off is info",
			edit: pair(cni1230, agent135, false, "standard"),
			want: []Finding{{ID: "network-policy-agent-version-mismatch", Severity: Info, Resource: "daemonset/kube-system/aws-node",
				Message: "aws-node runs VPC CNI 1.23.0 (image " + cni1230 + ") with network policy agent 1.3.5 (image " + agent135 +
					"): " + newCNIWhy + "; the agent runs with --enable-network-policy=false and never calls ipamd, so nothing " +
					"breaks until network policies are turned on, when it exits at start on the 1 node aws-node runs on",
				Remedy: remedy, Commands: cmds}},
		},
		{
			name: "aws-node on no node is silent",
			edit: edits(pair(cni1230, agent135, true, "standard"), func(s *snapshot.Snapshot) {
				s.AWSNode.Scheduling.NodeSelector = map[string]string{"io.cilium/aws-node-enabled": "true"}
			}),
		},
	})
}
