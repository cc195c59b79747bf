package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// joinChecks are the checks of nodes that never joined, for --only.
const joinChecks = "nodeclaim-launch-failed,nodeclaim-not-registered,nodepool-registration-unhealthy," +
	"subnet-no-egress-route,security-group-egress-blocked,network-acl-blocks-node-traffic,instance-orphaned"

// TestJoinPrivateSubnet launches a NodeClaim into a subnet whose route table has no default
// route and whose VPC has no endpoints: the claim stays unregistered and both the claim and
// the subnet say why. With the full set of endpoints a private cluster needs, the subnet is
// healthy (the claim, still without a Node, stays reported, without the way-out cause).
func TestJoinPrivateSubnet(t *testing.T) {
	w, private, table, sgs := privateSubnetWorld(t)
	ctx := t.Context()
	const claim = privateClaim

	rep := decode(t, karpnet(t, runOpts{}, "check", "-o", "json", "--only", joinChecks))
	want := []finding{
		{"nodeclaim-not-registered", "critical", "", "nodeclaim/" + claim},
		{"subnet-no-egress-route", "critical", "", "subnet/" + private.id},
	}
	if got := rep.set(); !slices.Equal(got, want) {
		t.Fatalf("no route, no endpoints: got %+v, want %+v", got, want)
	}
	if m := message(rep, "nodeclaim-not-registered"); !strings.Contains(m, "subnet "+private.id+" has no way out") {
		t.Errorf("nodeclaim-not-registered: got %q, want it to say the subnet has no way out", m)
	}
	if m := message(rep, "subnet-no-egress-route"); !strings.Contains(m, "VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts") {
		t.Errorf("subnet-no-egress-route: got %q, want every missing endpoint named", m)
	}

	for _, svc := range []string{"ec2", "ecr.api", "ecr.dkr", "sts"} {
		if _, err := w.ec2.CreateVpcEndpoint(ctx, &ec2.CreateVpcEndpointInput{VpcId: aws.String(w.vpcID),
			ServiceName: aws.String("com.amazonaws.us-west-2." + svc), VpcEndpointType: ec2types.VpcEndpointTypeInterface,
			SubnetIds: []string{private.id}, SecurityGroupIds: sgs[1:], PrivateDnsEnabled: aws.Bool(true)}); err != nil {
			t.Fatalf("creating the %s endpoint: %v", svc, err)
		}
	}
	if _, err := w.ec2.CreateVpcEndpoint(ctx, &ec2.CreateVpcEndpointInput{VpcId: aws.String(w.vpcID),
		ServiceName: aws.String("com.amazonaws.us-west-2.s3"), VpcEndpointType: ec2types.VpcEndpointTypeGateway,
		RouteTableIds: []string{table}}); err != nil {
		t.Fatalf("creating the s3 gateway endpoint: %v", err)
	}
	rep = decode(t, karpnet(t, runOpts{}, "check", "-o", "json", "--only", joinChecks))
	want = []finding{{"nodeclaim-not-registered", "critical", "", "nodeclaim/" + claim}}
	if got := rep.set(); !slices.Equal(got, want) {
		t.Fatalf("with every endpoint: got %+v, want %+v", got, want)
	}
	if m := message(rep, "nodeclaim-not-registered"); strings.Contains(m, "no way out") {
		t.Errorf("nodeclaim-not-registered with every endpoint: got %q, want no way-out cause", m)
	}
}

// privateClaim is the NodeClaim privateSubnetWorld launches and that never registers.
const privateClaim = "private-7xk2p"

// privateSubnetWorld builds TestJoinPrivateSubnet's cluster: a class in a subnet with no route
// out and a VPC with no endpoints, and a claim launched there that never registered. It
// returns the world, the subnet, its route table and the class's security groups.
func privateSubnetWorld(t *testing.T) (*world, subnetRef, string, []string) {
	t.Helper()
	w := newWorld(t, harness.CRDsV1)
	private := subnetRef{w.subnet("10.0.32.0/20", "us-west-2a"), "us-west-2a"}
	table := w.routeTable(private.id)
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	w.nodeClass(nodeClassSpec{name: "private", subnets: []subnetRef{private}, sgs: sgs})
	w.nodePool("private", "v1", "private", []string{"us-west-2a"}, 0)
	in := w.instance(instanceSpec{typ: "m5.large", subnet: private.id, sgs: sgs})
	w.unjoinedClaim(privateClaim, "private", "private", providerID(in), 7*time.Minute, "True", "Launched", "")
	return w, private, table, sgs
}

// egressWorld builds TestJoinEgressRulesAndACLs' cluster: a class whose only security group
// lost its egress rule, a subnet whose network ACL admits replies only below the Linux
// ephemeral range and a hardened one that is healthy. It returns the narrow ACL's subnet.
func egressWorld(t *testing.T) (narrow subnetRef) {
	t.Helper()
	w := newWorld(t, harness.CRDsV1)
	ctx := t.Context()
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	narrow = subnetRef{w.subnet("10.0.16.0/20", "us-west-2b"), "us-west-2b"}
	hardened := subnetRef{w.subnet("10.0.48.0/20", "us-west-2c"), "us-west-2c"}
	cluster, nodes := w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)
	locked := w.securityGroup("locked-down", false)
	w.allow(locked, "tcp", 10250, 10250, cluster)
	if _, err := w.ec2.RevokeSecurityGroupEgress(ctx, &ec2.RevokeSecurityGroupEgressInput{GroupId: aws.String(locked),
		IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("-1"),
			IpRanges: []ec2types.IpRange{{CidrIp: aws.String("0.0.0.0/0")}}}}}); err != nil {
		t.Fatalf("revoking the egress rule of %s: %v", locked, err)
	}
	w.networkACL(narrow.id, 1024, 32767)
	w.networkACL(hardened.id, 1024, 65535)

	sgs := []string{cluster, nodes}
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a, hardened}, sgs: sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2a", "us-west-2c"}, 0)
	w.nodeClass(nodeClassSpec{name: "locked", subnets: []subnetRef{a}, sgs: []string{locked}})
	w.nodePool("locked", "v1", "locked", []string{"us-west-2a"}, 0)
	w.nodeClass(nodeClassSpec{name: "narrow", subnets: []subnetRef{narrow}, sgs: sgs})
	w.nodePool("narrow", "v1", "narrow", []string{"us-west-2b"}, 0)
	const dom = ".us-west-2.compute.internal"
	healthy := w.instance(instanceSpec{typ: "m5.large", subnet: hardened.id, sgs: sgs, ip: "10.0.48.10"})
	w.karpenterNode("ip-10-0-48-10"+dom, "general", "default", "v1", healthy, 29, nil)

	return narrow
}

// TestJoinEgressRulesAndACLs: a class whose only security group lost its egress rule, and a
// subnet whose network ACL admits the replies only below the Linux ephemeral range, next to
// a hardened ACL that is healthy (443 out, 1024-65535 in).
func TestJoinEgressRulesAndACLs(t *testing.T) {
	narrow := egressWorld(t)

	rep := decode(t, karpnet(t, runOpts{}, "check", "-o", "json", "--only", joinChecks))
	want := []finding{
		{"network-acl-blocks-node-traffic", "critical", "", "subnet/" + narrow.id},
		{"security-group-egress-blocked", "critical", "", "ec2nodeclass/locked"},
	}
	if got := rep.set(); !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if m := message(rep, "network-acl-blocks-node-traffic"); !strings.Contains(m, "32768-60999") {
		t.Errorf("network-acl-blocks-node-traffic: got %q, want the denied Linux ephemeral ports", m)
	}
}

// TestJoinLaunchFailedAndPoolUnhealthy: NodeClaims whose launch failed because the subnet was
// full (Karpenter v1 keeps Launched=Unknown with the reason; Launched=False too), and a NodePool whose
// registrations keep failing, next to a NodeClaim launched seconds ago that is healthy.
func TestJoinLaunchFailedAndPoolUnhealthy(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a}, sgs: sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2a"}, 0)
	w.create(schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}, map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": "batch"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
			"requirements": []any{},
		}}},
	}, map[string]any{"conditions": []any{condition("Ready", "True", "Ready", ""),
		condition("NodeRegistrationHealthy", "False", "RegistrationFailed", "Failed to register node")}})

	w.unjoinedClaim("general-full1", "general", "default", "", 2*time.Minute, "Unknown",
		"InsufficientFreeAddressesInSubnet", "There are not enough free IP addresses to launch an instance in this subnet")
	// The same error as a Launched=False condition (as older Karpenter versions and other tools write it).
	w.unjoinedClaim("general-full2", "general", "default", "", time.Minute, "False",
		"InsufficientFreeAddressesInSubnet", "There are not enough free IP addresses to launch an instance in this subnet")
	fresh := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: sgs})
	w.unjoinedClaim("general-fresh", "general", "default", providerID(fresh), 20*time.Second, "True", "Launched", "")

	rep := decode(t, karpnet(t, runOpts{}, "check", "-o", "json", "--only", joinChecks))
	want := []finding{
		{"nodeclaim-launch-failed", "critical", "", "nodeclaim/general-full1"},
		{"nodeclaim-launch-failed", "critical", "", "nodeclaim/general-full2"},
		{"nodepool-registration-unhealthy", "critical", "", "nodepool/batch"},
	}
	if got := rep.set(); !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if m := message(rep, "nodeclaim-launch-failed"); !strings.Contains(m, a.id) {
		t.Errorf("nodeclaim-launch-failed: got %q, want the class's subnet %s and its free addresses named", m, a.id)
	}
}

// unjoinedClaim creates a NodeClaim of pool and class that no Node answers: its providerID
// (empty before a launch), Launched with status, reason and message since ago, and
// Registered Unknown since then, as Karpenter leaves it.
func (w *world) unjoinedClaim(name, pool, class, providerID string, ago time.Duration, launched, reason, message string) {
	w.t.Helper()
	at := time.Now().Add(-ago)
	status := map[string]any{"conditions": []any{
		conditionAt("Launched", launched, reason, message, at),
		conditionAt("Registered", "Unknown", "NodeNotFound", "Node not registered with cluster", at),
		conditionAt("Initialized", "Unknown", "NodeNotFound", "Node not registered with cluster", at),
		conditionAt("Ready", "Unknown", "ReconcilingDependents", "", at),
	}}
	if providerID != "" {
		status["providerID"] = providerID
	}
	w.create(schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}, map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
		"metadata": map[string]any{"name": name, "labels": map[string]any{"karpenter.sh/nodepool": pool}},
		"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": class},
			"requirements": []any{},
		},
	}, status)
}

// conditionAt is a Karpenter status condition that last changed at at.
func conditionAt(typ, status, reason, message string, at time.Time) map[string]any {
	c := condition(typ, status, reason, message)
	c["lastTransitionTime"] = at.UTC().Format(time.RFC3339)
	return c
}

// routeTable gives subnet a route table of its own, with only the VPC's local route, and
// returns its ID.
func (w *world) routeTable(subnet string) string {
	w.t.Helper()
	ctx := w.t.Context()
	rt, err := w.ec2.CreateRouteTable(ctx, &ec2.CreateRouteTableInput{VpcId: aws.String(w.vpcID)})
	if err != nil {
		w.t.Fatalf("creating a route table: %v", err)
	}
	id := aws.ToString(rt.RouteTable.RouteTableId)
	if _, err := w.ec2.AssociateRouteTable(ctx, &ec2.AssociateRouteTableInput{RouteTableId: aws.String(id),
		SubnetId: aws.String(subnet)}); err != nil {
		w.t.Fatalf("associating %s with %s: %v", id, subnet, err)
	}
	return id
}

// networkACL gives subnet a network ACL of its own that admits TCP 443 out and TCP replies
// on ports from-to in, and denies the rest as EC2's last rule does.
func (w *world) networkACL(subnet string, from, to int32) string {
	return w.networkACLEntries(subnet,
		aclEntry{n: 100, egress: true, cidr: "0.0.0.0/0", lo: 443, hi: 443},
		aclEntry{n: 100, cidr: "0.0.0.0/0", lo: from, hi: to})
}

// aclEntry is a TCP allow entry of a network ACL the tests make.
type aclEntry struct {
	n      int32
	egress bool
	cidr   string
	lo, hi int32
}

// networkACLEntries gives subnet a network ACL of its own with the TCP allow entries, and denies
// the rest as EC2's last rule does.
func (w *world) networkACLEntries(subnet string, entries ...aclEntry) string {
	w.t.Helper()
	ctx := w.t.Context()
	acl, err := w.ec2.CreateNetworkAcl(ctx, &ec2.CreateNetworkAclInput{VpcId: aws.String(w.vpcID)})
	if err != nil {
		w.t.Fatalf("creating a network ACL: %v", err)
	}
	id := aws.ToString(acl.NetworkAcl.NetworkAclId)
	entry := func(n int32, egress bool, action ec2types.RuleAction, protocol, cidr string, lo, hi int32) {
		in := &ec2.CreateNetworkAclEntryInput{NetworkAclId: aws.String(id), RuleNumber: aws.Int32(n),
			Egress: aws.Bool(egress), RuleAction: action, Protocol: aws.String(protocol), CidrBlock: aws.String(cidr)}
		if protocol != "-1" {
			in.PortRange = &ec2types.PortRange{From: aws.Int32(lo), To: aws.Int32(hi)}
		}
		if _, err := w.ec2.CreateNetworkAclEntry(ctx, in); err != nil {
			w.t.Fatalf("adding rule %d to %s: %v", n, id, err)
		}
	}
	for _, e := range entries {
		entry(e.n, e.egress, ec2types.RuleActionAllow, "6", e.cidr, e.lo, e.hi)
	}
	// moto leaves a new ACL without EC2's last rules.
	entry(32767, true, ec2types.RuleActionDeny, "-1", "0.0.0.0/0", 0, 0)
	entry(32767, false, ec2types.RuleActionDeny, "-1", "0.0.0.0/0", 0, 0)
	out, err := w.ec2.DescribeNetworkAcls(ctx, &ec2.DescribeNetworkAclsInput{Filters: []ec2types.Filter{
		{Name: aws.String("association.subnet-id"), Values: []string{subnet}}}})
	if err != nil || len(out.NetworkAcls) != 1 {
		w.t.Fatalf("finding the network ACL of %s: %v", subnet, err)
	}
	for _, as := range out.NetworkAcls[0].Associations {
		if aws.ToString(as.SubnetId) != subnet {
			continue
		}
		if _, err := w.ec2.ReplaceNetworkAclAssociation(ctx, &ec2.ReplaceNetworkAclAssociationInput{
			AssociationId: as.NetworkAclAssociationId, NetworkAclId: aws.String(id)}); err != nil {
			w.t.Fatalf("associating %s with %s: %v", id, subnet, err)
		}
		return id
	}
	w.t.Fatalf("the network ACL of %s has no association for it", subnet)
	return ""
}

// message returns the message of the report's first finding with id.
func message(rep jsonReport, id string) string {
	for _, f := range rep.Findings {
		if f.ID == id {
			return f.Message
		}
	}
	return ""
}

// TestJoinLeakedInstance reads a cluster from moto, then serves its EC2 side from ec2sim with
// three more instances tagged by Karpenter that no NodeClaim names: one launched an hour ago
// for this cluster (leaked), one launched seconds ago (its NodeClaim may not name it yet) and
// one of another cluster in the same VPC. Only the first is reported. (moto stamps every
// instance with the time it was launched, so the hour-old one needs ec2sim.)
func TestJoinLeakedInstance(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a}, sgs: sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2a"}, 0)
	in := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: sgs, ip: "10.0.0.10"})
	w.karpenterNode("ip-10-0-0-10.us-west-2.compute.internal", "general", "default", "v1", in, 29, nil)
	file := filepath.Join(t.TempDir(), "moto.json")
	if r := karpnet(t, runOpts{}, "check", "--save-snapshot", file); r.code != 0 {
		t.Fatalf("the healthy cluster: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	s := readSnapshotFile(t, file)
	if s.ClusterName != "e2e" {
		t.Fatalf("cluster name: got %q, want e2e from the instances' kubernetes.io/cluster tag", s.ClusterName)
	}

	sim := ec2sim.New()
	sim.AddSnapshot(s)
	leak := func(id, cluster string, ago time.Duration) snapshot.Instance {
		l := s.Instances[0]
		l.ID, l.PrivateIP, l.LaunchTime = id, "10.0.0.77", time.Now().Add(-ago).UTC().Truncate(time.Second)
		l.ENIs = []snapshot.ENI{{ID: "eni-0" + id[3:], InterfaceType: "interface", SubnetID: a.id,
			PrimaryIP: "10.0.0.77", PrivateIPs: []string{"10.0.0.77", "10.0.0.78"}}}
		l.Tags = map[string]string{"kubernetes.io/cluster/" + cluster: "owned", "karpenter.sh/nodepool": "general",
			"eks:eks-cluster-name": cluster, "karpenter.k8s.aws/ec2nodeclass": "default"}
		return l
	}
	const leaked = "i-0aaaaaaaaaaaaaaa1"
	sim.AddInstances(leak(leaked, "e2e", time.Hour), leak("i-0aaaaaaaaaaaaaaa2", "e2e", 20*time.Second),
		leak("i-0aaaaaaaaaaaaaaa3", "other", time.Hour))
	rep := decode(t, karpnet(t, runOpts{env: []string{"AWS_ENDPOINT_URL_EC2=" + sim.Start(t)}},
		"check", "-o", "json", "--only", joinChecks))
	want := []finding{{"instance-orphaned", "warning", "", "instance/" + leaked}}
	if got := rep.set(); !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if m := message(rep, "instance-orphaned"); !strings.Contains(m, "10.0.0.77") {
		t.Errorf("instance-orphaned: got %q, want the addresses it holds", m)
	}
}

// TestJoinNATWithoutInternetRoute: a subnet routes 0.0.0.0/0 to a NAT gateway that sits in a
// subnet whose own route table (the VPC's main one) sends 0.0.0.0/0 to another NAT gateway,
// not to an internet gateway: nothing gets out. The subnet has no way out and the unregistered
// NodeClaim names the NAT gateway; once the NAT gateway's subnet routes to the internet
// gateway, the way out is back.
func TestJoinNATWithoutInternetRoute(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	ctx := t.Context()
	private := subnetRef{w.subnet("10.0.32.0/20", "us-west-2a"), "us-west-2a"}
	table := w.routeTable(private.id)
	natSubnet := w.subnet("10.0.250.0/28", "us-west-2a")
	eip, err := w.ec2.AllocateAddress(ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc, Address: aws.String("203.0.113.99")})
	if err != nil {
		t.Fatalf("allocating the NAT gateway's address: %v", err)
	}
	nat, err := w.ec2.CreateNatGateway(ctx, &ec2.CreateNatGatewayInput{SubnetId: aws.String(natSubnet), AllocationId: eip.AllocationId})
	if err != nil {
		t.Fatalf("creating the NAT gateway: %v", err)
	}
	natID := aws.ToString(nat.NatGateway.NatGatewayId)
	if _, err := w.ec2.CreateRoute(ctx, &ec2.CreateRouteInput{RouteTableId: aws.String(table),
		DestinationCidrBlock: aws.String("0.0.0.0/0"), NatGatewayId: aws.String(natID)}); err != nil {
		t.Fatalf("routing %s through %s: %v", table, natID, err)
	}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	w.nodeClass(nodeClassSpec{name: "private", subnets: []subnetRef{private}, sgs: sgs})
	w.nodePool("private", "v1", "private", []string{"us-west-2a"}, 0)
	in := w.instance(instanceSpec{typ: "m5.large", subnet: private.id, sgs: sgs})
	const claim = "private-9nat2"
	w.unjoinedClaim(claim, "private", "private", providerID(in), 7*time.Minute, "True", "Launched", "")

	rep := decode(t, karpnet(t, runOpts{}, "check", "-o", "json", "--only", joinChecks))
	want := []finding{
		{"nodeclaim-not-registered", "critical", "", "nodeclaim/" + claim},
		{"subnet-no-egress-route", "critical", "", "subnet/" + private.id},
	}
	if got := rep.set(); !slices.Equal(got, want) {
		t.Fatalf("NAT gateway without an internet route: got %+v, want %+v", got, want)
	}
	if m := message(rep, "nodeclaim-not-registered"); !strings.Contains(m, natID) || !strings.Contains(m, natSubnet) {
		t.Errorf("nodeclaim-not-registered: got %q, want it to name %s and its subnet %s", m, natID, natSubnet)
	}
	if m := message(rep, "subnet-no-egress-route"); !strings.Contains(m, natID) {
		t.Errorf("subnet-no-egress-route: got %q, want it to name %s", m, natID)
	}

	public, err := w.ec2.CreateRouteTable(ctx, &ec2.CreateRouteTableInput{VpcId: aws.String(w.vpcID)})
	if err != nil {
		t.Fatalf("creating a public route table: %v", err)
	}
	if _, err := w.ec2.CreateRoute(ctx, &ec2.CreateRouteInput{RouteTableId: public.RouteTable.RouteTableId,
		DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String(w.igw)}); err != nil {
		t.Fatalf("routing the public table through %s: %v", w.igw, err)
	}
	if _, err := w.ec2.AssociateRouteTable(ctx, &ec2.AssociateRouteTableInput{RouteTableId: public.RouteTable.RouteTableId,
		SubnetId: aws.String(natSubnet)}); err != nil {
		t.Fatalf("associating the public table with %s: %v", natSubnet, err)
	}
	rep = decode(t, karpnet(t, runOpts{}, "check", "-o", "json", "--only", joinChecks))
	want = []finding{{"nodeclaim-not-registered", "critical", "", "nodeclaim/" + claim}}
	if got := rep.set(); !slices.Equal(got, want) {
		t.Fatalf("NAT gateway with an internet route: got %+v, want %+v", got, want)
	}
}
