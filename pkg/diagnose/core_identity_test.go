package diagnose

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestProviderIDInvalid(t *testing.T) {
	runCheckCases(t, providerIDInvalid, []checkCase{
		{name: "healthy node is silent"},
		{
			name: "malformed aws providerID fires",
			edit: func(s *snapshot.Snapshot) { s.Nodes[0].Spec.ProviderID = "aws:///us-west-2a/not-an-id" },
			want: []Finding{{
				ID: "provider-id-invalid", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: `node looks like an EC2 instance but its providerID "aws:///us-west-2a/not-an-id" has no valid instance ID ` +
					`(i- and 8 or 17 hex digits), so it cannot be matched to an instance`,
				Remedy:   providerIDInvalidRemedy,
				Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
			}},
		},
		{
			name: "missing providerID on a Karpenter-labelled node fires",
			edit: func(s *snapshot.Snapshot) { s.Nodes[0].Spec.ProviderID = "" },
			want: []Finding{{
				ID: "provider-id-invalid", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message:  "node looks like an EC2 instance but its providerID is empty, so it cannot be matched to an instance",
				Remedy:   providerIDInvalidRemedy,
				Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
			}},
		},
		{
			name: "non-EC2 providerID is skipped",
			edit: func(s *snapshot.Snapshot) { s.Nodes[0].Spec.ProviderID = "kind://docker/kind/kind-worker" },
		},
		{
			name: "no providerID and no EC2 labels is skipped",
			edit: func(s *snapshot.Snapshot) {
				s.Nodes[0].Spec.ProviderID = ""
				s.Nodes[0].Labels = map[string]string{corev1.LabelTopologyZone: "us-west-2a"}
			},
		},
	})
}

const providerIDInvalidRemedy = "spec.providerID is set once at registration by kubelet and the AWS cloud provider: check " +
	"that kubelet runs with --cloud-provider=external and the cloud controller manager is healthy, then replace the node by " +
	"deleting its NodeClaim default-abcde"

func TestInstanceNotFound(t *testing.T) {
	remove := func(s *snapshot.Snapshot) { s.Instances = nil }
	runCheckCases(t, instanceNotFound, []checkCase{
		{name: "healthy node is silent"},
		{
			name: "missing instance fires with the Region",
			edit: remove,
			want: []Finding{{
				ID: "instance-not-found", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
				Message: "DescribeInstances in Region us-west-2 returned no instance " + instanceA +
					" for providerID aws:///us-west-2a/" + instanceA,
				Remedy: "the instance is gone: delete the stale Node (the command) and check that " +
					"Karpenter's karpenter.sh/termination finalizer is not stuck",
				Commands: []Command{{Argv: []string{"kubectl", "delete", "node", nodeA}, Changes: "node/" + nodeA}},
			}},
		},
		{
			name: "another Region is suggested from the providerID zone",
			edit: edits(remove, func(s *snapshot.Snapshot) { s.Region = "eu-west-1" }),
			want: []Finding{{
				ID: "instance-not-found", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
				Message: "DescribeInstances in Region eu-west-1 returned no instance " + instanceA +
					" for providerID aws:///us-west-2a/" + instanceA,
				Remedy: "the instance is gone: delete the stale Node (the command) and check that " +
					"Karpenter's karpenter.sh/termination finalizer is not stuck; if the instance is in us-west-2 " +
					"(the providerID's zone is us-west-2a), pass --region us-west-2",
				Commands: []Command{{Argv: []string{"kubectl", "delete", "node", nodeA}, Changes: "node/" + nodeA}},
			}},
		},
		{name: "DescribeInstances gap is silent", edit: edits(remove, gap(snapshot.SourceDescribeInstances))},
		{name: "ec2 gap is silent", edit: edits(remove, gap(snapshot.SourceEC2))},
		{
			name: "non-EC2 node is skipped",
			edit: edits(remove, func(s *snapshot.Snapshot) { s.Nodes[0].Spec.ProviderID = "eks-hybrid:///us-west-2/my-cluster/mi-1" }),
		},
	})
}

func TestInstanceNotRunning(t *testing.T) {
	state := func(st string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { s.Instances[0].State = st }
	}
	const del = "delete the Node and check Karpenter's karpenter.sh/termination finalizer"
	deleteNode := Command{Argv: []string{"kubectl", "delete", "node", nodeA}, Changes: "node/" + nodeA}
	finding := func(st, remedy string, cmds ...Command) []Finding {
		return []Finding{{
			ID: "instance-not-running", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
			Message:  "instance " + instanceA + " is " + st + " but Node " + nodeA + " still exists",
			Remedy:   remedy,
			Commands: cmds,
		}}
	}
	runCheckCases(t, instanceNotRunning, []checkCase{
		{name: "running is silent"},
		{
			name: "stopped fires", edit: state("stopped"),
			want: finding("stopped", "start the instance if it was stopped on purpose (the first command), otherwise "+del+" (the second)",
				Command{Argv: []string{"aws", "ec2", "start-instances", "--instance-ids", instanceA}, Changes: "instance/" + instanceA},
				deleteNode),
		},
		{name: "pending fires", edit: state("pending"), want: finding("pending", "wait for the instance to start; if it stays pending, "+del+" (the command)", deleteNode)},
		{name: "terminated fires", edit: state("terminated"), want: finding("terminated", "the instance is gone: "+del+" (the command)", deleteNode)},
		{name: "shutting-down fires", edit: state("shutting-down"), want: finding("shutting-down", "the instance is gone: "+del+" (the command)", deleteNode)},
		{name: "unknown state is silent", edit: state("")},
		{name: "missing instance is silent", edit: func(s *snapshot.Snapshot) { s.Instances = nil }},
	})
}

func TestZoneMismatch(t *testing.T) {
	remedy := "the instance's zone is the truth: fix or remove the topology.kubernetes.io/zone label " +
		"(NodePool spec.template.metadata.labels or node group labels), then replace the node by deleting its NodeClaim default-abcde"
	runCheckCases(t, zoneMismatch, []checkCase{
		{name: "agreeing zones are silent"},
		{
			name: "label differs",
			edit: func(s *snapshot.Snapshot) { s.Nodes[0].Labels[corev1.LabelTopologyZone] = "us-west-2b" },
			want: []Finding{{
				ID: "zone-mismatch", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message:  "the node's zones disagree: instance us-west-2a, label topology.kubernetes.io/zone us-west-2b, providerID us-west-2a",
				Remedy:   remedy,
				Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
			}},
		},
		{
			name: "instance zone differs",
			edit: func(s *snapshot.Snapshot) { s.Instances[0].Zone = "us-west-2c" },
			want: []Finding{{
				ID: "zone-mismatch", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message:  "the node's zones disagree: instance us-west-2c, label topology.kubernetes.io/zone us-west-2a, providerID us-west-2a",
				Remedy:   remedy,
				Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
			}},
		},
		{
			name: "absent label is ignored",
			edit: func(s *snapshot.Snapshot) { delete(s.Nodes[0].Labels, corev1.LabelTopologyZone) },
		},
		{
			name: "missing instance compares label and providerID only",
			edit: func(s *snapshot.Snapshot) { s.Instances = nil },
		},
	})
}

func TestInstanceTypeMismatch(t *testing.T) {
	runCheckCases(t, instanceTypeMismatch, []checkCase{
		{name: "same type is silent"},
		{
			name: "label differs",
			edit: func(s *snapshot.Snapshot) { s.Nodes[0].Labels[corev1.LabelInstanceTypeStable] = "m5.xlarge" },
			want: []Finding{{
				ID: "instance-type-mismatch", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA,
				Message: "label node.kubernetes.io/instance-type is m5.xlarge but instance " + instanceA + " is m5.large",
				Remedy: "remove the node.kubernetes.io/instance-type label from NodePool spec.template.metadata.labels " +
					"or the node group's labels (kubelet and Karpenter set it), then replace the node by deleting its NodeClaim default-abcde",
				Commands: claimDeleted("default-abcde", nodeA, "Karpenter"),
			}},
		},
		{name: "absent label is silent", edit: func(s *snapshot.Snapshot) { delete(s.Nodes[0].Labels, corev1.LabelInstanceTypeStable) }},
		{name: "missing instance is silent", edit: func(s *snapshot.Snapshot) { s.Instances = nil }},
	})
}

func TestZoneRegion(t *testing.T) {
	for _, tc := range []struct{ zone, want string }{
		{"us-west-2a", "us-west-2"},
		{"us-west-2-lax-1a", "us-west-2"},
		{"us-gov-west-1b", "us-gov-west-1"},
		{"ap-southeast-5c", "ap-southeast-5"},
		{"nonsense", "nonsense"},
	} {
		t.Run(tc.zone, func(t *testing.T) {
			if got := zoneRegion(tc.zone); got != tc.want {
				t.Errorf("zoneRegion(%q) = %q, want %q", tc.zone, got, tc.want)
			}
		})
	}
}
