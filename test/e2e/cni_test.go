package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// cniNIC is one network interface of a cniLaunch: its subnet, device index on card 0 and
// how many /28 prefixes it gets.
type cniNIC struct {
	subnet   string
	device   int32
	prefixes int32
	// addresses is the number of secondary addresses.
	addresses int32
}

// cniLaunch launches an m5.large whose primary interface (device 0) is in subnet with address
// ip, plus the given secondary interfaces, as the VPC CNI leaves them, all with sgs.
func (w *world) cniLaunch(subnet, ip string, sgs []string, secondary ...cniNIC) ec2types.Instance {
	w.t.Helper()
	nics := []ec2types.InstanceNetworkInterfaceSpecification{{
		DeviceIndex: aws.Int32(0), SubnetId: aws.String(subnet), Groups: sgs, PrivateIpAddress: aws.String(ip),
	}}
	for _, n := range secondary {
		spec := ec2types.InstanceNetworkInterfaceSpecification{
			DeviceIndex: aws.Int32(n.device), SubnetId: aws.String(n.subnet), Groups: sgs,
		}
		if n.prefixes > 0 {
			spec.Ipv4PrefixCount = aws.Int32(n.prefixes)
		}
		if n.addresses > 0 {
			spec.SecondaryPrivateIpAddressCount = aws.Int32(n.addresses)
		}
		nics = append(nics, spec)
	}
	out, err := w.ec2.RunInstances(w.t.Context(), &ec2.RunInstancesInput{
		ImageId: aws.String("ami-0123456789abcdef0"), InstanceType: ec2types.InstanceTypeM5Large,
		MinCount: aws.Int32(1), MaxCount: aws.Int32(1), NetworkInterfaces: nics,
	})
	if err != nil {
		w.t.Fatalf("launching an m5.large in %s with %d secondary interfaces: %v", subnet, len(secondary), err)
	}
	return w.describe(aws.ToString(out.Instances[0].InstanceId))
}

// cniAttachTrunk attaches a trunk interface to the instance at device 2, as the VPC resource
// controller does for security groups for pods.
func (w *world) cniAttachTrunk(in ec2types.Instance, subnet string, sgs []string) {
	w.t.Helper()
	ctx := w.t.Context()
	eni, err := w.ec2.CreateNetworkInterface(ctx, &ec2.CreateNetworkInterfaceInput{
		SubnetId: aws.String(subnet), Groups: sgs, InterfaceType: ec2types.NetworkInterfaceCreationTypeTrunk,
		Description: aws.String("aws-k8s-trunk-eni"),
	})
	if err != nil {
		w.t.Fatalf("creating a trunk interface: %v", err)
	}
	if _, err := w.ec2.AttachNetworkInterface(ctx, &ec2.AttachNetworkInterfaceInput{
		InstanceId: in.InstanceId, NetworkInterfaceId: eni.NetworkInterface.NetworkInterfaceId, DeviceIndex: aws.Int32(2),
	}); err != nil {
		w.t.Fatalf("attaching the trunk interface: %v", err)
	}
}

// shiftSnapshot moves a saved snapshot's "taken" time forward by d: replaying it runs the
// checks as if the cluster had been read that much later.
func shiftSnapshot(t *testing.T, file string, d time.Duration) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("decoding the snapshot: %v", err)
	}
	taken, err := time.Parse(time.RFC3339Nano, s["taken"].(string))
	if err != nil {
		t.Fatalf("reading the snapshot's taken time: %v", err)
	}
	s["taken"] = taken.Add(d).Format(time.RFC3339Nano)
	if b, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// vpcCNIWorld builds TestVPCCNI's cluster: custom networking with an ENIConfig per zone but
// one, prefix delegation, a node whose ENIConfig is in another zone, one on the node subnet,
// one without its trunk ENI, one whose CNI never initialized, a drifted one and an old aws-node.
func vpcCNIWorld(t *testing.T) {
	t.Helper()
	w := newWorld(t, harness.CRDsV1)
	ctx := t.Context()
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	b := subnetRef{w.subnet("10.0.16.0/20", "us-west-2b"), "us-west-2b"}
	c := subnetRef{w.subnet("10.0.32.0/20", "us-west-2c"), "us-west-2c"}
	podsA := w.subnet("10.0.128.0/20", "us-west-2a")
	podsB := w.subnet("10.0.144.0/20", "us-west-2b")
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	debug := w.securityGroup("debug-ssh", false)

	// Custom networking with one ENIConfig per zone, named after it; us-west-2c was added to
	// the NodePool later and has none. Prefix delegation and security groups for pods are on,
	// and multi-NIC was turned on without upgrading the VPC CNI from 1.19.
	w.awsNode(map[string]string{
		"AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "true", "ENI_CONFIG_LABEL_DEF": "topology.kubernetes.io/zone",
		"ENABLE_PREFIX_DELEGATION": "true", "WARM_PREFIX_TARGET": "1", "ENABLE_POD_ENI": "true", "ENABLE_MULTI_NIC": "true",
	})
	ds, err := w.kube.AppsV1().DaemonSets("kube-system").Get(ctx, "aws-node", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading aws-node: %v", err)
	}
	ds.Spec.Template.Spec.Containers[0].Image = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.19.2-eksbuild.1"
	if _, err := w.kube.AppsV1().DaemonSets("kube-system").Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("setting the aws-node image: %v", err)
	}
	for zone, subnet := range map[string]string{"us-west-2a": podsA, "us-west-2b": podsB} {
		w.create(gvrENIConfig, map[string]any{
			"apiVersion": "crd.k8s.amazonaws.com/v1alpha1", "kind": "ENIConfig", "metadata": map[string]any{"name": zone},
			"spec": map[string]any{"subnet": subnet, "securityGroups": []any{sgs[0], sgs[1]}},
		}, nil)
	}

	// "general" sets kubelet.maxPods for prefixes; "batch" leaves max pods to Karpenter, which
	// computes the secondary-IP value with RESERVED_ENIS=1: 20 on an m5.large.
	zones := []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	w.nodeClass(nodeClassSpec{name: "general", subnets: []subnetRef{a, b, c}, sgs: sgs, maxPods: 110})
	w.nodePool("general", "v1", "general", zones, 0)
	w.nodeClass(nodeClassSpec{name: "batch", subnets: []subnetRef{a, b}, sgs: sgs})
	w.nodePool("batch", "v1", "batch", zones[:2], 0)

	const dom = ".us-west-2.compute.internal"
	pods := func(n int32) cniNIC { return cniNIC{subnet: podsA, device: 1, prefixes: n} }
	podsInB := func(n int32) cniNIC { return cniNIC{subnet: podsB, device: 1, prefixes: n} }
	podENI := func(s *nodeSpec) {
		s.labels = map[string]string{"vpc.amazonaws.com/has-trunk-attached": "true"}
		s.extra = corev1.ResourceList{"vpc.amazonaws.com/pod-eni": resource.MustParse("9")}
	}

	// Healthy: a secondary ENI with a prefix in the zone's pod subnet.
	w.karpenterNode("ip-10-0-0-10"+dom, "general", "general", "v1", w.cniLaunch(a.id, "10.0.0.10", sgs, pods(1)), 110, nil)
	w.karpenterNode("ip-10-0-16-10"+dom, "general", "general", "v1", w.cniLaunch(b.id, "10.0.16.10", sgs, podsInB(1)), 110, nil)
	// Healthy with security groups for pods: the resource controller attached its trunk.
	sgp := w.cniLaunch(a.id, "10.0.0.11", sgs, pods(1))
	w.cniAttachTrunk(sgp, a.id, sgs)
	w.karpenterNode("ip-10-0-0-11"+dom, "general", "general", "v1", sgp, 110, podENI)
	// Healthy managed node group node with prefix delegation's max pods.
	mng := w.cniLaunch(b.id, "10.0.16.11", sgs, podsInB(2))
	w.node(nodeSpec{name: "ip-10-0-16-11" + dom, providerID: providerID(mng), zone: "us-west-2b", typ: "m5.large",
		internalIP: "10.0.16.11", pods: 110, labels: map[string]string{"eks.amazonaws.com/nodegroup": "ng-1"}})

	// Karpenter wrote its secondary-IP max pods though prefixes allow 110.
	w.karpenterNode("ip-10-0-0-20"+dom, "batch", "batch", "v1", w.cniLaunch(a.id, "10.0.0.20", sgs, pods(1)), 20, nil)
	// The pod subnet is too fragmented for a /28: the secondary ENI got no prefix and pods fail.
	w.karpenterNode("ip-10-0-16-20"+dom, "general", "general", "v1", w.cniLaunch(b.id, "10.0.16.20", sgs, podsInB(0)), 110, nil)
	w.sandboxFailure("ip-10-0-16-20"+dom, "checkout-5c8d7", 6)
	w.sandboxFailure("ip-10-0-16-20"+dom, "cart-9f2b1", 2)
	// A node in us-west-2c, which has no ENIConfig: ipamd attached nothing.
	w.karpenterNode("ip-10-0-32-10"+dom, "general", "general", "v1", w.cniLaunch(c.id, "10.0.32.10", sgs), 110, nil)
	// An out-of-band ENIConfig label pins a us-west-2b node to the us-west-2a ENIConfig.
	w.karpenterNode("ip-10-0-16-21"+dom, "general", "general", "v1", w.cniLaunch(b.id, "10.0.16.21", sgs), 110, func(s *nodeSpec) {
		s.labels = map[string]string{"vpc.amazonaws.com/externalEniConfig": "us-west-2a"}
	})
	// A secondary ENI attached before custom networking was turned on stays in the node subnet.
	w.karpenterNode("ip-10-0-0-21"+dom, "general", "general", "v1",
		w.cniLaunch(a.id, "10.0.0.21", sgs, cniNIC{subnet: a.id, device: 1, prefixes: 1}), 110, nil)
	// Security groups for pods advertised, but the trunk ENI is gone.
	w.karpenterNode("ip-10-0-0-22"+dom, "general", "general", "v1", w.cniLaunch(a.id, "10.0.0.22", sgs, pods(1)), 110, podENI)
	// A new node whose aws-node cannot start: kubelet reports the CNI not initialized.
	w.karpenterNode("ip-10-0-0-23"+dom, "general", "general", "v1", w.cniLaunch(a.id, "10.0.0.23", sgs), 110, func(s *nodeSpec) {
		s.conditions = []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady",
			Message: "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady " +
				"message:Network plugin returns error: cni plugin not initialized",
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
		}}
	})
	// A debugging group attached by hand: Karpenter marked the NodeClaim drifted.
	w.karpenterNode("ip-10-0-0-24"+dom, "general", "general", "v1",
		w.cniLaunch(a.id, "10.0.0.24", append([]string{debug}, sgs...), pods(1)), 110, func(s *nodeSpec) {
			s.claimConditions = []map[string]any{condition("Drifted", "True", "SecurityGroupDrift", "")}
		})
}

// TestVPCCNI is a cluster on custom networking with prefix delegation and security groups for
// pods, where each VPC CNI check has one node or setting in the state a user ends up in, and
// healthy nodes (Karpenter and a managed node group) beside them stay clean.
func TestVPCCNI(t *testing.T) {
	vpcCNIWorld(t)
	const dom = ".us-west-2.compute.internal"
	node := func(name string) string { return "ip-10-0-" + name + dom }
	want := []finding{
		{"eniconfig-missing", "critical", node("32-10"), "node/" + node("32-10")},
		{"eniconfig-subnet-mismatch", "warning", node("0-21"), "node/" + node("0-21")},
		{"eniconfig-zone-mismatch", "critical", node("16-21"), "node/" + node("16-21")},
		{"max-pods-below-ip-capacity", "info", node("0-20"), "node/" + node("0-20")},
		{"node-network-not-ready", "critical", node("0-23"), "node/" + node("0-23")},
		{"nodeclaim-drifted", "info", node("0-24"), "nodeclaim/" + claimName("general", node("0-24"))},
		{"pod-ip-allocation-failures", "critical", node("16-20"), "node/" + node("16-20")},
		{"security-group-drift", "warning", node("0-24"), "ec2nodeclass/general"},
		{"trunk-eni-missing", "warning", node("0-22"), "node/" + node("0-22")},
		{"vpc-cni-version-too-old", "warning", "", "daemonset/kube-system/aws-node"},
	}

	snap := filepath.Join(t.TempDir(), "cni.json")
	r := karpnet(t, runOpts{}, "check", "-o", "json", "--save-snapshot", snap)
	wantCode(t, r, 1)
	rep := decode(t, r)
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}

	// The same cluster 15 minutes later: the fragmented node still has no prefix, well past
	// the few minutes ipamd needs to attach one, and its pod stopped failing 15 minutes ago,
	// which makes the sandbox failures a warning.
	shiftSnapshot(t, snap, 15*time.Minute)
	r = karpnet(t, runOpts{}, "check", "-o", "json", "--snapshot", snap)
	wantCode(t, r, 1)
	later := append(want[:6:6], finding{"pod-ip-allocation-failures", "warning", node("16-20"), "node/" + node("16-20")},
		finding{"prefix-delegation-inactive", "warning", node("16-20"), "node/" + node("16-20")})
	later = append(later, want[7:]...)
	rep = decode(t, r)
	if diff := cmpDiff(later, rep.set()); diff != "" {
		t.Errorf("findings 15 minutes later (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, f := range rep.Findings {
		if f.Message == "" || f.Remedy == "" {
			t.Errorf("finding %s on %s%s has no message or remedy", f.ID, f.Node, f.Resource)
		}
	}
}
