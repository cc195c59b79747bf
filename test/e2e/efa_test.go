package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// nic is one network interface to launch an instance with.
type nic struct {
	card, device int32
	typ          string // interface, efa or efa-only
}

// launchSpec describes an instance launched through RunInstances with the fields world.instance
// leaves out: network interfaces on several cards and a placement group.
type launchSpec struct {
	typ    string
	subnet string
	sgs    []string
	nics   []nic  // empty launches one plain interface in subnet with sgs
	group  string // placement group name
	part   int32  // partition number in a partition group; 0 lets EC2 choose
}

// launch runs one instance as Karpenter's launch template would and returns it as
// DescribeInstances shows it.
func (w *world) launch(s launchSpec) ec2types.Instance {
	w.t.Helper()
	in := &ec2.RunInstancesInput{
		ImageId: aws.String("ami-0123456789abcdef0"), InstanceType: ec2types.InstanceType(s.typ),
		MinCount: aws.Int32(1), MaxCount: aws.Int32(1),
	}
	if len(s.nics) == 0 {
		in.SubnetId, in.SecurityGroupIds = aws.String(s.subnet), s.sgs
	}
	for _, n := range s.nics {
		in.NetworkInterfaces = append(in.NetworkInterfaces, ec2types.InstanceNetworkInterfaceSpecification{
			NetworkCardIndex: aws.Int32(n.card), DeviceIndex: aws.Int32(n.device), InterfaceType: aws.String(n.typ),
			SubnetId: aws.String(s.subnet), Groups: s.sgs,
		})
	}
	if s.group != "" {
		in.Placement = &ec2types.Placement{GroupName: aws.String(s.group)}
		if s.part > 0 {
			in.Placement.PartitionNumber = aws.Int32(s.part)
		}
	}
	out, err := w.ec2.RunInstances(w.t.Context(), in)
	if err != nil {
		w.t.Fatalf("launching a %s in %s: %v", s.typ, s.subnet, err)
	}
	return w.describe(aws.ToString(out.Instances[0].InstanceId))
}

// placementGroup creates a placement group and returns its ID.
func (w *world) placementGroup(name string, strategy ec2types.PlacementStrategy, partitions int32) string {
	w.t.Helper()
	in := &ec2.CreatePlacementGroupInput{GroupName: aws.String(name), Strategy: strategy}
	if partitions > 0 {
		in.PartitionCount = aws.Int32(partitions)
	}
	if _, err := w.ec2.CreatePlacementGroup(w.t.Context(), in); err != nil {
		w.t.Fatalf("creating placement group %s: %v", name, err)
	}
	out, err := w.ec2.DescribePlacementGroups(w.t.Context(), &ec2.DescribePlacementGroupsInput{GroupNames: []string{name}})
	if err != nil || len(out.PlacementGroups) != 1 {
		w.t.Fatalf("describing placement group %s: %v", name, err)
	}
	return aws.ToString(out.PlacementGroups[0].GroupId)
}

// taint adds a taint to a node, as a NodePool's spec.template.spec.taints puts it there.
func (w *world) taint(name string, taint corev1.Taint) {
	w.t.Helper()
	n, err := w.kube.CoreV1().Nodes().Get(w.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatalf("getting node %s: %v", name, err)
	}
	n.Spec.Taints = append(n.Spec.Taints, taint)
	if _, err := w.kube.CoreV1().Nodes().Update(w.t.Context(), n, metav1.UpdateOptions{}); err != nil {
		w.t.Fatalf("tainting node %s: %v", name, err)
	}
}

// nodeNameOf is the name EKS gives the instance's node, from its private IP.
func nodeNameOf(in ec2types.Instance) string {
	return "ip-" + strings.ReplaceAll(aws.ToString(in.PrivateIpAddress), ".", "-") + ".us-west-2.compute.internal"
}

// laterSnapshot saves what karpnet reads now and returns the file with its taken time moved
// 15 minutes forward, so a replay sees the cluster as it is 15 minutes later: nodes are then
// past their start-up grace.
func laterSnapshot(t *testing.T) string {
	t.Helper()
	return shiftedSnapshot(t, 15*time.Minute)
}

// TestEFA builds EFA node pools the way they go wrong: a training pool whose class selects two
// subnets, a node launched before the class gained an interface, a GPU node whose taint keeps
// the EFA device plugin away, a class with efa-only interfaces reused by a general pool, an HPC
// class whose only security group lacks the outbound self rule, and a burst class without a
// placement group. Two training nodes are as they should be.
func TestEFA(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	a1 := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	a2 := subnetRef{w.subnet("10.0.32.0/20", "us-west-2a"), "us-west-2a"}
	b := subnetRef{w.subnet("10.0.16.0/20", "us-west-2b"), "us-west-2b"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	// The HPC nodes' group lets its members in, but its egress is only the default 0.0.0.0/0 rule.
	hpcSG := w.securityGroup("e2e-hpc", false)
	self := []ec2types.IpPermission{{IpProtocol: aws.String("-1"), UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String(hpcSG)}}}}
	if _, err := w.ec2.AuthorizeSecurityGroupIngress(t.Context(), &ec2.AuthorizeSecurityGroupIngressInput{
		GroupId: aws.String(hpcSG), IpPermissions: self}); !authorized(err) {
		t.Fatalf("allowing e2e-hpc in from itself: %v", err)
	}
	trainingPG := w.placementGroup("training", ec2types.PlacementStrategyCluster, 0)
	hpcPG := w.placementGroup("hpc", ec2types.PlacementStrategyCluster, 0)
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1"})

	efaOnly := []any{
		map[string]any{"networkCardIndex": int64(0), "deviceIndex": int64(0), "interfaceType": "interface"},
		map[string]any{"networkCardIndex": int64(1), "deviceIndex": int64(0), "interfaceType": "efa-only"},
		map[string]any{"networkCardIndex": int64(2), "deviceIndex": int64(0), "interfaceType": "efa-only"},
		map[string]any{"networkCardIndex": int64(3), "deviceIndex": int64(0), "interfaceType": "efa-only"},
	}
	w.nodeClass(nodeClassSpec{name: "efa", subnets: []subnetRef{a1, a2}, sgs: sgs, spec: map[string]any{
		"networkInterfaces": efaOnly, "placementGroupSelector": map[string]any{"name": "training"},
	}})
	w.nodePool("training", "v1", "efa", []string{"us-west-2a"}, 0)
	// Someone copied the EFA interfaces into the general class; its m5 nodes predate that.
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a1, b}, sgs: sgs, spec: map[string]any{
		"networkInterfaces": efaOnly[:2],
	}})
	w.nodePool("general", "v1", "default", []string{"us-west-2a", "us-west-2b"}, 0)
	w.nodeClass(nodeClassSpec{name: "hpc", subnets: []subnetRef{a1}, sgs: []string{hpcSG}, spec: map[string]any{
		"placementGroupSelector": map[string]any{"name": "hpc"},
	}})
	w.nodePool("hpc", "v1", "hpc", []string{"us-west-2a"}, 0)
	w.nodeClass(nodeClassSpec{name: "burst", subnets: []subnetRef{a1}, sgs: sgs})
	w.nodePool("burst", "v1", "burst", []string{"us-west-2a"}, 0)

	p4d := func(subnet subnetRef, efaOnlyCards int32) ec2types.Instance {
		nics := []nic{{0, 0, "interface"}}
		for card := int32(1); card <= efaOnlyCards; card++ {
			nics = append(nics, nic{card, 0, "efa-only"})
		}
		return w.launch(launchSpec{typ: "p4d.24xlarge", subnet: subnet.id, sgs: sgs, nics: nics, group: "training"})
	}
	training := func(in ec2types.Instance, efa int64) string {
		name := nodeNameOf(in)
		w.karpenterNode(name, "training", "efa", "v1", in, 737, func(s *nodeSpec) {
			s.efa = efa
			s.labels = map[string]string{"karpenter.k8s.aws/placement-group-id": trainingPG}
		})
		return name
	}
	training(p4d(a1, 3), 3) // healthy
	training(p4d(a1, 3), 3) // healthy
	// Karpenter picked the other subnet of the zone when it had more free addresses.
	training(p4d(a2, 3), 3)
	// Launched while the class still had two efa-only interfaces; drift has not replaced it yet.
	old := training(p4d(a1, 2), 2)
	// A GPU node: the NodePool's taint keeps the EFA device plugin (no tolerations) away.
	tainted := training(p4d(a1, 3), 0)
	w.taint(tainted, corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule})

	general := w.launch(launchSpec{typ: "m5.large", subnet: a1.id, sgs: sgs})
	w.karpenterNode(nodeNameOf(general), "general", "default", "v1", general, 29, nil)

	hpc := w.launch(launchSpec{typ: "c5n.18xlarge", subnet: a1.id, sgs: []string{hpcSG}, nics: []nic{{0, 0, "efa"}}, group: "hpc"})
	w.karpenterNode(nodeNameOf(hpc), "hpc", "hpc", "v1", hpc, 737, func(s *nodeSpec) {
		s.efa = 1
		s.labels = map[string]string{"karpenter.k8s.aws/placement-group-id": hpcPG}
		s.claimRequests = map[string]any{"vpc.amazonaws.com/efa": "1"}
	})
	burst := w.launch(launchSpec{typ: "c5n.18xlarge", subnet: a1.id, sgs: sgs, nics: []nic{{0, 0, "efa"}}})
	w.karpenterNode(nodeNameOf(burst), "burst", "burst", "v1", burst, 737, func(s *nodeSpec) {
		s.efa = 1
		s.claimRequests = map[string]any{"vpc.amazonaws.com/efa": "1"}
	})

	// One class shared by two NodePools that each pin a zone, on Capacity Blocks (which need
	// no placement group): each pool's nodes share a subnet, so nothing is split.
	w.nodeClass(nodeClassSpec{name: "efa-zonal", subnets: []subnetRef{a1, b}, sgs: sgs, spec: map[string]any{"networkInterfaces": efaOnly}})
	for _, zone := range []subnetRef{a1, b} {
		pool := "train-" + zone.zone[len(zone.zone)-1:]
		w.nodePool(pool, "v1", "efa-zonal", []string{zone.zone}, 0)
		in := w.launch(launchSpec{typ: "p4d.24xlarge", subnet: zone.id, sgs: sgs,
			nics: []nic{{0, 0, "interface"}, {1, 0, "efa-only"}, {2, 0, "efa-only"}, {3, 0, "efa-only"}}})
		w.karpenterNode(nodeNameOf(in), pool, "efa-zonal", "v1", in, 737, func(s *nodeSpec) {
			s.efa = 3
			s.labels = map[string]string{"karpenter.sh/capacity-type": "reserved",
				"karpenter.k8s.aws/capacity-reservation-type": "capacity-block"}
		})
	}

	// Right after launch the tainted node is still within the device plugin's start-up grace.
	now := decode(t, karpnet(t, runOpts{}, "check", "-o", "json"))
	for _, f := range now.Findings {
		if f.ID == "efa-resource-not-advertised" {
			t.Errorf("efa-resource-not-advertised on a node just launched: %+v", f)
		}
	}

	r := karpnet(t, runOpts{}, "check", "-o", "json", "--snapshot", laterSnapshot(t))
	wantCode(t, r, 1)
	want := []finding{
		{"efa-interface-count-mismatch", "critical", old, "node/" + old},
		{"efa-resource-not-advertised", "warning", tainted, "node/" + tainted},
		{"efa-security-group-self-rule-missing", "critical", nodeNameOf(hpc), "securitygroup/" + hpcSG},
		{"efa-subnet-split", "warning", "", "nodepool/training"},
		{"efa-subnet-split", "warning", "", "placementgroup/training"},
		{"efa-unsupported-instance-type", "critical", nodeNameOf(general), "node/" + nodeNameOf(general)},
		{"efa-without-placement-group", "warning", nodeNameOf(burst), "ec2nodeclass/burst"},
	}
	rep := decode(t, r)
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, f := range rep.Findings {
		if f.Message == "" || f.Remedy == "" {
			t.Errorf("finding %s on %s%s has no message or remedy", f.ID, f.Node, f.Resource)
		}
	}
}
