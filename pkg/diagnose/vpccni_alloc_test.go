package diagnose

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// noIPMessage is the kubelet message when the VPC CNI has no IP for a pod.
const noIPMessage = `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "0a1b": ` +
	`plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container`

// cniSandbox returns an edit that adds a sandbox failure of pod on node, last seen ago before the snapshot.
func cniSandbox(node, pod, msg string, count int32, ago time.Duration) func(*snapshot.Snapshot) {
	return cniSandboxSince(node, pod, msg, count, ago, ago)
}

// cniSandboxSince is cniSandbox with the first of the count failures seen first before the snapshot.
func cniSandboxSince(node, pod, msg string, count int32, first, last time.Duration) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.SandboxFailures = append(s.SandboxFailures, snapshot.SandboxFailure{
			Node: node, Namespace: "shop", Pod: pod, Message: msg, Count: count,
			FirstSeen: s.Taken.Add(-first), LastSeen: s.Taken.Add(-last),
		})
	}
}

// TestPodIPAllocationFailures covers the evidence rule: critical while a pod keeps failing
// (3 or more failures, the last within 5 minutes), warning once it has stopped, info for a pod
// or a burst of pods that failed once or twice (a branch ENI wait, a retry fixes it), and at
// most info on a node that is still initialising.
func TestPodIPAllocationFailures(t *testing.T) {
	const cidrMessage = `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "9f": ` +
		`plugin type="aws-cni" name="aws-cni" failed (add): add cmd: Error received from AddNetwork gRPC call: ` +
		`InsufficientCidrBlocks: There aren't sufficient free Ipv4 addresses or prefixes`
	const remedy = "compare the node's capacity.pods with its pod IP capacity and the free addresses of its pod subnet " +
		"(the command shows the node's capacity and subnets), then read ipamd's log on the node (/var/log/aws-routed-eni/ipamd.log) " +
		"for the EC2 error; lower kubelet maxPods, free or add subnet space, or fix the node's ENIConfig accordingly"
	finding := func(sev Severity, msg, remedy string) []Finding {
		return []Finding{{ID: "pod-ip-allocation-failures", Severity: sev, Node: nodeA, Resource: "node/" + nodeA, Message: msg,
			Remedy: remedy, Commands: []Command{{Argv: []string{"kubectl", "karpnet", "describe", "node", nodeA}, ReadOnly: true}}}}
	}
	const fewFailures = "no pod failed more than 2 times, which a pod waiting for its branch ENI or a burst of new pods " +
		"causes and a retry fixes"
	runCheckCases(t, podIPAllocationFailures, []checkCase{
		{name: "no sandbox failure is silent"},
		{
			name: "a pod still failing is critical; four pods name three and count every event",
			edit: edits(
				cniSandbox(nodeA, "web-4", noIPMessage, 1, 30*time.Minute),
				cniSandboxSince(nodeA, "web-1", noIPMessage, 3, 9*time.Minute, 4*time.Minute),
				cniSandbox(nodeA, "web-2", "add cmd: no available IP addresses", 2, 2*time.Minute),
				cniSandbox(nodeA, "web-3", noIPMessage, 0, 50*time.Minute),
			),
			want: finding(Critical, `7 FailedCreatePodSandBox events in the hour before 2026-08-21T12:00:00Z for 4 pods `+
				`(shop/web-1, shop/web-2, shop/web-3 and 1 more) because the VPC CNI had no IP address; still failing: `+
				`shop/web-1 failed 3 times from 11:51:00 to 11:56:00, the last 4m before the snapshot; `+
				`newest at 2026-08-21T11:58:00Z: add cmd: no available IP addresses`, remedy),
		},
		{
			name: "failures of one pod summed over its events",
			edit: edits(
				cniSandbox(nodeA, "web-1", noIPMessage, 1, 3*time.Minute),
				cniSandbox(nodeA, "web-1", noIPMessage, 1, 2*time.Minute),
				cniSandbox(nodeA, "web-1", noIPMessage, 1, time.Minute),
			),
			want: finding(Critical, `3 FailedCreatePodSandBox events in the hour before 2026-08-21T12:00:00Z for 1 pod (shop/web-1) `+
				`because the VPC CNI had no IP address; still failing: shop/web-1 failed 3 times from 11:57:00 to 11:59:00, `+
				`the last 1m before the snapshot; newest at 2026-08-21T11:59:00Z: `+noIPMessage, remedy),
		},
		{
			name: "repeated failures that stopped are a warning",
			edit: cniSandboxSince(nodeA, "web-1", noIPMessage, 6, 40*time.Minute, 20*time.Minute),
			want: finding(Warning, `6 FailedCreatePodSandBox events in the hour before 2026-08-21T12:00:00Z for 1 pod (shop/web-1) `+
				`because the VPC CNI had no IP address; failed repeatedly but not in the last 5m: shop/web-1 failed 6 times `+
				`from 11:20:00 to 11:40:00; newest at 2026-08-21T11:40:00Z: `+noIPMessage, remedy),
		},
		{
			name: "one failure of one pod is info",
			edit: cniSandbox(nodeA, "web-1", noIPMessage, 1, time.Minute),
			want: finding(Info, `1 FailedCreatePodSandBox event in the hour before 2026-08-21T12:00:00Z for 1 pod (shop/web-1) `+
				`because the VPC CNI had no IP address; `+fewFailures+`; newest at 2026-08-21T11:59:00Z: `+noIPMessage, remedy),
		},
		{
			name: "a burst of pods failing once each is info",
			edit: edits(
				cniSandbox(nodeA, "web-1", noIPMessage, 1, time.Minute),
				cniSandbox(nodeA, "web-2", noIPMessage, 2, time.Minute),
				cniSandbox(nodeA, "web-3", noIPMessage, 1, time.Minute),
				cniSandbox(nodeA, "web-4", noIPMessage, 1, time.Minute),
			),
			want: finding(Info, `5 FailedCreatePodSandBox events in the hour before 2026-08-21T12:00:00Z for 4 pods `+
				`(shop/web-1, shop/web-2, shop/web-3 and 1 more) because the VPC CNI had no IP address; `+fewFailures+
				`; newest at 2026-08-21T11:59:00Z: `+noIPMessage, remedy),
		},
		{
			name: "a pod still failing on an initialising node is info",
			edit: edits(cniSandboxSince(nodeA, "web-1", noIPMessage, 4, 90*time.Second, 30*time.Second), func(s *snapshot.Snapshot) {
				s.Nodes[0].CreationTimestamp = metav1.NewTime(s.Taken.Add(-2 * time.Minute))
			}),
			want: finding(Info, `4 FailedCreatePodSandBox events in the hour before 2026-08-21T12:00:00Z for 1 pod (shop/web-1) `+
				`because the VPC CNI had no IP address; the node is still initialising (created 2m ago and NodeClaim `+
				`default-abcde is not Initialized yet), when pods wait for the CNI; still failing: shop/web-1 failed 4 times `+
				`from 11:58:30 to 11:59:30, the last 30s before the snapshot; newest at 2026-08-21T11:59:30Z: `+noIPMessage, remedy),
		},
		{
			name: "InsufficientCidrBlocks points at prefix fragmentation",
			edit: cniSandboxSince(nodeA, "web-1", cidrMessage, 5, 4*time.Minute, time.Minute),
			want: finding(Critical, `5 FailedCreatePodSandBox events in the hour before 2026-08-21T12:00:00Z for 1 pod (shop/web-1) `+
				`because the VPC CNI had no IP address; still failing: shop/web-1 failed 5 times from 11:56:00 to 11:59:00, `+
				`the last 1m before the snapshot; newest at 2026-08-21T11:59:00Z: `+cidrMessage,
				"the pod subnet has free addresses but no free contiguous /28 for a prefix: reserve prefix space in it "+
					"(EC2 CreateSubnetCidrReservation, reservation type prefix; subnet-prefix-fragmented names the free run "+
					"when karpnet read the subnet's addresses), or give pods a new subnet; the command shows the node's "+
					"capacity and subnets"),
		},
		{name: "failures older than an hour are silent", edit: cniSandbox(nodeA, "web-1", noIPMessage, 9, 61*time.Minute)},
		{name: "failures dated after the snapshot (2099) are silent", edit: func(s *snapshot.Snapshot) {
			cniSandbox(nodeA, "web-1", noIPMessage, 9, s.Taken.Sub(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)))(s)
		}},
		{name: "failures two minutes after the snapshot are silent", edit: cniSandbox(nodeA, "web-1", noIPMessage, 9, -2*time.Minute)},
		{
			name: "failures 30 seconds after the snapshot count: kubelets' clocks differ a little",
			edit: cniSandbox(nodeA, "web-1", noIPMessage, 3, -30*time.Second),
			want: finding(Critical, "3 FailedCreatePodSandBox events in the hour before 2026-08-21T12:00:00Z for 1 pod (shop/web-1) "+
				"because the VPC CNI had no IP address; still failing: shop/web-1 failed 3 times from 12:00:30 to 12:00:30, the "+
				"last 0s before the snapshot; newest at 2026-08-21T12:00:30Z: "+noIPMessage, remedy),
		},
		{name: "failures without a time are silent", edit: func(s *snapshot.Snapshot) {
			s.SandboxFailures = []snapshot.SandboxFailure{{Node: nodeA, Namespace: "shop", Pod: "web-1", Message: noIPMessage, Count: 1}}
		}},
		{name: "other sandbox failures are silent", edit: cniSandbox(nodeA, "web-1",
			`Failed to create pod sandbox: rpc error: code = Unknown desc = failed to pull image "registry.k8s.io/pause:3.9"`, 4, time.Minute)},
		{name: "failures on an unknown node are silent", edit: cniSandbox("ip-10-9-9-9.us-west-2.compute.internal", "web-1", noIPMessage, 4, time.Minute)},
		{name: "events gap is silent", edit: edits(cniSandbox(nodeA, "web-1", noIPMessage, 4, time.Minute), gap(snapshot.SourceEvents))},
	})
}
