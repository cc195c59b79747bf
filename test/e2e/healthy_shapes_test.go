package e2e

import (
	"encoding/json"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// The healthy corpus: shapes real EKS clusters have every day (shared reference, domain.md
// section h). Each test builds one, expects `check --fail-on warning` to exit 0 with no
// warning or critical on any node, checks what karpnet says about the shape, and then puts
// the faulty shape next to it to show that the check still fires.

// shapeReport is what the healthy-corpus tests read of a JSON report.
type shapeReport struct {
	Region  string   `json:"region"`
	Notes   []string `json:"notes"`
	Summary struct {
		Nodes, Clean, Skipped, Terminating, Initialising int
		SkippedBy                                        map[string]int
	} `json:"summary"`
	Nodes    []shapeNode                                              `json:"nodes"`
	Findings []struct{ ID, Severity, Node, Resource, Message string } `json:"findings"`
}

// shapeNode is what the healthy-corpus tests read of one node's report.
type shapeNode struct {
	Identity  struct{ Node string }
	Lifecycle struct{ State, Reason string }
	Platform  struct {
		Compute, OS, IPFamily string
		VPCCNI                bool `json:"vpcCNI"`
		VPCCNIReason          string
	}
	Capacity *struct {
		Windows    bool
		IPFamily   string
		Pods       int64
		IPCapacity int64
	}
	Status string
}

// checkHealthy runs check --fail-on warning and then check -o json; it fails t unless both
// report no warning and no critical, and returns the JSON report.
func checkHealthy(t *testing.T, o runOpts) (shapeReport, result) {
	t.Helper()
	r := karpnet(t, o, "check", "--fail-on", "warning")
	wantCode(t, r, 0)
	j := karpnet(t, o, "check", "-o", "json")
	wantCode(t, j, 0)
	var rep shapeReport
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil {
		t.Fatalf("decoding -o json: %v\n%s", err, j.stdout)
	}
	for _, f := range rep.Findings {
		if f.Severity == "warning" || f.Severity == "critical" {
			t.Errorf("healthy shape got %s %s on %s%s: %s", f.Severity, f.ID, f.Node, f.Resource, f.Message)
		}
	}
	return rep, j
}

// node returns the report of the named node, failing t when it is absent.
func (r shapeReport) node(t *testing.T, name string) shapeNode {
	t.Helper()
	i := slices.IndexFunc(r.Nodes, func(n shapeNode) bool { return n.Identity.Node == name })
	if i < 0 {
		t.Fatalf("node %s is not in the report", name)
	}
	return r.Nodes[i]
}

// ids returns the IDs of the findings at severity sev or worse, sorted.
func (r shapeReport) ids(severities ...string) []string {
	var out []string
	for _, f := range r.Findings {
		if slices.Contains(severities, f.Severity) {
			out = append(out, f.ID+" "+f.Node)
		}
	}
	slices.Sort(out)
	return out
}

// TestHealthyMixedCluster is a cluster as many teams run it: Karpenter on Fargate, a managed
// node group, an EKS hybrid node, Karpenter nodes on AL2023, Bottlerocket and Windows, a node
// still booting, one Karpenter is consolidating, an EFA node in a Capacity Block, and one pod
// that waited for an address once. Then the same shapes gone wrong: a deletion stuck for 20
// minutes and a Windows node without Windows IPAM.
func TestHealthyMixedCluster(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	ctx := t.Context()
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	b := subnetRef{w.subnet("10.0.16.0/20", "us-west-2b"), "us-west-2b"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1"})

	zones := []string{"us-west-2a", "us-west-2b"}
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a, b}, sgs: sgs})
	w.nodePool("general", "v1", "default", zones, 0)
	w.nodeClass(nodeClassSpec{name: "bottlerocket", subnets: []subnetRef{a, b}, sgs: sgs, spec: map[string]any{
		"amiSelectorTerms": []any{map[string]any{"alias": "bottlerocket@latest"}}}})
	w.nodePool("bottlerocket", "v1", "bottlerocket", zones, 0)
	w.nodeClass(nodeClassSpec{name: "windows", subnets: []subnetRef{a, b}, sgs: sgs, spec: map[string]any{
		"amiSelectorTerms": []any{map[string]any{"alias": "windows2022@latest"}}}})
	w.nodePool("windows", "v1", "windows", zones, 0)
	efaOnly := []any{map[string]any{"networkCardIndex": int64(0), "deviceIndex": int64(0), "interfaceType": "interface"}}
	for card := int64(1); card <= 3; card++ {
		efaOnly = append(efaOnly, map[string]any{"networkCardIndex": card, "deviceIndex": int64(0), "interfaceType": "efa-only"})
	}
	w.nodeClass(nodeClassSpec{name: "capacity-block", subnets: []subnetRef{a}, sgs: sgs, spec: map[string]any{"networkInterfaces": efaOnly}})
	w.nodePool("training", "v1", "capacity-block", zones[:1], 0)

	m5 := func(s subnetRef) ec2types.Instance {
		return w.instance(instanceSpec{typ: "m5.large", subnet: s.id, sgs: sgs})
	}
	general := m5(a)
	w.karpenterNode(nodeNameOf(general), "general", "default", "v1", general, 29, nil)
	w.sandboxFailure(nodeNameOf(general), "checkout-7f9c", 1) // one failure, then the pod started
	rocket := m5(b)
	w.karpenterNode(nodeNameOf(rocket), "bottlerocket", "bottlerocket", "v1", rocket, 29, func(s *nodeSpec) {
		s.osImage = "Bottlerocket OS 1.46.0 (aws-k8s-1.34)"
	})
	win := m5(a)
	windows := nodeNameOf(win)
	w.karpenterNode(windows, "windows", "windows", "v1", win, 110, func(s *nodeSpec) {
		s.labels = map[string]string{corev1.LabelOSStable: "windows", "node.kubernetes.io/windows-build": "10.0.20348"}
		s.osImage = "Windows Server 2022 Datacenter"
		s.extra = corev1.ResourceList{"vpc.amazonaws.com/PrivateIPv4Address": resource.MustParse("9")}
	})
	boot := m5(b)
	booting := nodeNameOf(boot)
	w.karpenterNode(booting, "general", "default", "v1", boot, 29, func(s *nodeSpec) {
		s.booting = true
		s.taints = []corev1.Taint{{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute}}
		s.conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady",
			Message: "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady " +
				"message:Network plugin returns error: cni plugin not initialized"}}
	})
	old := m5(a)
	leaving := nodeNameOf(old)
	w.karpenterNode(leaving, "general", "default", "v1", old, 29, func(s *nodeSpec) {
		s.finalizers = []string{"karpenter.sh/termination"}
		s.taints = []corev1.Taint{{Key: "karpenter.sh/disrupted", Effect: corev1.TaintEffectNoSchedule}}
	})
	mng := m5(b)
	w.node(nodeSpec{name: nodeNameOf(mng), providerID: providerID(mng), zone: b.zone, typ: "m5.large",
		internalIP: aws.ToString(mng.PrivateIpAddress), pods: 29,
		labels: map[string]string{"eks.amazonaws.com/nodegroup": "system", "eks.amazonaws.com/capacityType": "ON_DEMAND"}})
	// Capacity Block instances sit in an UltraCluster without a placement group.
	nics := []nic{{0, 0, "interface"}, {1, 0, "efa-only"}, {2, 0, "efa-only"}, {3, 0, "efa-only"}}
	p4d := w.launch(launchSpec{typ: "p4d.24xlarge", subnet: a.id, sgs: sgs, nics: nics})
	w.karpenterNode(nodeNameOf(p4d), "training", "capacity-block", "v1", p4d, 737, func(s *nodeSpec) {
		s.efa = 3
		s.labels = map[string]string{"karpenter.sh/capacity-type": "reserved",
			"karpenter.k8s.aws/capacity-reservation-type": "capacity-block",
			"karpenter.k8s.aws/capacity-reservation-id":   "cr-0123456789abcdef0"}
	})
	const fargate = "fargate-ip-10-0-1-200.us-west-2.compute.internal"
	w.node(nodeSpec{name: fargate, providerID: "aws:///us-west-2a/0d6e1a3c77f24b1c9a6e2f1b8c7d5e4f/" + fargate,
		zone: "us-west-2a", internalIP: "10.0.1.200", pods: 1,
		labels: map[string]string{"eks.amazonaws.com/compute-type": "fargate", "eks.amazonaws.com/fargate-profile": "karpenter"}})
	const hybrid = "mi-0123456789abcdef0"
	w.node(nodeSpec{name: hybrid, providerID: "eks-hybrid:///us-west-2/e2e/" + hybrid, internalIP: "192.168.50.21", pods: 110,
		labels: map[string]string{"eks.amazonaws.com/compute-type": "hybrid"}})

	// Consolidation (last, so no later instance takes its address): Karpenter deleted the Node and terminated the instance; it removes the
	// finalizer once EC2 no longer reports the instance.
	w.deleteNode(leaving)
	if _, err := w.ec2.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{aws.ToString(old.InstanceId)}}); err != nil {
		t.Fatalf("terminating %s: %v", aws.ToString(old.InstanceId), err)
	}

	rep, _ := checkHealthy(t, runOpts{})
	if got := rep.ids("info"); !slices.Equal(got, []string{"node-network-not-ready " + booting, "pod-ip-allocation-failures " + nodeNameOf(general)}) {
		t.Errorf("info findings: got %q, want the booting node's network and the one sandbox failure", got)
	}
	s := rep.Summary
	if s.Skipped != 2 || s.SkippedBy["fargate"] != 1 || s.SkippedBy["hybrid"] != 1 || s.Terminating != 1 || s.Initialising < 1 {
		t.Errorf("summary: got %+v, want 2 skipped (1 Fargate, 1 hybrid), 1 terminating, the booting node initialising", s)
	}
	for _, c := range []struct{ node, status, state, compute, os string }{
		{fargate, "skipped", "skipped", "fargate", "linux"},
		{hybrid, "skipped", "skipped", "hybrid", "linux"},
		{leaving, "terminating", "terminating", "ec2", "linux"},
		{booting, "info", "initialising", "ec2", "linux"},
		{windows, "ok", "running", "ec2", "windows"},
	} {
		n := rep.node(t, c.node)
		if n.Status != c.status || n.Lifecycle.State != c.state || n.Platform.Compute != c.compute || n.Platform.OS != c.os {
			t.Errorf("%s: got status %q, state %q (%s), compute %q, os %q; want %q, %q, %q, %q", c.node, n.Status,
				n.Lifecycle.State, n.Lifecycle.Reason, n.Platform.Compute, n.Platform.OS, c.status, c.state, c.compute, c.os)
		}
	}
	winNode := rep.node(t, windows)
	if winNode.Platform.VPCCNI || winNode.Capacity == nil || !winNode.Capacity.Windows || winNode.Capacity.IPCapacity != 9 {
		t.Errorf("Windows node: got platform %+v, capacity %+v; want no aws-node and 9 pod IPs", winNode.Platform, winNode.Capacity)
	}
	d := karpnet(t, runOpts{}, "describe", "node", leaving, windows)
	wantCode(t, d, 0)
	for _, want := range []string{"↓ terminating", "State:         terminating: deleted", "karpenter.sh/termination",
		"Platform:      windows, IPv4 pods", "aws-node does not run here: Windows node"} {
		if !strings.Contains(d.stdout, want) {
			t.Errorf("describe node does not show %q:\n%s", want, d.stdout)
		}
	}

	// 20 minutes later the deletion has not finished although the instance is gone: stuck.
	// The booting node is still not ready: now critical.
	later := shiftedSnapshot(t, 20*time.Minute)
	r := karpnet(t, runOpts{}, "check", "-o", "json", "--snapshot", later)
	wantCode(t, r, 1)
	var after shapeReport
	if err := json.Unmarshal([]byte(r.stdout), &after); err != nil {
		t.Fatalf("decoding -o json: %v", err)
	}
	want := []string{"node-network-not-ready " + booting, "node-termination-stuck " + leaving}
	if got := after.ids("warning", "critical"); !slices.Equal(got, want) {
		t.Errorf("20 minutes later: got %q, want %q", got, want)
	}

	// Without Windows IPAM the same Windows node advertises no addresses for its pods.
	noIPAM := w.instance(instanceSpec{typ: "m5.large", subnet: b.id, sgs: sgs, ip: "10.0.16.200"})
	w.karpenterNode(nodeNameOf(noIPAM), "windows", "windows", "v1", noIPAM, 110, func(s *nodeSpec) {
		s.labels = map[string]string{corev1.LabelOSStable: "windows"}
	})
	bad := decode(t, karpnet(t, runOpts{}, "check", "-o", "json", "--only", "windows-ipam-not-enabled"))
	if got := bad.set(); len(got) != 1 || got[0].Node != nodeNameOf(noIPAM) || got[0].Severity != "critical" {
		t.Errorf("windows-ipam-not-enabled: got %+v, want one critical on %s", got, nodeNameOf(noIPAM))
	}
}

// shiftedSnapshot saves what karpnet reads now and returns the file with its taken time moved
// d forward, so a replay sees the cluster as it is then.
func shiftedSnapshot(t *testing.T, d time.Duration) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "cluster.json")
	r := karpnet(t, runOpts{}, "check", "-o", "json", "--save-snapshot", file)
	if r.code != 0 && r.code != 1 {
		wantCode(t, r, 1)
	}
	shiftSnapshot(t, file, d)
	return file
}

// TestHealthyProfileInAnotherRegion: an operator whose AWS profile points at eu-west-1 checks
// a cluster in us-west-2. karpnet reads EC2 where the providerIDs say and notes it once.
func TestHealthyProfileInAnotherRegion(t *testing.T) {
	newHealthyCluster(t)
	rep, j := checkHealthy(t, runOpts{env: []string{"AWS_REGION=eu-west-1", "AWS_DEFAULT_REGION=eu-west-1"}})
	const note = "the AWS configuration's Region is eu-west-1, but the nodes' providerIDs are in us-west-2: " +
		"EC2 was read there (pass --region to choose)"
	if rep.Region != region || !slices.Equal(rep.Notes, []string{note}) || len(rep.Findings) != 0 {
		t.Errorf("got region %q, notes %q, %d findings; want %s, the note, none", rep.Region, rep.Notes, len(rep.Findings), region)
	}
	if strings.Count(j.stderr, "note: ") != 1 || !strings.Contains(j.stderr, note) {
		t.Errorf("stderr: got %q, want the note once", j.stderr)
	}
	// --region is the user's choice: the nodes are then looked for in eu-west-1.
	r := karpnet(t, runOpts{env: []string{"AWS_REGION=eu-west-1"}}, "check", "--region", "eu-west-1", "-o", "json")
	wantCode(t, r, 1)
	if got := decode(t, r).set(); len(got) != 3 || got[0].ID != "instance-not-found" {
		t.Errorf("with --region eu-west-1: got %+v, want instance-not-found on the 3 nodes", got)
	}
}

// TestHealthyCilium is a cluster whose pods Cilium networks: its EKS install patches aws-node
// with a nodeSelector no node carries, so the DaemonSet schedules no pod, and Karpenter nodes
// run 110 pods on an overlay (cilium-config ipam: cluster-pool), their NodePool listing
// Cilium's startup taint. aws-node's leftover settings (prefix delegation on a VPC CNI too old
// for it, its network policy agent off) apply nowhere, and Cilium enforces the
// NetworkPolicies. Then the NodePool without the taint.
func TestHealthyCilium(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNodeWith(map[string]string{"ENABLE_PREFIX_DELEGATION": "true", "WARM_PREFIX_TARGET": "1"}, func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"io.cilium/aws-node-enabled": "true"}
		ds.Spec.Template.Spec.Containers[0].Image = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.8.0"
		ds.Spec.Template.Spec.Containers = append(ds.Spec.Template.Spec.Containers, corev1.Container{Name: "aws-eks-nodeagent",
			Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon/aws-network-policy-agent:v1.0.1",
			Args:  []string{"--enable-network-policy=false"}})
	})
	w.awsNodeStatus(0)
	w.cilium(map[string]string{"ipam": "cluster-pool"})
	w.networkPolicy("default-deny")
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a}, sgs: sgs, maxPods: 110})
	w.nodePool("general", "v1", "default", []string{"us-west-2a"}, 0)
	w.startupTaint("general", "node.cilium.io/agent-not-ready")
	var nodes []string
	for range 2 {
		in := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: sgs})
		w.karpenterNode(nodeNameOf(in), "general", "default", "v1", in, 110, nil)
		nodes = append(nodes, nodeNameOf(in))
	}
	rep, _ := checkHealthy(t, runOpts{})
	for _, name := range nodes {
		n := rep.node(t, name)
		if n.Platform.VPCCNI || !strings.Contains(n.Platform.VPCCNIReason, "status.desiredNumberScheduled 0") {
			t.Errorf("%s: got vpcCNI %v (%q), want aws-node not running: it schedules no pod", name, n.Platform.VPCCNI, n.Platform.VPCCNIReason)
		}
	}
	d := karpnet(t, runOpts{}, "describe", "node", nodes[0])
	wantCode(t, d, 0)
	if !strings.Contains(d.stdout, "VPC CNI:       aws-node does not run here: the DaemonSet schedules no pod") {
		t.Errorf("describe node does not say aws-node runs nowhere:\n%s", d.stdout)
	}

	// Without the startup taint, Karpenter would launch nodes for pods the taint keeps out.
	w.nodePool("batch", "v1", "default", []string{"us-west-2a"}, 0)
	r := karpnet(t, runOpts{}, "check", "-o", "json", "--fail-on", "warning")
	wantCode(t, r, 1)
	want := []finding{{"nodepool-startup-taint-missing", "warning", "", "nodepool/batch"}}
	if diff := cmpDiff(want, decode(t, r).set()); diff != "" {
		t.Errorf("findings with a NodePool without Cilium's taint (-want +got):\n%s", diff)
	}
}

// TestHealthyIPv6 is an IPv6 cluster: dual-stack subnets, aws-node with ENABLE_IPv6 and prefix
// delegation, nodes whose first InternalIP is IPv6 and whose primary ENI holds a /80 for
// pods, 110 pods on a t3.large whose IPv4 ceiling would be 35. Next to them, a node whose
// primary ENI never got its /80 is critical.
func TestHealthyIPv6(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	ctx := t.Context()
	if _, err := w.ec2.AssociateVpcCidrBlock(ctx, &ec2.AssociateVpcCidrBlockInput{
		VpcId: aws.String(w.vpcID), AmazonProvidedIpv6CidrBlock: aws.Bool(true)}); err != nil {
		t.Fatalf("giving the VPC an IPv6 CIDR: %v", err)
	}
	vpcs, err := w.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{w.vpcID}})
	if err != nil || len(vpcs.Vpcs) != 1 || len(vpcs.Vpcs[0].Ipv6CidrBlockAssociationSet) == 0 {
		t.Fatalf("describing the VPC's IPv6 CIDR: %v", err)
	}
	v6 := netip.MustParsePrefix(aws.ToString(vpcs.Vpcs[0].Ipv6CidrBlockAssociationSet[0].Ipv6CidrBlock))
	a := subnetRef{w.createSubnetWith(&ec2.CreateSubnetInput{VpcId: aws.String(w.vpcID), CidrBlock: aws.String("10.0.0.0/20"),
		Ipv6CidrBlock: aws.String(netip.PrefixFrom(v6.Addr(), 64).String()), AvailabilityZone: aws.String("us-west-2a")}), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNode(map[string]string{"ENABLE_IPv6": "true", "ENABLE_IPv4": "false", "ENABLE_PREFIX_DELEGATION": "true"})
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a}, sgs: sgs, maxPods: 110})
	w.nodePool("general", "v1", "default", []string{"us-west-2a"}, 0)
	ipv6Node := func(prefix bool) string {
		run, err := w.ec2.RunInstances(ctx, &ec2.RunInstancesInput{ImageId: aws.String("ami-0123456789abcdef0"),
			InstanceType: "t3.large", MinCount: aws.Int32(1), MaxCount: aws.Int32(1), SubnetId: aws.String(a.id),
			SecurityGroupIds: sgs, Ipv6AddressCount: aws.Int32(1)})
		if err != nil {
			t.Fatalf("launching an IPv6 node: %v", err)
		}
		eni := run.Instances[0].NetworkInterfaces[0]
		if prefix {
			if _, err := w.ec2.AssignIpv6Addresses(ctx, &ec2.AssignIpv6AddressesInput{
				NetworkInterfaceId: eni.NetworkInterfaceId, Ipv6PrefixCount: aws.Int32(1)}); err != nil {
				t.Fatalf("assigning a /80: %v", err)
			}
		}
		in := w.describe(aws.ToString(run.Instances[0].InstanceId))
		name := nodeNameOf(in)
		w.karpenterNode(name, "general", "default", "v1", in, 110, func(s *nodeSpec) {
			s.internalIPv6 = aws.ToString(in.NetworkInterfaces[0].Ipv6Addresses[0].Ipv6Address)
		})
		return name
	}
	var nodes []string
	for range 2 {
		nodes = append(nodes, ipv6Node(true))
	}
	rep, _ := checkHealthy(t, runOpts{})
	for _, name := range nodes {
		n := rep.node(t, name)
		if n.Platform.IPFamily != "ipv6" || n.Capacity == nil || n.Capacity.IPFamily != "ipv6" || n.Capacity.IPCapacity != 1<<48 {
			t.Errorf("%s: got platform %+v, capacity %+v; want IPv6 with one /80", name, n.Platform, n.Capacity)
		}
	}
	broken := ipv6Node(false)
	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 1)
	got := decode(t, r).set()
	if len(got) != 1 || got[0] != (finding{"ipv6-prefix-missing", "critical", broken, "node/" + broken}) {
		t.Errorf("got %+v, want ipv6-prefix-missing critical on %s only", got, broken)
	}
}
