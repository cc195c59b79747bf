package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// The models behind the subnet, security group, trunk ENI, prefix delegation and ENIConfig
// checks, each on the shape real clusters have (healthy) and on the shape that breaks it,
// side by side in one cluster.

var gvrCNINode = schema.GroupVersionResource{Group: "vpcresources.k8s.aws", Version: "v1alpha1", Resource: "cninodes"}

// sortedFindings sorts findings as jsonReport.set does.
func sortedFindings(fs ...finding) []finding {
	slices.SortFunc(fs, func(a, b finding) int { return strings.Compare(a.ID+a.Node+a.Resource, b.ID+b.Node+b.Resource) })
	return fs
}

// allowCIDR adds an inbound rule of protocol p over ports from to to, from an IPv4 CIDR.
func (w *world) allowCIDR(sg, p string, from, to int32, cidr string) {
	w.t.Helper()
	perm := []ec2types.IpPermission{{IpProtocol: aws.String(p), FromPort: aws.Int32(from), ToPort: aws.Int32(to),
		IpRanges: []ec2types.IpRange{{CidrIp: aws.String(cidr)}}}}
	if _, err := w.ec2.AuthorizeSecurityGroupIngress(w.t.Context(), &ec2.AuthorizeSecurityGroupIngressInput{
		GroupId: aws.String(sg), IpPermissions: perm}); !authorized(err) {
		w.t.Fatalf("allowing %s %d-%d into %s from %s: %v", p, from, to, sg, cidr, err)
	}
}

// tfNodeGroup creates the node security group terraform-aws-eks makes (its recommended rules:
// the control plane's ports from the cluster group, DNS over TCP and UDP 53 and TCP 1025-65535
// from itself, all traffic out), tagged for the cluster and for Karpenter's discovery. Without
// udp, the UDP 53 rule is left out, as in a group whose rules were written by hand.
func (w *world) tfNodeGroup(name, cluster string, udp bool) string {
	w.t.Helper()
	sg := w.securityGroup(name, false)
	for _, port := range []int32{443, 4443, 6443, 8443, 9443, 10250} {
		w.allow(sg, "tcp", port, port, cluster)
	}
	w.allow(sg, "tcp", 53, 53, sg)
	if udp {
		w.allow(sg, "udp", 53, 53, sg)
	}
	w.allow(sg, "tcp", 1025, 65535, sg)
	w.tag(sg, "kubernetes.io/cluster/e2e", "owned")
	w.tag(sg, "karpenter.sh/discovery", "e2e")
	return sg
}

// securityGroupsWorld builds TestModelSecurityGroups' cluster: node groups made by Terraform's
// EKS module, by hand without the DNS rule, VPC-wide and untagged, and a class with two groups
// tagged for the cluster. It returns the cluster's group, the Terraform one and the hand-made one.
func securityGroupsWorld(t *testing.T) (cluster, tf, handMade string) {
	t.Helper()
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	cluster = w.securityGroup("eks-cluster-sg-e2e", true)
	w.tag(cluster, "kubernetes.io/cluster/e2e", "owned")
	w.awsNode(map[string]string{"CLUSTER_NAME": "e2e"})

	tf = w.tfNodeGroup("e2e-node", cluster, true)
	handMade = w.tfNodeGroup("e2e-node-legacy", cluster, false)
	vpcWide := w.securityGroup("e2e-vpc-wide", false)
	w.allowCIDR(vpcWide, "-1", 0, 0, "10.0.0.0/16")
	untagged := w.securityGroup("e2e-node-untagged", false)
	w.allow(untagged, "tcp", 10250, 10250, cluster)

	zones := []string{"us-west-2a"}
	const dom = ".us-west-2.compute.internal"
	classes := []struct {
		name, ip string
		sgs      []string
	}{
		{"terraform", "10.0.0.10", []string{tf}},
		{"vpc-wide", "10.0.0.11", []string{vpcWide}},
		{"primary", "10.0.0.12", []string{cluster, untagged}},
		{"legacy", "10.0.0.20", []string{handMade}},
		{"both-tagged", "10.0.0.21", []string{cluster, tf}},
	}
	for _, c := range classes {
		w.nodeClass(nodeClassSpec{name: c.name, subnets: []subnetRef{a}, sgs: c.sgs})
		w.nodePool(c.name, "v1", c.name, zones, 0)
		in := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: c.sgs, ip: c.ip})
		w.karpenterNode("ip-"+strings.ReplaceAll(c.ip, ".", "-")+dom, c.name, c.name, "v1", in, 29, nil)
	}

	return cluster, tf, handMade
}

// TestModelSecurityGroups: nodes on terraform-aws-eks's node group, on a group that admits
// the VPC's CIDR, and on the cluster group with an untagged node group stay clean; a node group
// without UDP 53 blocks DNS, and two groups tagged for the cluster on one ENI stop the AWS Load
// Balancer Controller.
func TestModelSecurityGroups(t *testing.T) {
	cluster, tf, handMade := securityGroupsWorld(t)
	const dom = ".us-west-2.compute.internal"

	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 0)
	rep := decode(t, r)
	want := []finding{
		{"security-group-cluster-tag-conflict", "warning", "ip-10-0-0-21" + dom, "ec2nodeclass/both-tagged"},
		{"security-group-node-to-node-blocked", "warning", "ip-10-0-0-20" + dom, "ec2nodeclass/legacy"},
	}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Fatalf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, f := range rep.Findings {
		switch f.ID {
		case "security-group-node-to-node-blocked":
			// Only UDP 53 is missing, and the fix names the group.
			if !strings.Contains(f.Message, "DNS to CoreDNS over UDP 53 into the node's groups") ||
				strings.Contains(f.Message, "TCP 53") || strings.Contains(f.Message, "1025-65535") {
				t.Errorf("the blocked flows are not UDP 53 alone: %s", f.Message)
			}
			if fix := "--group-id " + handMade + " --protocol udp --port 53 --source-group " + handMade; !strings.Contains(commandLines(f.Commands), fix) {
				t.Errorf("the remedy's commands lack %q: %s", fix, commandLines(f.Commands))
			}
		case "security-group-cluster-tag-conflict":
			for _, id := range []string{cluster, tf, "kubernetes.io/cluster/e2e"} {
				if !strings.Contains(f.Message, id) {
					t.Errorf("message lacks %s: %s", id, f.Message)
				}
			}
		}
	}
}

// TestModelSubnetCapacity: a class with a full small subnet next to a roomy one in the same
// zone, and an m5.24xlarge class on a /21, stay clean; a class whose only subnet is that small
// one can take no more node, and the m5.24xlarge class on a /24 fits only a few more.
func TestModelSubnetCapacity(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	roomy := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	small := subnetRef{w.subnet("10.0.16.0/28", "us-west-2a"), "us-west-2a"}
	wide := subnetRef{w.subnet("10.0.32.0/21", "us-west-2b"), "us-west-2b"}
	narrow := subnetRef{w.subnet("10.0.48.0/24", "us-west-2c"), "us-west-2c"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1", "ENABLE_SUBNET_DISCOVERY": "false"})

	class := func(name string, subnets ...subnetRef) {
		w.nodeClass(nodeClassSpec{name: name, subnets: subnets, sgs: sgs})
		w.nodePool(name, "v1", name, []string{subnets[0].zone}, 0)
	}
	class("default", roomy, small)
	class("edge", small)
	class("large", wide)
	class("large-narrow", narrow)

	// Each node holds what ipamd gives it at start with WARM_ENI_TARGET=1: its primary ENI
	// full (9 secondary IPs on an m5.large, 49 on an m5.24xlarge).
	node := func(pool string, typ string, s subnetRef, secondary int32, pods int64) string {
		in := w.warmIPs(w.instance(instanceSpec{typ: typ, subnet: s.id, sgs: sgs}), secondary)
		w.karpenterNode(nodeNameOf(in), pool, pool, "v1", in, pods, nil)
		return nodeNameOf(in)
	}
	node("default", "m5.large", roomy, 9, 29)
	node("edge", "m5.large", small, 9, 29) // the /28's 11 addresses: 1 left
	node("large", "m5.24xlarge", wide, 49, 737)
	node("large-narrow", "m5.24xlarge", narrow, 49, 737)

	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 1)
	rep := decode(t, r)
	want := sortedFindings(
		finding{"subnet-ip-exhaustion", "critical", "", "subnet/" + small.id},
		finding{"subnet-ip-exhaustion", "warning", "", "subnet/" + narrow.id},
	)
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Fatalf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, f := range rep.Findings {
		var parts []string
		switch f.Resource {
		case "subnet/" + small.id:
			parts = []string{"EC2NodeClass edge in us-west-2a can take no more node", "(10.0.16.0/28, 1 free of 11 usable) has fewer free addresses than the 10",
				"1 primary IP + 9 warm addresses (WARM_ENI_TARGET=1"}
		case "subnet/" + narrow.id:
			parts = []string{"only 4 more nodes of EC2NodeClass large-narrow in us-west-2c fit", "(10.0.48.0/24, 201 free of 251 usable)",
				"each takes about 50 addresses", "49 secondary IPs"}
		}
		for _, p := range parts {
			if !strings.Contains(f.Message, p) {
				t.Errorf("%s message lacks %q: %s", f.Resource, p, f.Message)
			}
		}
	}
}

// TestModelSubnetDiscovery: with the VPC CNI's subnet discovery, pods' ENIs go to subnets
// tagged kubernetes.io/role/cni=1. In us-west-2a a roomy tagged subnet carries them next to a
// full one; in us-west-2b the node subnet is excluded (kubernetes.io/role/cni=0) and the only
// tagged subnet is full. Discovery costs one DescribeSubnets, and none when it is off.
func TestModelSubnetDiscovery(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	ctx := t.Context()
	a := subnetRef{w.subnet("10.0.0.0/24", "us-west-2a"), "us-west-2a"}
	b := subnetRef{w.subnet("10.0.1.0/24", "us-west-2b"), "us-west-2b"}
	w.tag(b.id, "kubernetes.io/role/cni", "0")
	podsA := w.subnet("10.0.16.0/20", "us-west-2a")
	fullA := w.subnet("10.0.32.0/28", "us-west-2a")
	fullB := w.subnet("10.0.48.0/28", "us-west-2b")
	for _, id := range []string{podsA, fullA, fullB} {
		w.tag(id, "kubernetes.io/role/cni", "1")
	}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1"})
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a, b}, sgs: sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2a", "us-west-2b"}, 0)

	// Something else filled the small tagged subnets: 10 of their 11 addresses are taken.
	for _, id := range []string{fullA, fullB} {
		w.warmIPs(w.instance(instanceSpec{typ: "m5.large", subnet: id, sgs: sgs}), 9)
	}
	// Nodes with their primary ENI full and a pod ENI of 10 addresses in a tagged subnet.
	for _, s := range []struct {
		node subnetRef
		pods string
	}{{a, podsA}, {a, podsA}, {b, fullB}} {
		in := w.warmIPs(w.instance(instanceSpec{typ: "m5.large", subnet: s.node.id, sgs: sgs}), 9)
		if s.pods != fullB {
			w.podInterface(in, s.pods, sgs, 0, 9)
		}
		w.karpenterNode(nodeNameOf(in), "general", "default", "v1", w.describe(aws.ToString(in.InstanceId)), 29, nil)
	}

	before := motoRequests(t)
	r := karpnet(t, runOpts{}, "check", "-o", "json")
	calls := deltaRequests(before, motoRequests(t))
	wantCode(t, r, 1)
	rep := decode(t, r)
	want := []finding{{"subnet-ip-exhaustion", "critical", "", "subnet/" + fullB}}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Fatalf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	msg := rep.Findings[0].Message
	for _, p := range []string{"the pod subnets of us-west-2b (subnet discovery", "its only subnet " + fullB,
		"an m5.large's first pod ENI, filled: 10 addresses"} {
		if !strings.Contains(msg, p) {
			t.Errorf("message lacks %q: %s", p, msg)
		}
	}
	if got := calls["DescribeSubnets"]; got != 2 {
		t.Errorf("check with subnet discovery made %d DescribeSubnets calls, want 2 (by ID, and by the kubernetes.io/role/cni tag): %v", got, calls)
	}

	// Subnet discovery turned off: the tagged subnets are no pod subnets, and not read.
	ds, err := w.kube.AppsV1().DaemonSets("kube-system").Get(ctx, "aws-node", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading aws-node: %v", err)
	}
	ds.Spec.Template.Spec.Containers[0].Env = append(ds.Spec.Template.Spec.Containers[0].Env,
		corev1.EnvVar{Name: "ENABLE_SUBNET_DISCOVERY", Value: "false"})
	if _, err := w.kube.AppsV1().DaemonSets("kube-system").Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("turning subnet discovery off: %v", err)
	}
	before = motoRequests(t)
	r = karpnet(t, runOpts{}, "check", "-o", "json")
	calls = deltaRequests(before, motoRequests(t))
	wantCode(t, r, 0)
	if got := decode(t, r).set(); len(got) != 0 {
		t.Errorf("findings with subnet discovery off: %v\n%s", got, r.stdout)
	}
	if got := calls["DescribeSubnets"]; got != 1 {
		t.Errorf("check without subnet discovery made %d DescribeSubnets calls, want 1: %v", got, calls)
	}
}

// TestModelTrunkENI: with security groups for pods, a node with its trunk, a node of a type
// without trunking and a node still starting stay clean; a node whose trunk the VPC resource
// controller never attached (no label, no pod-eni capacity: only its NodeClaim and CNINode
// tell) is found.
func TestModelTrunkENI(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNode(map[string]string{"ENABLE_POD_ENI": "true"})
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a}, sgs: sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2a"}, 0)

	// The m5.large nodes' max pods is 20, as Karpenter computes it with RESERVED_ENIS=1 for the
	// trunk, which the Karpenter docs ask for with security groups for pods.
	podENI := map[string]any{"vpc.amazonaws.com/pod-eni": "9"}
	cniNode := func(name string, features ...string) {
		var list []any
		for _, f := range features {
			list = append(list, map[string]any{"name": f})
		}
		w.create(gvrCNINode, map[string]any{"apiVersion": "vpcresources.k8s.aws/v1alpha1", "kind": "CNINode",
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"features": list}}, nil)
	}
	launch := func(typ string) ec2types.Instance {
		return w.instance(instanceSpec{typ: typ, subnet: a.id, sgs: sgs})
	}

	// Healthy: the resource controller attached the trunk, labelled the node and advertises
	// branch ENIs.
	trunked := launch("m5.large")
	w.cniAttachTrunk(trunked, a.id, sgs)
	w.karpenterNode(nodeNameOf(trunked), "general", "default", "v1", w.describe(aws.ToString(trunked.InstanceId)), 20, func(s *nodeSpec) {
		s.claimCapacity = podENI
		s.labels = map[string]string{"vpc.amazonaws.com/has-trunk-attached": "true"}
		s.extra = corev1.ResourceList{"vpc.amazonaws.com/pod-eni": resource.MustParse("9")}
	})
	cniNode(nodeNameOf(trunked), "SecurityGroupsForPods")
	// Healthy: a t2 supports no trunk; Karpenter gives its NodeClaim no pod-eni capacity.
	t2 := launch("t2.medium")
	w.karpenterNode(nodeNameOf(t2), "general", "default", "v1", t2, 17, nil)
	cniNode(nodeNameOf(t2), "SecurityGroupsForPods")
	// Healthy: a node still starting has no trunk yet.
	booting := launch("m5.large")
	w.karpenterNode(nodeNameOf(booting), "general", "default", "v1", booting, 20, func(s *nodeSpec) {
		s.claimCapacity, s.booting = podENI, true
	})
	// Broken: ipamd asked for the trunk, the resource controller could not attach it.
	failed := launch("m5.large")
	w.karpenterNode(nodeNameOf(failed), "general", "default", "v1", failed, 20, func(s *nodeSpec) { s.claimCapacity = podENI })
	cniNode(nodeNameOf(failed), "SecurityGroupsForPods")

	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 0)
	rep := decode(t, r)
	name := nodeNameOf(failed)
	want := []finding{{"trunk-eni-missing", "warning", name, "node/" + name}}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Fatalf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, p := range []string{"ENABLE_POD_ENI=true on a type that supports trunking", "vpc.amazonaws.com/pod-eni 9",
		"its CNINode asks for SecurityGroupsForPods, so the VPC resource controller failed to attach it"} {
		if !strings.Contains(rep.Findings[0].Message, p) {
			t.Errorf("message lacks %q: %s", p, rep.Findings[0].Message)
		}
	}
}

// TestModelPrefixDelegation: prefix delegation switched on while nodes run. A node with
// prefixes is clean; a node still on its secondary IPs gets an info that prefixes come with its
// replacement; a node that got neither, long after it started, is a warning.
func TestModelPrefixDelegation(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNode(map[string]string{"ENABLE_PREFIX_DELEGATION": "true", "WARM_PREFIX_TARGET": "1"})
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a}, sgs: sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2a"}, 0)

	// Max pods is 110, as for prefixes on an m5.large.
	prefixed := w.cniLaunch(a.id, "10.0.0.10", sgs, cniNIC{subnet: a.id, device: 1, prefixes: 1})
	w.karpenterNode(nodeNameOf(prefixed), "general", "default", "v1", prefixed, 110, nil)
	transition := w.warmIPs(w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: sgs, ip: "10.0.0.11"}), 9)
	w.karpenterNode(nodeNameOf(transition), "general", "default", "v1", transition, 110, nil)
	starved := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: sgs, ip: "10.0.0.12"})
	w.karpenterNode(nodeNameOf(starved), "general", "default", "v1", starved, 110, nil)

	// Read 15 minutes after the nodes started, past the few minutes ipamd takes.
	snap := shiftedSnapshot(t, 15*time.Minute)
	r := karpnet(t, runOpts{}, "check", "-o", "json", "--snapshot", snap)
	wantCode(t, r, 0)
	rep := decode(t, r)
	want := sortedFindings(
		finding{"prefix-delegation-inactive", "info", nodeNameOf(transition), "node/" + nodeNameOf(transition)},
		finding{"prefix-delegation-inactive", "warning", nodeNameOf(starved), "node/" + nodeNameOf(starved)},
	)
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Fatalf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, f := range rep.Findings {
		p := "holds an IPv4 prefix or a secondary IP"
		if f.Severity == "info" {
			p = "still hold 9 secondary IPs and no prefix"
		}
		if !strings.Contains(f.Message, p) {
			t.Errorf("%s %s message lacks %q: %s", f.Severity, f.Node, p, f.Message)
		}
	}
}

// TestModelENIConfigReferences: custom networking whose us-west-2a ENIConfig names a pod
// subnet that was deleted, and whose us-west-2c ENIConfig names a mistyped security group; the
// us-west-2b ENIConfig is sound and its node clean.
func TestModelENIConfigReferences(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	ctx := t.Context()
	zones := []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	var nodeSubnets []subnetRef
	for i, z := range zones {
		nodeSubnets = append(nodeSubnets, subnetRef{w.subnet([]string{"10.0.0.0/20", "10.0.16.0/20", "10.0.32.0/20"}[i], z), z})
	}
	deleted := w.subnet("10.0.128.0/20", "us-west-2a")
	if _, err := w.ec2.DeleteSubnet(ctx, &ec2.DeleteSubnetInput{SubnetId: aws.String(deleted)}); err != nil {
		t.Fatalf("deleting the pod subnet: %v", err)
	}
	podsB := w.subnet("10.0.144.0/20", "us-west-2b")
	podsC := w.subnet("10.0.160.0/20", "us-west-2c")
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNode(map[string]string{"AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "true", "ENI_CONFIG_LABEL_DEF": "topology.kubernetes.io/zone"})
	for zone, spec := range map[string]map[string]any{
		"us-west-2a": {"subnet": deleted, "securityGroups": []any{sgs[0]}},
		"us-west-2b": {"subnet": podsB, "securityGroups": []any{sgs[0]}},
		"us-west-2c": {"subnet": podsC, "securityGroups": []any{"sg-0123456789abcdef0"}},
	} {
		w.create(gvrENIConfig, map[string]any{"apiVersion": "crd.k8s.amazonaws.com/v1alpha1", "kind": "ENIConfig",
			"metadata": map[string]any{"name": zone}, "spec": spec}, nil)
	}
	w.nodeClass(nodeClassSpec{name: "default", subnets: nodeSubnets, sgs: sgs})
	w.nodePool("general", "v1", "default", zones, 0)

	const dom = ".us-west-2.compute.internal"
	w.karpenterNode("ip-10-0-0-10"+dom, "general", "default", "v1", w.cniLaunch(nodeSubnets[0].id, "10.0.0.10", sgs), 20, nil)
	w.karpenterNode("ip-10-0-16-10"+dom, "general", "default", "v1",
		w.cniLaunch(nodeSubnets[1].id, "10.0.16.10", sgs, cniNIC{subnet: podsB, device: 1}), 20, nil)
	w.karpenterNode("ip-10-0-32-10"+dom, "general", "default", "v1", w.cniLaunch(nodeSubnets[2].id, "10.0.32.10", sgs), 20, nil)

	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 1)
	rep := decode(t, r)
	want := []finding{
		{"eniconfig-reference-missing", "critical", "", "eniconfig/us-west-2a"},
		{"eniconfig-reference-missing", "critical", "", "eniconfig/us-west-2c"},
	}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Fatalf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, f := range rep.Findings {
		ref := deleted
		if f.Resource == "eniconfig/us-west-2c" {
			ref = "sg-0123456789abcdef0"
		}
		if !strings.Contains(f.Message, ref) {
			t.Errorf("%s message lacks %s: %s", f.Resource, ref, f.Message)
		}
		if lookup := "Name=vpc-id,Values=" + w.vpcID; !strings.Contains(commandLines(f.Commands), lookup) {
			t.Errorf("%s remedy's commands lack the look-up %s: %s", f.Resource, lookup, commandLines(f.Commands))
		}
	}
}
