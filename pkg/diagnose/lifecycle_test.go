package diagnose

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// deleting returns an edit that marks the healthy node as Karpenter deletes it: a
// deletionTimestamp ago before the snapshot, the termination finalizer, the disrupted taint,
// and its instance in state (or gone for "").
func deleting(ago time.Duration, state string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		n := &s.Nodes[0]
		del := metav1.NewTime(s.Taken.Add(-ago))
		n.DeletionTimestamp = &del
		n.Finalizers = []string{finalizerTermination}
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: taintDisrupted, Effect: corev1.TaintEffectNoSchedule})
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown,
			Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status."}}
		if state == "" {
			s.Instances = nil
			return
		}
		s.Instances[0].State = state
	}
}

// severe returns the findings at warning or above.
func severe(r Report) []Finding {
	return slices.DeleteFunc(slices.Clone(r.Findings), func(f Finding) bool { return f.Severity < Warning })
}

func TestTerminatingNodes(t *testing.T) {
	stuck := []Finding{{
		ID: "node-termination-stuck", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA, Subjects: []string{"node/" + nodeA},
		Remedy: "Karpenter removes karpenter.sh/termination once the instance is gone: check that its controller runs and " +
			"can reach EC2 (its log mentions the node); if Karpenter is gone for good, remove the finalizer (the command)",
		Commands: []Command{{Argv: []string{"kubectl", "patch", "node", nodeA, "--type", "merge", "-p",
			`{"metadata":{"finalizers":null}}`}, Changes: "node/" + nodeA}},
	}}
	withMessage := func(msg string) []Finding {
		out := slices.Clone(stuck)
		out[0].Message = msg
		return out
	}
	for _, tc := range []struct {
		name       string
		edit       func(*snapshot.Snapshot)
		wantState  NodeState
		wantStatus string
		want       []Finding
	}{
		{"shutting down 2 minutes after deletion is silent", deleting(2*time.Minute, "shutting-down"), StateTerminating, StatusTerminating, nil},
		{"terminated 3 minutes after deletion is silent", deleting(3*time.Minute, "terminated"), StateTerminating, StatusTerminating, nil},
		{"still running an hour in (a drain held by a PDB) is silent", deleting(time.Hour, "running"), StateTerminating, StatusTerminating, nil},
		{"terminated 20 minutes after deletion is stuck", deleting(20*time.Minute, "terminated"), StateTerminationStuck, "warning",
			withMessage("Node " + nodeA + " has been deleting for 20m (deletionTimestamp 2026-08-21T11:40:00Z) although instance " +
				instanceA + " is terminated: a deletion normally ends minutes after the instance is gone, so finalizer " +
				"karpenter.sh/termination holds it (karpnet calls a deletion stuck after 15m with the instance gone)")},
		{"gone from EC2 20 minutes after deletion is stuck", deleting(20*time.Minute, ""), StateTerminationStuck, "warning",
			withMessage("Node " + nodeA + " has been deleting for 20m (deletionTimestamp 2026-08-21T11:40:00Z) although " +
				"DescribeInstances returns no instance " + instanceA + ": a deletion normally ends minutes after the instance " +
				"is gone, so finalizer karpenter.sh/termination holds it (karpnet calls a deletion stuck after 15m with the instance gone)")},
		{"gone while DescribeInstances could not be read is not judged",
			edits(deleting(20*time.Minute, ""), gap(snapshot.SourceDescribeInstances)), StateTerminating, StatusTerminating, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := edited(healthy(), tc.edit)
			r := Analyze(s, Options{})
			if got := r.Nodes[0]; NodeState(got.Lifecycle.State) != tc.wantState || got.Status != tc.wantStatus || got.Lifecycle.Reason == "" {
				t.Errorf("got state %q (%q), status %q; want %q, %q", got.Lifecycle.State, got.Lifecycle.Reason, got.Status, tc.wantState, tc.wantStatus)
			}
			// Only data-unavailable may accompany the expected findings.
			got := slices.DeleteFunc(slices.Clone(r.Findings), func(f Finding) bool { return f.ID == dataUnavailable.ID })
			coverage.record(nodeTerminationStuck.ID, len(got))
			if diff := cmp.Diff(tc.want, got, cmpEmpty); diff != "" {
				t.Errorf("findings mismatch (-want +got):\n%s", diff)
			}
			if r.Summary.Terminating != 1 {
				t.Errorf("summary counts %d terminating nodes, want 1", r.Summary.Terminating)
			}
		})
	}
	t.Run("a stopped instance whose Node is not being deleted stays critical", func(t *testing.T) {
		s := edited(healthy(), func(s *snapshot.Snapshot) { s.Instances[0].State = "stopped" })
		if got := severe(Analyze(s, Options{})); len(got) != 1 || got[0].ID != "instance-not-running" || got[0].Severity != Critical {
			t.Errorf("got %+v, want one critical instance-not-running", got)
		}
	})
}

// cmpEmpty treats nil and empty slices alike.
var cmpEmpty = cmp.Transformer("empty", func(fs []Finding) []Finding {
	if len(fs) == 0 {
		return nil
	}
	return fs
})

func TestBootingNodes(t *testing.T) {
	const cniMessage = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady " +
		"message:Network plugin returns error: cni plugin not initialized"
	notReady := func(s *snapshot.Snapshot) {
		s.Nodes[0].Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse,
			Reason: "KubeletNotReady", Message: cniMessage}}
	}
	initialized := func(s *snapshot.Snapshot) {
		s.NodeClaims[0].Conditions = []snapshot.Condition{{Type: "Initialized", Status: "True"}}
	}
	for _, tc := range []struct {
		name    string
		edit    func(*snapshot.Snapshot)
		wantSev Severity
		state   NodeState
	}{
		{"a node one minute old is initialising: info", edits(notReady, cniCreated(time.Minute)), Info, StateInitialising},
		{"past five minutes it is critical", edits(notReady, cniCreated(6*time.Minute)), Critical, StateRunning},
		{"an Initialized NodeClaim ends the grace", edits(notReady, cniCreated(time.Minute), initialized), Critical, StateRunning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Analyze(edited(healthy(), tc.edit), Options{})
			if len(r.Findings) != 1 || r.Findings[0].ID != "node-network-not-ready" || r.Findings[0].Severity != tc.wantSev {
				t.Fatalf("got %+v, want one %s node-network-not-ready", r.Findings, tc.wantSev)
			}
			if NodeState(r.Nodes[0].Lifecycle.State) != tc.state {
				t.Errorf("got state %q, want %q", r.Nodes[0].Lifecycle.State, tc.state)
			}
		})
	}
	t.Run("the info says why and when it turns critical", func(t *testing.T) {
		r := Analyze(edited(healthy(), edits(notReady, cniCreated(time.Minute))), Options{})
		want := `the node is still initialising (created 1m ago and NodeClaim default-abcde is not Initialized yet): its ` +
			`network is not up yet, as on every new node until the CNI has started: Ready=False reason KubeletNotReady: "` +
			cniMessage + `"; it becomes critical if it lasts past 5m`
		if got := r.Findings[0].Message; got != want {
			t.Errorf("message:\n got %s\nwant %s", got, want)
		}
	})
	t.Run("a ready new node shows initialising", func(t *testing.T) {
		r := Analyze(edited(healthy(), cniCreated(time.Minute)), Options{})
		if r.Nodes[0].Status != StatusInitialising || r.Summary.Initialising != 1 || len(r.Findings) != 0 {
			t.Errorf("got status %q, %d initialising, findings %+v; want initialising, 1, none", r.Nodes[0].Status, r.Summary.Initialising, r.Findings)
		}
	})
}

func TestFargateNodesAreSkipped(t *testing.T) {
	for _, id := range []string{
		"aws:///us-west-2a/0123abcd/fargate-ip-10-0-1-44.us-west-2.compute.internal",
		"aws:///us-west-2a/fargate-10.0.1.44",
	} {
		t.Run(id, func(t *testing.T) {
			s := healthy()
			fargate := corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "fargate-ip-10-0-1-44.us-west-2.compute.internal", Labels: map[string]string{
					snapshot.LabelComputeType: "fargate", corev1.LabelTopologyZone: "us-west-2a"}},
				Spec: corev1.NodeSpec{ProviderID: id},
			}
			if id == "aws:///us-west-2a/fargate-10.0.1.44" {
				fargate.Labels = map[string]string{corev1.LabelTopologyZone: "us-west-2a"} // the providerID alone tells
			}
			s.Nodes = append(s.Nodes, fargate)
			r := Analyze(s, Options{})
			if len(r.Findings) != 0 || r.Summary.Skipped != 1 || r.Summary.SkippedBy[ComputeFargate] != 1 {
				t.Errorf("got findings %+v, summary %+v; want none, one Fargate node skipped", r.Findings, r.Summary)
			}
			for _, n := range r.Nodes {
				if n.Identity.Node == fargate.Name && (n.Status != StatusSkipped || n.Platform.Compute != ComputeFargate || n.Identity.Skipped == "") {
					t.Errorf("got %+v %+v, want a skipped Fargate node with a reason", n.Identity, n.Platform)
				}
			}
		})
	}
}

// windowsNode returns an edit that makes the healthy node a Windows one as Karpenter launches
// it: 110 pods, and the 9 vpc.amazonaws.com/PrivateIPv4Address of an m5.large.
func windowsNode(s *snapshot.Snapshot) {
	n := &s.Nodes[0]
	n.Labels[corev1.LabelOSStable] = OSWindows
	n.Status.Capacity[corev1.ResourcePods] = resource.MustParse("110")
	n.Status.Capacity[ResourceWindowsIPv4] = resource.MustParse("9")
	n.Status.Allocatable[ResourceWindowsIPv4] = resource.MustParse("9")
}

func TestWindowsNodes(t *testing.T) {
	// Prefix delegation and custom networking on aws-node apply to Linux nodes only.
	linuxSettings := edits(cniEnv(SettingPrefixDelegation, "true"), cniCreated(time.Hour))
	t.Run("110 pods with Windows IPAM is healthy", func(t *testing.T) {
		r := Analyze(edited(healthy(), edits(linuxSettings, windowsNode)), Options{})
		if len(r.Findings) != 0 {
			t.Errorf("got %+v, want no finding", r.Findings)
		}
		n := r.Nodes[0]
		if n.Platform.OS != OSWindows || n.Platform.VPCCNI || n.Capacity == nil || !n.Capacity.Windows || n.Capacity.IPCapacity != 9 {
			t.Errorf("got platform %+v, capacity %+v; want Windows, no aws-node, 9 pod IPs", n.Platform, n.Capacity)
		}
	})
	noIPAM := func(s *snapshot.Snapshot) {
		delete(s.Nodes[0].Status.Capacity, ResourceWindowsIPv4)
		delete(s.Nodes[0].Status.Allocatable, ResourceWindowsIPv4)
	}
	runCheckCases(t, windowsIPAMNotEnabled, []checkCase{
		{name: "a Linux node is silent"},
		{name: "a Windows node with Windows IPAM is silent", edit: windowsNode},
		{
			name: "a Windows node without vpc.amazonaws.com/PrivateIPv4Address fires",
			edit: edits(windowsNode, noIPAM),
			want: []Finding{{
				ID: "windows-ipam-not-enabled", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
				Message: "Windows node " + nodeA + " advertises no vpc.amazonaws.com/PrivateIPv4Address, so the VPC resource " +
					"controller gives its pods no IP address and they stay in ContainerCreating",
				Remedy: `turn on Windows IPAM: set enable-windows-ipam to "true" in the amazon-vpc-cni ConfigMap (the ` +
					"command; create the ConfigMap if it does not exist), and attach the AmazonEKSVPCResourceController " +
					"policy to the EKS cluster role",
				Commands: []Command{{Argv: []string{"kubectl", "-n", "kube-system", "patch", "configmap", "amazon-vpc-cni",
					"--type", "merge", "-p", `{"data":{"enable-windows-ipam":"true"}}`}, Changes: "configmap/kube-system/amazon-vpc-cni",
					Affects: "the VPC resource controller gives pod addresses to every Windows node: 1 node (m5.large)"}},
			}},
		},
		{
			name: "without the amazon-vpc-cni ConfigMap the command creates it",
			edit: edits(windowsNode, noIPAM, func(s *snapshot.Snapshot) { s.VPCCNIConfigState = snapshot.ConfigMapNotFound }),
			want: []Finding{{
				ID: "windows-ipam-not-enabled", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA,
				Message: "Windows node " + nodeA + " advertises no vpc.amazonaws.com/PrivateIPv4Address, so the VPC resource " +
					"controller gives its pods no IP address and they stay in ContainerCreating",
				Remedy: `turn on Windows IPAM: create the amazon-vpc-cni ConfigMap, which does not exist, with enable-windows-ipam ` +
					`"true" (the command), and attach the AmazonEKSVPCResourceController policy to the EKS cluster role`,
				Commands: []Command{{Argv: []string{"kubectl", "-n", "kube-system", "create", "configmap", "amazon-vpc-cni",
					"--from-literal=enable-windows-ipam=true"}, Changes: "configmap/kube-system/amazon-vpc-cni",
					Affects: "the VPC resource controller gives pod addresses to every Windows node: 1 node (m5.large)"}},
			}},
		},
		{name: "a booting Windows node is silent", edit: edits(windowsNode, noIPAM, cniCreated(time.Minute))},
		{name: "a cluster without aws-node runs another CNI", edit: edits(windowsNode, noIPAM, func(s *snapshot.Snapshot) { s.AWSNode = nil })},
	})
}

// TestAWSNodePlacement decides per node whether aws-node runs there, from the DaemonSet's
// nodeSelector, affinity, tolerations and status, as Cilium's EKS install and the EKS add-on
// shape them; VPC CNI checks apply only where it runs.
func TestAWSNodePlacement(t *testing.T) {
	overcommitted := cniPods("110") // 110 pods on an m5.large: critical where aws-node gives pod IPs
	addonAffinity := &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: corev1.LabelOSStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}},
			{Key: snapshot.LabelComputeType, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"fargate", "hybrid", "auto"}},
		}}},
	}}
	for _, tc := range []struct {
		name       string
		edit       func(*snapshot.Snapshot)
		runs       bool
		wantReason string
	}{
		{"the EKS add-on's affinity admits a Linux node", func(s *snapshot.Snapshot) {
			s.Nodes[0].Labels[corev1.LabelOSStable] = "linux"
			s.AWSNode.Scheduling.Affinity = addonAffinity
			s.AWSNode.Scheduling.Tolerations = []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists}}
			s.Nodes[0].Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}}
		}, true, "aws-node runs here"},
		{"Cilium's nodeSelector keeps it off", func(s *snapshot.Snapshot) {
			s.AWSNode.Scheduling.NodeSelector = map[string]string{"io.cilium/aws-node-enabled": "true"}
		}, false, "the DaemonSet's nodeSelector io.cilium/aws-node-enabled=true does not match the node"},
		{"a current status with no pod scheduled", func(s *snapshot.Snapshot) {
			s.AWSNode.DesiredNumberScheduled = ptr[int32](0)
		}, false, "the DaemonSet schedules no pod on any node (status.desiredNumberScheduled 0)"},
		{"an affinity that excludes the node", func(s *snapshot.Snapshot) {
			s.AWSNode.Scheduling.Affinity = addonAffinity
		}, false, "the DaemonSet's required node affinity (kubernetes.io/os In [linux], eks.amazonaws.com/compute-type " +
			"NotIn [fargate hybrid auto]) does not match the node"},
		{"an untolerated taint", func(s *snapshot.Snapshot) {
			s.AWSNode.Scheduling.Tolerations = nil
			s.Nodes[0].Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
				{Key: taintDisrupted, Effect: corev1.TaintEffectNoSchedule}}
		}, false, "the DaemonSet does not tolerate the node's taint dedicated=gpu:NoSchedule"},
		{"start-up and condition taints do not count", func(s *snapshot.Snapshot) {
			s.Nodes[0].Spec.Taints = []corev1.Taint{{Key: taintUnregistered, Effect: corev1.TaintEffectNoExecute},
				{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoExecute}}
		}, true, "aws-node runs here"},
		{"a snapshot from before scheduling was recorded", func(s *snapshot.Snapshot) {
			s.AWSNode.Scheduling = nil
			s.Nodes[0].Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
		}, true, "aws-node runs here (its scheduling was not recorded in this snapshot)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := edited(healthy(), edits(overcommitted, tc.edit))
			r := Analyze(s, Options{})
			if got := r.Nodes[0].Platform; got.VPCCNI != tc.runs || got.VPCCNIReason != tc.wantReason {
				t.Errorf("got vpcCNI %v (%q), want %v (%q)", got.VPCCNI, got.VPCCNIReason, tc.runs, tc.wantReason)
			}
			fired := slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.ID == "max-pods-exceeds-ip-capacity" })
			if fired != tc.runs {
				t.Errorf("max-pods-exceeds-ip-capacity fired %v, want %v (only where aws-node runs)", fired, tc.runs)
			}
		})
	}
	t.Run("aws-node running nowhere silences the VPC CNI version check", func(t *testing.T) {
		s := edited(healthy(), func(s *snapshot.Snapshot) {
			s.AWSNode.Scheduling.NodeSelector = map[string]string{"io.cilium/aws-node-enabled": "true"}
			s.AWSNode.Image = "amazon-k8s-cni:v1.8.0"
			s.AWSNode.Env[SettingPrefixDelegation] = "true"
		})
		if got := vpcCNIVersionTooOld.Findings(NewIndex(s)); len(got) != 0 {
			t.Errorf("got %+v, want silence", got)
		}
	})
}
