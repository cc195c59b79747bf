package diagnose

import (
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// noIPMessage is the kubelet message when the VPC CNI has no IP for a pod.
const noIPMessage = `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "0a1b": ` +
	`plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container`

// cniSandbox returns an edit that adds a sandbox failure of pod on node, last seen ago before the snapshot.
func cniSandbox(node, pod, msg string, count int32, ago time.Duration) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.SandboxFailures = append(s.SandboxFailures, snapshot.SandboxFailure{
			Node: node, Namespace: "shop", Pod: pod, Message: msg, Count: count, LastSeen: s.Taken.Add(-ago),
		})
	}
}

func TestPodIPAllocationFailures(t *testing.T) {
	const cidrMessage = `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "9f": ` +
		`plugin type="aws-cni" name="aws-cni" failed (add): add cmd: Error received from AddNetwork gRPC call: ` +
		`InsufficientCidrBlocks: There aren't sufficient free Ipv4 addresses or prefixes`
	const remedy = "compare the node's capacity.pods with its pod IP capacity and the free addresses of its pod subnet " +
		"(kubectl karpnet describe node " + nodeA + "), then read ipamd's log on the node (/var/log/aws-routed-eni/ipamd.log) " +
		"for the EC2 error; lower kubelet maxPods, free or add subnet space, or fix the node's ENIConfig accordingly"
	finding := func(msg, remedy string) []Finding {
		return []Finding{{ID: "pod-ip-allocation-failures", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA, Message: msg, Remedy: remedy}}
	}
	runCheckCases(t, podIPAllocationFailures, []checkCase{
		{name: "no sandbox failure is silent"},
		{
			name: "failures of four pods name three and count every event",
			edit: edits(
				cniSandbox(nodeA, "web-4", noIPMessage, 1, 30*time.Minute),
				cniSandbox(nodeA, "web-1", noIPMessage, 3, 5*time.Minute),
				cniSandbox(nodeA, "web-2", "add cmd: no available IP addresses", 2, 2*time.Minute),
				cniSandbox(nodeA, "web-3", noIPMessage, 0, 50*time.Minute),
			),
			want: finding(`7 FailedCreatePodSandBox events in the hour before 2026-08-21T12:00:00Z for 4 pods `+
				`(shop/web-1, shop/web-2, shop/web-3 and 1 more) because the VPC CNI had no IP address; `+
				`newest at 2026-08-21T11:58:00Z: add cmd: no available IP addresses`, remedy),
		},
		{
			name: "one pod",
			edit: cniSandbox(nodeA, "web-1", noIPMessage, 1, time.Minute),
			want: finding(`1 FailedCreatePodSandBox event in the hour before 2026-08-21T12:00:00Z for 1 pod (shop/web-1) `+
				`because the VPC CNI had no IP address; newest at 2026-08-21T11:59:00Z: `+noIPMessage, remedy),
		},
		{
			name: "InsufficientCidrBlocks points at prefix fragmentation",
			edit: cniSandbox(nodeA, "web-1", cidrMessage, 5, time.Minute),
			want: finding(`5 FailedCreatePodSandBox events in the hour before 2026-08-21T12:00:00Z for 1 pod (shop/web-1) `+
				`because the VPC CNI had no IP address; newest at 2026-08-21T11:59:00Z: `+cidrMessage,
				"the pod subnet has free addresses but no free contiguous /28 for a prefix: reserve prefix space with "+
					"aws ec2 create-subnet-cidr-reservation --reservation-type prefix, or give pods a new subnet; "+
					"see kubectl karpnet describe node "+nodeA),
		},
		{name: "failures older than an hour are silent", edit: cniSandbox(nodeA, "web-1", noIPMessage, 9, 61*time.Minute)},
		{name: "failures without a time are silent", edit: func(s *snapshot.Snapshot) {
			s.SandboxFailures = []snapshot.SandboxFailure{{Node: nodeA, Namespace: "shop", Pod: "web-1", Message: noIPMessage, Count: 1}}
		}},
		{name: "other sandbox failures are silent", edit: cniSandbox(nodeA, "web-1",
			`Failed to create pod sandbox: rpc error: code = Unknown desc = failed to pull image "registry.k8s.io/pause:3.9"`, 4, time.Minute)},
		{name: "failures on an unknown node are silent", edit: cniSandbox("ip-10-9-9-9.us-west-2.compute.internal", "web-1", noIPMessage, 4, time.Minute)},
		{name: "events gap is silent", edit: edits(cniSandbox(nodeA, "web-1", noIPMessage, 4, time.Minute), gap(snapshot.SourceEvents))},
	})
}
