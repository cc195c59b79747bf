package diagnose

import (
	"strings"

	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestEFAAndPlacementClusterIsClean checks that the EFA and placement checks find nothing in a
// well-built training pool or in the healthy fixture.
func TestEFAAndPlacementClusterIsClean(t *testing.T) {
	for name, s := range map[string]*snapshot.Snapshot{"efa cluster": efaCluster(), "healthy": healthy()} {
		x := NewIndex(s)
		for _, c := range append(efaChecks(), placementChecks()...) {
			if got := c.Findings(x); len(got) != 0 {
				t.Errorf("%s: %s found %+v, want nothing", name, c.ID, got)
			}
		}
	}
}

// efaOnlyClass gives EC2NodeClass default one efa-only interface on card 1.
func efaOnlyClass(s *snapshot.Snapshot) {
	s.NodeClasses[0].NetworkInterfaces = []snapshot.NetworkInterface{
		{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
		{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: interfaceEFAOnly},
	}
}

func TestEFAUnsupportedInstanceType(t *testing.T) {
	finding := func(msg, remedy string) []Finding {
		f := Finding{ID: "efa-unsupported-instance-type", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA, Message: msg, Remedy: remedy}
		if strings.Contains(remedy, "by deleting its NodeClaim") {
			f.Commands = claimDeleted("default-abcde", nodeA, "Karpenter")
		}
		return []Finding{f}
	}
	classFix := "limit the NodePools of EC2NodeClass default to EFA-capable instance types (spec.template.spec.requirements on " +
		"node.kubernetes.io/instance-type, e.g. p5.48xlarge, p4d.24xlarge, c5n.18xlarge), then replace the node by deleting its NodeClaim default-abcde"
	requestFix := "make the pods that request vpc.amazonaws.com/efa select EFA-capable instance types " +
		"(node.kubernetes.io/instance-type in their nodeAffinity or in the NodePool requirements)"
	request := func(q string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { s.NodeClaims[0].Requests = map[string]string{"vpc.amazonaws.com/efa": q} }
	}
	runCheckCases(t, efaUnsupportedInstanceType, []checkCase{
		{name: "healthy node is silent"},
		{
			name: "efa-only interfaces on an m5.large fire",
			edit: efaOnlyClass,
			want: finding("instance type m5.large does not support EFA (EfaSupported=false), yet EC2NodeClass default "+
				"spec.networkInterfaces has 1 efa-only entry", classFix),
		},
		{
			name: "a NodeClaim requesting EFA on an m5.large fires",
			edit: request("4"),
			want: finding("instance type m5.large does not support EFA (EfaSupported=false), yet NodeClaim default-abcde "+
				"requests vpc.amazonaws.com/efa: 4", requestFix),
		},
		{
			name: "both reasons are named",
			edit: edits(efaOnlyClass, request("1")),
			want: finding("instance type m5.large does not support EFA (EfaSupported=false), yet EC2NodeClass default "+
				"spec.networkInterfaces has 1 efa-only entry and NodeClaim default-abcde requests vpc.amazonaws.com/efa: 1",
				classFix+"; "+requestFix),
		},
		{name: "a zero request is silent", edit: request("0")},
		{name: "an unparsable request is silent", edit: request("many")},
		{
			name: "an EFA-capable type is silent",
			edit: edits(efaOnlyClass, func(s *snapshot.Snapshot) { s.InstanceTypes[0].EFASupported = true }),
		},
		{
			name: "instance type gap is silent",
			edit: edits(efaOnlyClass, func(s *snapshot.Snapshot) { s.InstanceTypes = nil }, gap(snapshot.SourceDescribeInstanceTypes)),
		},
		{
			name: "EC2NodeClass gap is silent",
			edit: edits(efaOnlyClass, func(s *snapshot.Snapshot) { s.NodeClasses = nil }, gap(snapshot.SourceNodeClasses)),
		},
	})
}

func TestEFAInterfaceCountMismatch(t *testing.T) {
	finding := func(node, msg, remedy string) []Finding {
		return []Finding{{ID: "efa-interface-count-mismatch", Severity: Critical, Node: node, Resource: "node/" + node, Message: msg, Remedy: remedy,
			Commands: claimDeleted("training-1e1e1", node, "Karpenter")}}
	}
	dropOne := func(s *snapshot.Snapshot) {
		in := findInstance(s, instE1)
		in.ENIs = in.ENIs[:len(in.ENIs)-1]
	}
	runClusterCases(t, efaInterfaceCountMismatch, []checkCase{
		{name: "three efa-only interfaces as the class asks are silent"},
		{
			name: "one interface fewer than the class asks fires",
			edit: dropOne,
			want: finding(nodeE1, "instance "+instE1+" has 2 EFA interfaces (efa 0, efa-only 2) attached, but EC2NodeClass efa "+
				"spec.networkInterfaces has 3 efa-only entries",
				"EFA interfaces are attached only at launch: replace the node so Karpenter launches it with "+
					"spec.networkInterfaces of EC2NodeClass efa by deleting its NodeClaim training-1e1e1"),
		},
		{
			name: "without efa-only entries the node capacity is compared",
			edit: edits(dropOne, func(s *snapshot.Snapshot) { findClass(s, "efa").NetworkInterfaces = nil }),
			want: finding(nodeE1, "instance "+instE1+" has 2 EFA interfaces (efa 0, efa-only 2) attached, but the node's "+
				"capacity vpc.amazonaws.com/efa is 3",
				"restart the aws-efa-k8s-device-plugin pod on the node so it counts the EFA devices again; if EC2 still shows "+
					"fewer EFA interfaces than pods expect, replace the node by deleting its NodeClaim training-1e1e1"),
		},
		{
			name: "efa interfaces count as EFA interfaces",
			edit: func(s *snapshot.Snapshot) {
				for _, id := range []string{instE1, instE2} {
					for i := range findInstance(s, id).ENIs[1:] {
						findInstance(s, id).ENIs[i+1].InterfaceType = interfaceEFA
					}
				}
			},
		},
		{
			name: "without efa-only entries or capacity it is silent",
			edit: edits(dropOne, func(s *snapshot.Snapshot) {
				findClass(s, "efa").NetworkInterfaces = nil
				delete(findNode(s, nodeE1).Status.Capacity, ResourceEFA)
			}),
		},
		{
			name: "a type without EFA is left to efa-unsupported-instance-type",
			edit: edits(dropOne, func(s *snapshot.Snapshot) { s.InstanceTypes[1].EFASupported = false }),
		},
		{
			name: "instances gap is silent",
			edit: edits(func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances)),
		},
		{
			name: "EC2NodeClass gap falls back to the capacity",
			edit: edits(dropOne, func(s *snapshot.Snapshot) { s.NodeClasses = nil }, gap(snapshot.SourceNodeClasses)),
			want: finding(nodeE1, "instance "+instE1+" has 2 EFA interfaces (efa 0, efa-only 2) attached, but the node's "+
				"capacity vpc.amazonaws.com/efa is 3",
				"restart the aws-efa-k8s-device-plugin pod on the node so it counts the EFA devices again; if EC2 still shows "+
					"fewer EFA interfaces than pods expect, replace the node by deleting its NodeClaim training-1e1e1"),
		},
	})
}

func TestEFAResourceNotAdvertised(t *testing.T) {
	const affinity = "list instance type p4d.24xlarge in its node affinity (Helm value supportedInstanceLabels.values); " +
		"then check that its pod runs there (the command lists the node's pods)"
	pods := []Command{{Argv: []string{"kubectl", "get", "pods", "-A", "-o", "wide", "--field-selector",
		"spec.nodeName=" + nodeE2}, ReadOnly: true}}
	remedy := "make the aws-efa-k8s-device-plugin DaemonSet run on this node: add tolerations for the node's taints " +
		"(Helm value tolerations) and " + affinity
	noEFA := func(s *snapshot.Snapshot) {
		n := findNode(s, nodeE2)
		delete(n.Status.Allocatable, ResourceEFA)
		delete(n.Status.Capacity, ResourceEFA)
		n.Spec.Taints = []corev1.Taint{
			{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule},
			{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoSchedule},
		}
	}
	created := func(ago time.Duration) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			findNode(s, nodeE2).CreationTimestamp = metav1.NewTime(s.Taken.Add(-ago))
		}
	}
	runClusterCases(t, efaResourceNotAdvertised, []checkCase{
		{name: "advertised EFA is silent"},
		{
			name: "missing allocatable fires and names the taints",
			edit: noEFA,
			want: []Finding{{ID: "efa-resource-not-advertised", Severity: Warning, Node: nodeE2, Resource: "node/" + nodeE2,
				Message: "instance " + instE2 + " has 3 EFA interfaces (efa 0, efa-only 3) attached but the node's allocatable " +
					"vpc.amazonaws.com/efa is missing: the EFA device plugin is not running there, so pods requesting " +
					"vpc.amazonaws.com/efa cannot schedule on it; node taints: nvidia.com/gpu=true:NoSchedule",
				Remedy: remedy, Commands: pods}},
		},
		{
			name: "zero allocatable on a node up for an hour fires",
			edit: edits(created(time.Hour), func(s *snapshot.Snapshot) {
				findNode(s, nodeE2).Status.Allocatable[ResourceEFA] = resource.MustParse("0")
			}),
			want: []Finding{{ID: "efa-resource-not-advertised", Severity: Warning, Node: nodeE2, Resource: "node/" + nodeE2,
				Message: "instance " + instE2 + " has 3 EFA interfaces (efa 0, efa-only 3) attached but the node's allocatable " +
					"vpc.amazonaws.com/efa is 0: the EFA device plugin is not running there, so pods requesting " +
					"vpc.amazonaws.com/efa cannot schedule on it",
				Remedy: "make the aws-efa-k8s-device-plugin DaemonSet run on this node: " + affinity, Commands: pods}},
		},
		{name: "a node created 3 minutes ago is given time", edit: edits(noEFA, created(3*time.Minute))},
		{
			name: "a node without EFA interfaces is silent",
			edit: edits(noEFA, func(s *snapshot.Snapshot) {
				in := findInstance(s, instE2)
				in.ENIs = in.ENIs[:1]
			}),
		},
		{name: "instances gap is silent", edit: edits(noEFA, func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances))},
	})
}
