package diagnose

// The ledger of upstream versions: every upstream fact a check encodes (a default, a formula, a
// field, an event text) was read in one upstream project's file at the version pinned here. A
// check's Spec names those files in Verified; `explain ID` prints them, docs/checks.md lists the
// pins, and `check -v` says which checks were verified against an older version than the one a
// cluster runs. CONTRIBUTING.md says how to re-verify when a pin moves.

// Upstream names an upstream project of the ledger.
type Upstream string

// The upstream projects whose behaviour checks encode.
const (
	UpstreamKarpenter Upstream = "karpenter-provider-aws"
	// UpstreamKarpenterCore is Karpenter's provider-neutral core (NodeClaim lifecycle, NodePool
	// health, disruption), at the commit the pinned karpenter-provider-aws requires.
	UpstreamKarpenterCore    Upstream = "karpenter"
	UpstreamVPCCNI           Upstream = "amazon-vpc-cni-k8s"
	UpstreamPolicyAgent      Upstream = "aws-network-policy-agent"
	UpstreamPolicyController Upstream = "amazon-network-policy-controller-k8s"
	UpstreamResourceCtrl     Upstream = "amazon-vpc-resource-controller-k8s"
	UpstreamCilium           Upstream = "cilium"
	UpstreamMonitoringAgent  Upstream = "eks-node-monitoring-agent"
	UpstreamEC2API           Upstream = "aws-sdk-go-v2/service/ec2"
	// UpstreamClientGo is client-go, whose event recorder (tools/record) writes the events
	// checks read, as the node monitoring agent records them.
	UpstreamClientGo Upstream = "client-go"
	// UpstreamKubernetes is Kubernetes itself: the API server's pod field selectors and the
	// core/v1 API types' toleration matching (k8s.io/api, its staging module).
	UpstreamKubernetes Upstream = "kubernetes"
	// UpstreamAWSDocs is the AWS documentation (EC2, VPC and EKS user guides and API reference),
	// which has no versions: its entries name the page and the day it was read.
	UpstreamAWSDocs Upstream = "aws-docs"
)

// Pin is one upstream project at the version the ledger verified checks against.
type Pin struct {
	Project Upstream
	// Repository is where the project's source lives (owner/name on GitHub, or the Go module).
	Repository string
	// Version is the tag (or, for the documentation, the day) the files were read at.
	Version string
	// Image is the container image's repository suffix that runs this project in a cluster
	// ("amazon-k8s-cni", "cilium"), for comparing a cluster's version with the pin; empty when
	// the project runs in no image karpnet reads.
	Image string
}

// ledger is the pinned version of every upstream project, in the order docs/checks.md lists them.
var ledger = []Pin{
	{UpstreamKarpenter, "aws/karpenter-provider-aws", "v1.14.1", ""},
	{UpstreamKarpenterCore, "kubernetes-sigs/karpenter", "6e7eab7a0f48 (required by karpenter-provider-aws v1.14.1)", ""},
	{UpstreamVPCCNI, "aws/amazon-vpc-cni-k8s", "v1.23.0", "amazon-k8s-cni"},
	{UpstreamPolicyAgent, "aws/aws-network-policy-agent", "v1.4.1", "aws-network-policy-agent"},
	{UpstreamPolicyController, "aws/amazon-network-policy-controller-k8s", "v1.1.7", ""},
	{UpstreamResourceCtrl, "aws/amazon-vpc-resource-controller-k8s", "v1.7.19", ""},
	{UpstreamCilium, "cilium/cilium", "v1.20.2", "cilium"},
	{UpstreamMonitoringAgent, "aws/eks-node-monitoring-agent", "v1.7.0", "eks-node-monitoring-agent"},
	{UpstreamEC2API, "github.com/aws/aws-sdk-go-v2/service/ec2", "v1.344.3", ""},
	{UpstreamClientGo, "k8s.io/client-go", "v0.37.2", ""},
	{UpstreamKubernetes, "kubernetes/kubernetes", "v1.37.2 (k8s.io/api v0.37.2)", ""},
	{UpstreamAWSDocs, "docs.aws.amazon.com", "2026-12-07", ""},
}

// Ledger returns the pins, in the order docs/checks.md lists them.
func Ledger() []Pin {
	return append([]Pin(nil), ledger...)
}

// PinOf returns the pin of project, and whether the ledger has it.
func PinOf(project Upstream) (Pin, bool) {
	for _, p := range ledger {
		if p.Project == project {
			return p, true
		}
	}
	return Pin{}, false
}

// Verified is one upstream source a check's rules were read in: the project (its version is the
// ledger's pin), the file (with the symbol, where one says more) and the fact taken from it.
type Verified struct {
	Project Upstream
	File    string
	Fact    string
}

// VersionFact is one fact about an upstream release that a check compares a cluster's images
// with: from Since on, Project behaves as Fact says, as read in File at the ledger's pin (or the
// tag Read names, for a fact about an older release).
type VersionFact struct {
	Project Upstream
	Since   string
	File    string
	Read    string
	Fact    string
}

// The releases the network policy agent check pairs (policyAgentPairing).
const (
	// ipamdSocketSince is the VPC CNI release whose ipamd serves its gRPC API on a Unix socket
	// instead of TCP 127.0.0.1:50051.
	ipamdSocketSince = "1.23.0"
	// agentSocketSince is the network policy agent release that dials ipamd on that socket.
	agentSocketSince = "1.4.1"
)

// versionFacts are the release facts checks compare versions with, each with where it was read.
var versionFacts = []VersionFact{
	{UpstreamVPCCNI, ipamdSocketSince, "CHANGELOG.md (the v1.23.0 warning)", "v1.23.0",
		"v1.23.0 must run with network policy agent v1.4.1: #3739 moves ipamd's gRPC server from a TCP port to a Unix " +
			"domain socket"},
	{UpstreamVPCCNI, ipamdSocketSince, "pkg/ipamd/rpc_handler.go (ipamdGRPCSocketPath, runRPCHandlerWithSocketPath)", "v1.23.0",
		"ipamd listens on unix:/var/run/aws-node/ipamd.sock only; v1.22.4 listens on tcp 127.0.0.1:50051 only (ipamdgRPCaddress)"},
	{UpstreamVPCCNI, ipamdSocketSince, "charts/aws-vpc-cni/values.yaml (nodeAgent.image.tag)", "v1.23.0",
		"the v1.23.0 chart pairs image v1.23.0 with the agent's v1.4.1"},
	{UpstreamPolicyAgent, agentSocketSince, "main.go (LOCAL_IPAMD_ADDRESS, getNetworkPolicyConfigsFromIpamd)", "v1.4.1",
		"the agent dials ipamd at unix:///var/run/aws-node/ipamd.sock (v1.4.0: 127.0.0.1:50051) and, with " +
			"--enable-network-policy, exits when it gets no network policy mode from ipamd (lo.Must2) before it serves " +
			"npa.sock; with the flag off it never calls ipamd"},
	{UpstreamVPCCNI, ipamdSocketSince, "cmd/routed-eni-cni-plugin/cni.go (add)", "v1.23.0",
		"when ipamd has a network policy mode (NETWORK_POLICY_ENFORCING_MODE, \"standard\" in the manifest), every pod's " +
			"ADD dials the agent's npa.sock and fails with \"failed to setup network policy\" when it cannot"},
}

// VersionFacts returns the release facts checks compare versions with.
func VersionFacts() []VersionFact {
	return append([]VersionFact(nil), versionFacts...)
}
