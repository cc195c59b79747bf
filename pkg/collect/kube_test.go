package collect

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func kubeI32(v int32) *int32 { return &v }

func kubeBoolPtr(v bool) *bool { return &v }

func kubeTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("parsing %q: %v", s, err)
	}
	return v
}

// kubeCollect runs collectKube on a fresh snapshot.
func kubeCollect(t *testing.T, c *Collector, scope Scope) (*snapshot.Snapshot, error) {
	t.Helper()
	s := snapshot.New(kubeTime(t, "2026-08-20T12:30:00Z"))
	err := c.collectKube(t.Context(), s, scope, nil)
	return s, err
}

func TestCollectKubeDecodesV1(t *testing.T) {
	kube, dyn := kubeFixture(t)
	s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{})
	if err != nil {
		t.Fatalf("collectKube: %v", err)
	}
	ready := func(at string) []snapshot.Condition {
		return []snapshot.Condition{{Type: "Ready", Status: "True", Reason: "Ready", LastTransitionTime: kubeTime(t, at)}}
	}
	ec2Ref := func(name string) snapshot.NodeClassRef {
		return snapshot.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: name}
	}
	const n1, n2 = "ip-10-0-1-10.us-west-2.compute.internal", "ip-10-0-2-20.us-west-2.compute.internal"

	wantClaims := []snapshot.NodeClaim{
		{
			Name: "batch-2hd8c", APIVersion: "karpenter.sh/v1",
			Labels:       map[string]string{"karpenter.sh/nodepool": "batch"},
			NodeClassRef: ec2Ref("spare"),
			ProviderID:   "aws:///us-west-2a/i-0a1b2c3d4e5f60009", NodeName: "ip-10-0-9-90.us-west-2.compute.internal",
		},
		{
			Name: "default-7xk2p", APIVersion: "karpenter.sh/v1",
			Labels: map[string]string{
				"karpenter.sh/nodepool": "default", "karpenter.k8s.aws/ec2nodeclass": "default",
				"node.kubernetes.io/instance-type": "m5.large",
			},
			NodeClassRef: ec2Ref("default"),
			ProviderID:   "aws:///us-west-2a/i-0a1b2c3d4e5f60001", NodeName: n1,
			Capacity: map[string]string{"vpc.amazonaws.com/pod-eni": "9"},
			Conditions: []snapshot.Condition{
				{Type: "Launched", Status: "True", Reason: "Launched", LastTransitionTime: kubeTime(t, "2026-08-20T09:58:00Z")},
				{Type: "Ready", Status: "True", Reason: "Ready", LastTransitionTime: kubeTime(t, "2026-08-20T09:59:30Z")},
			},
		},
		{
			Name: "gpu-9fq3m", APIVersion: "karpenter.sh/v1",
			Labels:       map[string]string{"karpenter.sh/nodepool": "gpu"},
			NodeClassRef: ec2Ref("efa"),
			ProviderID:   "aws:///us-west-2b/i-0a1b2c3d4e5f60002", NodeName: n2,
			Conditions: []snapshot.Condition{{
				Type: "Drifted", Status: "True", Reason: "SubnetDrift",
				Message:            "instance subnet is not in the EC2NodeClass status",
				LastTransitionTime: kubeTime(t, "2026-08-20T10:30:00Z"),
			}},
		},
	}
	wantPools := []snapshot.NodePool{
		{
			Name: "batch", APIVersion: "karpenter.sh/v1", NodeClassRef: ec2Ref("spare"),
			Requirements: []snapshot.Requirement{{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"spot"}}},
		},
		{
			Name: "default", APIVersion: "karpenter.sh/v1", NodeClassRef: ec2Ref("default"),
			Requirements: []snapshot.Requirement{
				{Key: "topology.kubernetes.io/zone", Operator: "In", Values: []string{"us-west-2a", "us-west-2b"}},
				{Key: "karpenter.k8s.aws/instance-generation", Operator: "Gt", Values: []string{"4"}},
			},
			Labels:     map[string]string{"team": "web", "k8s.amazonaws.com/eniConfig": "us-west-2a"},
			Conditions: ready("2026-08-19T08:00:00Z"),
			Disruption: &snapshot.Disruption{ConsolidationPolicy: "WhenEmptyOrUnderutilized"},
		},
		{
			Name: "gpu", APIVersion: "karpenter.sh/v1", NodeClassRef: ec2Ref("efa"),
			Requirements: []snapshot.Requirement{{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"p5"}}},
		},
	}
	wantClasses := []snapshot.EC2NodeClass{
		{
			Name: "default", APIVersion: "karpenter.k8s.aws/v1", AMIFamily: "AL2023",
			SubnetSelectorTerms: []snapshot.SelectorTerm{
				{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}, {ID: "subnet-0b2c3d4e5f6a70002"},
			},
			SecurityGroupSelectorTerms: []snapshot.SelectorTerm{
				{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}, {Name: "eks-cluster-sg-demo"},
			},
			AssociatePublicIPAddress: kubeBoolPtr(false),
			IPPrefixCount:            kubeI32(1),
			Kubelet:                  &snapshot.Kubelet{MaxPods: kubeI32(110), PodsPerCore: kubeI32(10)},
			StatusSubnets: []snapshot.SubnetStatus{
				{ID: "subnet-0a1b2c3d4e5f60001", Zone: "us-west-2a", ZoneID: "usw2-az1"},
				{ID: "subnet-0b2c3d4e5f6a70002", Zone: "us-west-2b"},
			},
			StatusSecurityGroups: []snapshot.SecurityGroupStatus{
				{ID: "sg-0123456789abcdef0", Name: "karpenter-demo"}, {ID: "sg-0fedcba9876543210"},
			},
			Conditions: ready("2026-08-19T08:00:00Z"),
		},
		{
			Name: "efa", APIVersion: "karpenter.k8s.aws/v1", AMIFamily: "Bottlerocket",
			SubnetSelectorTerms:        []snapshot.SelectorTerm{{ID: "subnet-0c3d4e5f6a7b80003"}},
			SecurityGroupSelectorTerms: []snapshot.SelectorTerm{{ID: "sg-0aaaabbbbccccdddd"}},
			NetworkInterfaces: []snapshot.NetworkInterface{
				{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
				{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"},
			},
			PlacementGroupSelector: &snapshot.PlacementGroupSelector{Name: "hpc-cluster"},
			Kubelet:                &snapshot.Kubelet{MaxPodsExpression: "self.instanceType.maxENIs * 8"},
			Conditions: []snapshot.Condition{{
				Type: "PlacementGroupReady", Status: "False", Reason: "PlacementGroupNotFound",
				Message:            `Placement group "hpc-cluster" not found`,
				LastTransitionTime: kubeTime(t, "2026-08-20T10:00:00Z"),
			}},
		},
		{
			Name: "spare", APIVersion: "karpenter.k8s.aws/v1", AMIFamily: "Windows2022",
			SubnetSelectorTerms:        []snapshot.SelectorTerm{{Tags: map[string]string{"Name": "*private*"}}},
			SecurityGroupSelectorTerms: []snapshot.SelectorTerm{{ID: "sg-0123456789abcdef0"}},
		},
	}
	wantENIConfigs := []snapshot.ENIConfig{
		{Name: "us-west-2a", Subnet: "subnet-0f0e0d0c0b0a90001", SecurityGroups: []string{"sg-0123456789abcdef0", "sg-0fedcba9876543210"}},
		{Name: "us-west-2b", Subnet: "subnet-0f0e0d0c0b0a90002"},
	}
	wantAWSNode := &snapshot.AWSNode{
		Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.20.0-eksbuild.1",
		Env: map[string]string{
			"AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "false", "ENABLE_PREFIX_DELEGATION": "true",
			"WARM_PREFIX_TARGET": "1", "CLUSTER_NAME": "demo", // not ADDITIONAL_ENI_TAGS, AWS_SECRET_ACCESS_KEY, HTTPS_PROXY
		},
		Scheduling: &snapshot.Scheduling{Affinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "kubernetes.io/os", Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}},
				{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}},
				{Key: "eks.amazonaws.com/compute-type", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"fargate", "hybrid", "auto"}},
			}}},
		}},
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
		DesiredNumberScheduled: kubeI32(4),
		NodeAgent:              &snapshot.NodeAgent{Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon/aws-network-policy-agent:v1.2.0-eksbuild.1"},
	}

	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"nodeclaims", s.NodeClaims, wantClaims},
		{"nodepools", s.NodePools, wantPools},
		{"ec2nodeclasses", s.NodeClasses, wantClasses},
		{"eniconfigs", s.ENIConfigs, wantENIConfigs},
		{"aws-node", s.AWSNode, wantAWSNode},
		{"gaps", s.Gaps, []snapshot.Gap(nil)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, c.got); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", c.name, diff)
			}
		})
	}
}

func TestCollectKubeNodesStripped(t *testing.T) {
	kube, dyn := kubeFixture(t)
	s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{})
	if err != nil {
		t.Fatalf("collectKube: %v", err)
	}
	var names []string
	for _, n := range s.Nodes {
		names = append(names, n.Name)
	}
	want := []string{
		"ip-10-0-1-10.us-west-2.compute.internal",
		"ip-10-0-2-20.us-west-2.compute.internal",
		"ip-10-0-3-30.us-west-2.compute.internal",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("node names mismatch (-want +got):\n%s", diff)
	}
	n := s.Nodes[0]
	if n.ManagedFields != nil || n.Status.Images != nil || n.Status.VolumesInUse != nil || n.Status.VolumesAttached != nil {
		t.Errorf("heavy fields kept: managedFields=%v images=%v volumesInUse=%v volumesAttached=%v",
			n.ManagedFields, n.Status.Images, n.Status.VolumesInUse, n.Status.VolumesAttached)
	}
	if got, want := n.Spec.ProviderID, "aws:///us-west-2a/i-0a1b2c3d4e5f60001"; got != want {
		t.Errorf("providerID: got %q, want %q", got, want)
	}
	if len(n.Status.Addresses) != 1 || len(n.OwnerReferences) != 1 || n.Labels["karpenter.sh/nodepool"] != "default" {
		t.Errorf("kept fields lost: addresses=%v owners=%v labels=%v", n.Status.Addresses, n.OwnerReferences, n.Labels)
	}
}

func TestCollectKubeSelector(t *testing.T) {
	kube, dyn := kubeFixture(t)
	s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{Selector: "karpenter.sh/nodepool=gpu"})
	if err != nil {
		t.Fatalf("collectKube: %v", err)
	}
	if len(s.Nodes) != 1 || s.Nodes[0].Name != "ip-10-0-2-20.us-west-2.compute.internal" {
		t.Fatalf("nodes: got %d (%v), want only ip-10-0-2-20", len(s.Nodes), s.Nodes)
	}
	if got, want := len(s.NodePools), 3; got != want {
		t.Errorf("a selector still lists every NodePool: got %d, want %d", got, want)
	}
	if got, want := len(s.SandboxFailures), 1; got != want {
		t.Errorf("sandbox failures of the selected node: got %d, want %d", got, want)
	}
}

// TestCollectKubeListsNodeClaimsWhileNodesAreListed holds the node list until the NodeClaims
// have been asked for: a collection that reads every node lists the NodeClaims meanwhile, and
// still reads all of both. One that names its nodes reads the NodeClaims after them, by name.
func TestCollectKubeListsNodeClaimsWhileNodesAreListed(t *testing.T) {
	kube, dyn := kubeFixture(t)
	asked := make(chan struct{})
	var once sync.Once
	dyn.PrependReactor("list", "nodeclaims", func(clienttesting.Action) (bool, runtime.Object, error) {
		once.Do(func() { close(asked) })
		return false, nil, nil
	})
	kube.PrependReactor("list", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		select {
		case <-asked:
			return false, nil, nil
		case <-time.After(10 * time.Second):
			return true, nil, fmt.Errorf("the NodeClaims were not asked for while the nodes were listed")
		}
	})
	s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{})
	if err != nil {
		t.Fatalf("collectKube: %v", err)
	}
	if len(s.Nodes) != 3 || len(s.NodeClaims) == 0 || len(s.Gaps) != 0 {
		t.Fatalf("read %d nodes, %d NodeClaims, gaps %v; want the fixture's 3 nodes and its NodeClaims", len(s.Nodes), len(s.NodeClaims), s.Gaps)
	}
	if !slices.IsSortedFunc(s.NodeClaims, func(a, b snapshot.NodeClaim) int { return strings.Compare(a.Name, b.Name) }) {
		t.Errorf("NodeClaims not sorted by name: %v", s.NodeClaims)
	}

	kube, dyn = kubeFixture(t)
	named, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{Names: []string{s.Nodes[0].Name}})
	if err != nil {
		t.Fatalf("collectKube of a named node: %v", err)
	}
	if len(named.Nodes) != 1 || len(named.NodeClaims) != 1 {
		t.Errorf("a run naming a node read %d nodes and %d NodeClaims, want 1 and its NodeClaim", len(named.Nodes), len(named.NodeClaims))
	}
	for _, a := range kubeActions(dyn.Actions()) {
		if strings.HasPrefix(a, "list") && strings.Contains(a, "nodeclaims") {
			t.Errorf("a run naming its node listed the NodeClaims: %v", kubeActions(dyn.Actions()))
		}
	}
}
