package diagnose

import (
	"fmt"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specPolicyAgentVersionMismatch = &Spec{
	ID:       "network-policy-agent-version-mismatch",
	Severity: Critical,
	Lower:    []Severity{Info},
	Family:   FamilyNodeAgents,
	Needs:    []string{snapshot.SourceAWSNode},
	Examines: []string{SubjectDaemonSet},
	Title:    "aws-node pairs its VPC CNI with a network policy agent that cannot reach ipamd",
	FiresWhen: "the aws-node image is VPC CNI " + ipamdSocketSince + " or later and its `aws-eks-nodeagent` image is a " +
		"network policy agent before " + agentSocketSince + ", or the other way round (agent " + agentSocketSince +
		" or later beside a VPC CNI before " + ipamdSocketSince + "); critical when the agent runs with " +
		"`--enable-network-policy=true`, info when it runs with the flag off (harmless until it is turned on)",
	NotOn: "paired releases (VPC CNI 1.23.x with agent 1.4.1 or later; older pairs on both sides); images without a " +
		"version tag (a digest only); aws-node without the agent container; clusters where aws-node runs on no node",
	Why: "VPC CNI 1.23.0 moved ipamd's gRPC server from TCP 127.0.0.1:50051 to a Unix socket and agent 1.4.1 moved with " +
		"it: an agent on the other side cannot get the network policy mode from ipamd, exits before it serves the socket " +
		"the CNI plugin calls for every new pod, and pods stay in ContainerCreating (\"failed to setup network policy\")",
	Remedy: "run the images the vpc-cni add-on version or the aws-vpc-cni chart pairs (VPC CNI 1.23.x with agent 1.4.1 " +
		"or later); an image set by hand on one container is the usual cause",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s CHANGELOG.md (v1.23.0: must run with Network Policy Agent v1.4.1, #3739)",
		"aws/amazon-vpc-cni-k8s pkg/ipamd/rpc_handler.go, cmd/routed-eni-cni-plugin/cni.go",
		"aws/aws-network-policy-agent main.go (LOCAL_IPAMD_ADDRESS)",
		"ministryofjustice/cloud-platform#8281 (nodes never Ready after a VPC CNI upgrade)",
	},
	Verified: versionFactsVerified(ipamdSocketSince, agentSocketSince),
}

// versionFactsVerified returns the ledger entries of the release facts since the given versions.
func versionFactsVerified(since ...string) []Verified {
	var out []Verified
	for _, f := range versionFacts {
		for _, s := range since {
			if f.Since == s {
				out = append(out, Verified{Project: f.Project, File: f.File, Fact: f.Fact})
				break
			}
		}
	}
	return out
}

// policyAgentVersionMismatch finds an aws-node DaemonSet whose two images cannot talk: from
// VPC CNI 1.23.0 ipamd serves its gRPC API on /var/run/aws-node/ipamd.sock and no longer on
// TCP 127.0.0.1:50051, and network policy agent 1.4.1 dials the socket. An agent on the other
// side of that move, run with --enable-network-policy, exits at start without the network
// policy mode ipamd gives it, so it never serves npa.sock, and the CNI plugin, which calls the
// agent for every new pod when a network policy mode is set, fails every pod sandbox on every
// node: the usual end of a VPC CNI upgrade that pinned one of the two images.
var policyAgentVersionMismatch = Check{
	Spec: specPolicyAgentVersionMismatch,
	Run: func(x *Index) []Finding {
		a := x.Snapshot.AWSNode
		if !x.vpcCNI() || a.NodeAgent == nil || x.awsNodeRunsNowhere() {
			return nil
		}
		cni, ok := parseCNIVersion(a.Image)
		if !ok {
			return nil
		}
		agent, ok := snapshot.CNIVersion(a.NodeAgent.Image)
		if !ok {
			return nil
		}
		socketCNI, _ := snapshot.ParseVersion(ipamdSocketSince)
		socketAgent, _ := snapshot.ParseVersion(agentSocketSince)
		newCNI := !cni.less(cniVersion(socketCNI))
		newAgent := !cniVersion(agent).less(cniVersion(socketAgent))
		if newCNI == newAgent {
			return nil
		}
		var why string
		if newCNI {
			why = fmt.Sprintf("from VPC CNI %s ipamd serves its gRPC API on the Unix socket /var/run/aws-node/ipamd.sock "+
				"only, and agents before %s dial TCP 127.0.0.1:50051", ipamdSocketSince, agentSocketSince)
		} else {
			why = fmt.Sprintf("agents from %s dial ipamd on the Unix socket /var/run/aws-node/ipamd.sock, which VPC CNI "+
				"before %s does not serve (it listens on TCP 127.0.0.1:50051)", agentSocketSince, ipamdSocketSince)
		}
		f := Finding{
			Resource: awsNodeResource,
			Message: fmt.Sprintf("aws-node runs VPC CNI %s (image %s) with network policy agent %s (image %s): %s",
				cni, a.Image, cniVersion(agent), a.NodeAgent.Image, why),
			Remedy: "run a paired release on both containers: VPC CNI " + ipamdSocketSince + " or later with agent " +
				agentSocketSince + " or later, as the vpc-cni add-on versions the read-only command lists and the " +
				"aws-vpc-cni chart pair them; with the add-on, update it rather than either image, and remove an image " +
				"set by hand on one container",
			Commands: []Command{{Argv: []string{"aws", "eks", "describe-addon-versions", "--addon-name", "vpc-cni"}, ReadOnly: true}},
		}
		nodes := countText(len(x.vpcCNINodes()), "node", "nodes")
		if !a.NodeAgent.NetworkPolicy {
			f.Severity = Info
			f.Message += fmt.Sprintf("; the agent runs with --enable-network-policy=false and never calls ipamd, so "+
				"nothing breaks until network policies are turned on, when it exits at start on the %s aws-node runs on", nodes)
			return []Finding{f}
		}
		f.Message += fmt.Sprintf("; with --enable-network-policy=true the agent exits at start without ipamd's network "+
			"policy mode on the %s aws-node runs on", nodes)
		if mode := a.Setting(snapshot.EnvNetworkPolicyMode, ""); mode != "" && mode != "none" {
			f.Message += fmt.Sprintf(", and with %s=%s the CNI plugin calls the agent for every new pod: sandboxes fail "+
				"with \"failed to setup network policy\"", snapshot.EnvNetworkPolicyMode, mode)
		}
		return []Finding{f}
	},
}
