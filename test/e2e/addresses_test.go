package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// addressCluster is a cluster with prefix delegation on: one Karpenter node with a /28 prefix
// in its subnet, and beside it what else holds that subnet's addresses (an instance that is no
// node, with a second interface, and a prefix CIDR reservation), and, in a subnet no node uses,
// an interface the VPC CNI left available when its instance went away.
type addressCluster struct {
	*world
	subnet, spare        string
	node, bastion        ec2types.Instance
	extra, leaked        string
	reservation, bastENI string
	// recent is an interface the VPC CNI left available when its instance, gone, was terminated
	// seconds ago: the cleaners' to take, not leaked.
	recent, gone string
}

func newAddressCluster(t *testing.T) *addressCluster {
	t.Helper()
	w := newWorld(t, harness.CRDsV1)
	ctx := t.Context()
	c := &addressCluster{world: w}
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	c.subnet, c.spare = a.id, w.subnet("10.0.64.0/24", "us-west-2b")
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	w.awsNode(map[string]string{"ENABLE_PREFIX_DELEGATION": "true", "WARM_PREFIX_TARGET": "1"})
	w.nodeClass(nodeClassSpec{name: "general", subnets: []subnetRef{a}, sgs: sgs, maxPods: 110})
	w.nodePool("general", "v1", "general", []string{"us-west-2a"}, 0)
	c.node = w.cniLaunch(a.id, "10.0.0.10", sgs, cniNIC{subnet: a.id, device: 1, prefixes: 1})
	w.karpenterNode("ip-10-0-0-10.us-west-2.compute.internal", "general", "general", "v1", c.node, 110, nil)

	// An instance that is no node, with a second interface attached: both its interfaces hold
	// addresses of the node subnet.
	c.bastion = w.instance(instanceSpec{typ: "t3.micro", subnet: a.id, sgs: sgs[1:], ip: "10.0.0.100"})
	c.bastENI = aws.ToString(c.bastion.NetworkInterfaces[0].NetworkInterfaceId)
	extra, err := w.ec2.CreateNetworkInterface(ctx, &ec2.CreateNetworkInterfaceInput{SubnetId: aws.String(a.id),
		Groups: sgs[1:], Description: aws.String("bastion data"), PrivateIpAddress: aws.String("10.0.0.101")})
	if err != nil {
		t.Fatalf("creating the bastion's second interface: %v", err)
	}
	c.extra = aws.ToString(extra.NetworkInterface.NetworkInterfaceId)
	if _, err := w.ec2.AttachNetworkInterface(ctx, &ec2.AttachNetworkInterfaceInput{InstanceId: c.bastion.InstanceId,
		NetworkInterfaceId: aws.String(c.extra), DeviceIndex: aws.Int32(1)}); err != nil {
		t.Fatalf("attaching the bastion's second interface: %v", err)
	}
	res, err := w.ec2.CreateSubnetCidrReservation(ctx, &ec2.CreateSubnetCidrReservationInput{SubnetId: aws.String(a.id),
		Cidr: aws.String("10.0.8.0/24"), ReservationType: ec2types.SubnetCidrReservationTypePrefix})
	if err != nil {
		t.Fatalf("reserving 10.0.8.0/24 for prefixes: %v", err)
	}
	c.reservation = aws.ToString(res.SubnetCidrReservation.SubnetCidrReservationId)

	// The VPC CNI's interface of an instance that is gone, left available.
	leaked, err := w.ec2.CreateNetworkInterface(ctx, &ec2.CreateNetworkInterfaceInput{SubnetId: aws.String(c.spare),
		Groups: sgs[1:], Description: aws.String("aws-K8S-i-0123456789abcdef0"),
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeNetworkInterface, Tags: []ec2types.Tag{
			{Key: aws.String(snapshot.TagCNIInstanceID), Value: aws.String("i-0123456789abcdef0")},
			{Key: aws.String(snapshot.TagCNICreatedAt), Value: aws.String("2026-11-01T10:00:00Z")},
			{Key: aws.String("team"), Value: aws.String("not kept")},
		}}}})
	if err != nil {
		t.Fatalf("creating the leaked interface: %v", err)
	}
	c.leaked = aws.ToString(leaked.NetworkInterface.NetworkInterfaceId)

	// The VPC CNI's interface of a node terminated just now, created three days ago.
	node := w.instance(instanceSpec{typ: "m5.large", subnet: c.spare, sgs: sgs[1:]})
	c.gone = aws.ToString(node.InstanceId)
	recent, err := w.ec2.CreateNetworkInterface(ctx, &ec2.CreateNetworkInterfaceInput{SubnetId: aws.String(c.spare),
		Groups: sgs[1:], Description: aws.String("aws-K8S-" + c.gone),
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeNetworkInterface, Tags: []ec2types.Tag{
			{Key: aws.String(snapshot.TagCNIInstanceID), Value: aws.String(c.gone)},
			{Key: aws.String(snapshot.TagCNICreatedAt), Value: aws.String(time.Now().Add(-72 * time.Hour).UTC().Format(time.RFC3339))},
		}}}})
	if err != nil {
		t.Fatalf("creating the terminated node's interface: %v", err)
	}
	c.recent = aws.ToString(recent.NetworkInterface.NetworkInterfaceId)
	if _, err := w.ec2.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{c.gone}}); err != nil {
		t.Fatalf("terminating %s: %v", c.gone, err)
	}
	return c
}

// TestAddressesReadFromMoto reads, with prefix delegation on, every interface and CIDR
// reservation of the node subnet and the interfaces left available in the VPC: the snapshot
// holds the bastion's two interfaces, the reservation and the leaked interface, not the node's
// own, and no gap.
func TestAddressesReadFromMoto(t *testing.T) {
	c := newAddressCluster(t)
	if err := env.moto.ResetRequests(t.Context()); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "snap.json")
	r := karpnet(t, runOpts{}, "check", "-o", "json", "--save-snapshot", file)
	if r.code != 0 && r.code != 1 {
		wantCode(t, r, 0)
	}
	s := readSnapshotFile(t, file)
	for _, g := range s.Gaps {
		t.Errorf("gap %+v, want none", g)
	}
	byID := map[string]snapshot.InterfaceRecord{}
	for _, n := range s.Interfaces {
		byID[n.ID] = n
	}
	for _, eni := range c.node.NetworkInterfaces {
		if _, ok := byID[aws.ToString(eni.NetworkInterfaceId)]; ok {
			t.Errorf("interface %s is the node's own; want it only under its instance", aws.ToString(eni.NetworkInterfaceId))
		}
	}
	bastion := aws.ToString(c.bastion.InstanceId)
	for _, id := range []string{c.bastENI, c.extra} {
		n, ok := byID[id]
		if !ok {
			t.Errorf("interface %s of the bastion not in the snapshot: %+v", id, s.Interfaces)
			continue
		}
		if n.SubnetID != c.subnet || n.InstanceID != bastion || n.Status != snapshot.InterfaceInUse || len(n.PrivateIPs) == 0 {
			t.Errorf("interface %s = %+v: want in-use in %s, attached to %s, with its address", id, n, c.subnet, bastion)
		}
	}
	if n := byID[c.extra]; len(n.PrivateIPs) == 0 || n.PrivateIPs[0] != "10.0.0.101" || n.Description != "bastion data" {
		t.Errorf("the bastion's second interface = %+v: want 10.0.0.101 first and its description", n)
	}
	leaked, ok := byID[c.leaked]
	if !ok {
		t.Fatalf("the leaked interface %s not in the snapshot: %+v", c.leaked, s.Interfaces)
	}
	wantTags := map[string]string{snapshot.TagCNIInstanceID: "i-0123456789abcdef0", snapshot.TagCNICreatedAt: "2026-11-01T10:00:00Z"}
	if leaked.Status != snapshot.InterfaceAvailable || leaked.SubnetID != c.spare || leaked.VpcID != c.vpcID ||
		!cmp.Equal(wantTags, leaked.Tags) || !strings.HasPrefix(leaked.Description, "aws-K8S-") {
		t.Errorf("leaked interface = %+v: want available in %s of %s with the CNI's tags only", leaked, c.spare, c.vpcID)
	}
	if n := byID[c.recent]; n.Status != snapshot.InterfaceAvailable || n.Tags[snapshot.TagCNIInstanceID] != c.gone {
		t.Errorf("the terminated node's interface = %+v: want available, tagged with %s", n, c.gone)
	}
	// The two instances the available interfaces name, read by ID: one EC2 no longer has, and the
	// terminated node with the time of its termination.
	owners := map[string]snapshot.InterfaceOwner{}
	for _, o := range s.InterfaceOwners {
		owners[o.ID] = o
	}
	if o := owners["i-0123456789abcdef0"]; len(owners) != 2 || o.State != "" {
		t.Errorf("interface owners %+v: want i-0123456789abcdef0 without a state and %s", s.InterfaceOwners, c.gone)
	}
	if o := owners[c.gone]; o.State != "terminated" || !strings.HasPrefix(o.StateTransitionReason, "User initiated (") {
		t.Errorf("owner %+v: want %s terminated, with the time in its stateTransitionReason", o, c.gone)
	}
	wantRes := []snapshot.CIDRReservation{{ID: c.reservation, SubnetID: c.subnet, CIDR: "10.0.8.0/24", Type: "prefix"}}
	if diff := cmp.Diff(wantRes, s.CIDRReservations); diff != "" {
		t.Errorf("CIDR reservations (-want +got):\n%s", diff)
	}
	if !slices.Contains(s.AddressSubnets, c.subnet) || slices.Contains(s.AddressSubnets, c.spare) {
		t.Errorf("address subnets %v: want the node subnet %s, not %s, which no node or class uses", s.AddressSubnets, c.subnet, c.spare)
	}
	if diff := cmp.Diff([]string{c.vpcID}, s.AvailableVPCs); diff != "" {
		t.Errorf("available VPCs (-want +got):\n%s", diff)
	}

	counts, err := env.moto.Requests(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// One call per read subnet for its reservations; one DescribeNetworkInterfaces by subnet
	// (moto answers on one page) and one for the available interfaces.
	if got, want := counts["GetSubnetCidrReservations"], len(s.AddressSubnets); got != want {
		t.Errorf("GetSubnetCidrReservations: got %d, want %d (one per address subnet)", got, want)
	}
	if got := counts["DescribeNetworkInterfaces"]; got != 2 {
		t.Errorf("DescribeNetworkInterfaces: got %d, want 2 (by subnet, available)", got)
	}
	for action := range counts {
		if !strings.HasPrefix(action, "Describe") && !strings.HasPrefix(action, "Get") {
			t.Errorf("EC2 request %s: karpnet calls Describe* and Get* only", action)
		}
	}
}

// TestAddressReadsDeniedFromMoto: with GetSubnetCidrReservations denied the gap names the IAM
// action, the node subnet is not one whose addresses are known, and the rest is read.
func TestAddressReadsDeniedFromMoto(t *testing.T) {
	c := newAddressCluster(t)
	if err := env.moto.Fail(t.Context(), "GetSubnetCidrReservations", "UnauthorizedOperation", 403, 100); err != nil {
		t.Fatalf("making moto deny GetSubnetCidrReservations: %v", err)
	}
	file := filepath.Join(t.TempDir(), "snap.json")
	r := karpnet(t, runOpts{}, "check", "-o", "json", "--save-snapshot", file)
	if r.code != 0 && r.code != 1 {
		wantCode(t, r, 1)
	}
	s := readSnapshotFile(t, file)
	want := []snapshot.Gap{{Source: snapshot.SourceCIDRReservations}}
	var got []snapshot.Gap
	for _, g := range s.Gaps {
		got = append(got, snapshot.Gap{Source: g.Source})
		if g.Remedy != "allow ec2:GetSubnetCidrReservations to the caller" {
			t.Errorf("gap %+v: want the remedy to allow ec2:GetSubnetCidrReservations", g)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gaps (-want +got):\n%s", diff)
	}
	if slices.Contains(s.AddressSubnets, c.subnet) {
		t.Errorf("address subnets %v: want no %s, whose reservations are unknown", s.AddressSubnets, c.subnet)
	}
	if !strings.Contains(r.stdout, "ec2:GetSubnetCidrReservations") {
		t.Errorf("the report does not name the denied source:\n%s", r.stdout)
	}
}

// TestAddressFindingsFromMoto: the real binary over the address cluster raises eni-leaked on
// the interface the VPC CNI left available (its instance is gone) with the command that deletes
// it, not on the one of a node terminated seconds ago (the cleaners' to take), and stays silent
// on the roomy node subnet; a /26 subnet whose only two usable /28 blocks
// each hold an address (the node's, a Lambda interface's) is subnet-prefix-fragmented, and its
// sheet draws the blocks.
func TestAddressFindingsFromMoto(t *testing.T) {
	c := newAddressCluster(t)
	w := c.world
	ctx := t.Context()
	small := subnetRef{w.subnet("10.0.66.0/26", "us-west-2b"), "us-west-2b"}
	sgs := []string{w.securityGroup("e2e-small-nodes", false)}
	w.nodeClass(nodeClassSpec{name: "small", subnets: []subnetRef{small}, sgs: sgs, maxPods: 110})
	w.nodePool("small", "v1", "small", []string{"us-west-2b"}, 0)
	in := w.cniLaunch(small.id, "10.0.66.20", sgs)
	w.karpenterNode("ip-10-0-66-20.us-west-2.compute.internal", "small", "small", "v1", in, 110, nil)
	if _, err := w.ec2.CreateNetworkInterface(ctx, &ec2.CreateNetworkInterfaceInput{SubnetId: aws.String(small.id),
		Description: aws.String("AWS Lambda VPC ENI-resize"), PrivateIpAddress: aws.String("10.0.66.40")}); err != nil {
		t.Fatalf("creating the Lambda interface: %v", err)
	}

	j := karpnet(t, runOpts{}, "check", "-o", "json")
	if j.code != 1 {
		wantCode(t, j, 1)
	}
	var rep shapeReport
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil {
		t.Fatalf("decoding -o json: %v\n%s", err, j.stdout)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		if f.ID == "eni-leaked" || f.ID == "subnet-prefix-fragmented" {
			got[f.ID+" "+f.Resource] = f.Severity
		}
	}
	want := map[string]string{"eni-leaked eni/" + c.leaked: "warning", "subnet-prefix-fragmented subnet/" + small.id: "critical"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	w2 := karpnet(t, runOpts{}, "check", "-o", "wide", "--only", "eni-leaked")
	if !strings.Contains(strings.Join(strings.Fields(w2.stdout), " "), "aws ec2 delete-network-interface --network-interface-id "+c.leaked) {
		t.Errorf("eni-leaked does not give the delete command:\n%s", w2.stdout)
	}
	sheet := karpnet(t, runOpts{}, "describe", "subnet", small.id, "--color", "never")
	wantCode(t, sheet, 0)
	for _, line := range []string{"  10.0.66.0  xoox", "Free /28 blocks:  0 of 4 (2 partly used, 0 full, 2 reserved)", "other interfaces: IPs"} {
		if !strings.Contains(sheet.stdout, line) {
			t.Errorf("subnet sheet lacks %q:\n%s", line, sheet.stdout)
		}
	}
	eni := karpnet(t, runOpts{}, "describe", "eni", c.leaked)
	wantCode(t, eni, 0)
	if !strings.Contains(eni.stdout, "Created by:   the VPC CNI (aws-node)") || !strings.Contains(eni.stdout, "eni-leaked") {
		t.Errorf("ENI sheet lacks its creator or finding:\n%s", eni.stdout)
	}
}
