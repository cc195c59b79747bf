package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// TestJoinNATGatewayShapes builds the NAT gateways node subnets go out through, each healthy
// shape next to its broken twin. In moto: a private NAT gateway whose subnet routes to a transit
// gateway (central egress: assumed, an info), then the same subnet routed to the internet gateway
// (which drops a private NAT gateway's traffic: critical); a zonal public NAT gateway in a public
// subnet whose network ACL admits the nodes' side and the internet's (silent), then the same ACL
// without the replies to the nodes (critical, naming the direction). moto 5.2.1 cannot create a
// regional NAT gateway (CreateNatGateway has no AvailabilityMode there), so the last shape is
// served by ec2sim from what karpnet read of moto: a regional NAT gateway with its own route table
// to the internet gateway (silent), then that table without it (critical).
func TestJoinNATGatewayShapes(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	ctx := t.Context()
	private := subnetRef{w.subnet("10.0.32.0/20", "us-west-2a"), "us-west-2a"}
	table := w.routeTable(private.id)
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	w.nodeClass(nodeClassSpec{name: "private", subnets: []subnetRef{private}, sgs: sgs})
	w.nodePool("private", "v1", "private", []string{"us-west-2a"}, 0)
	check := func(o runOpts) jsonReport {
		return decode(t, karpnet(t, o, "check", "-o", "json", "--only", joinChecks))
	}
	egress := []finding{{"subnet-no-egress-route", "critical", "", "subnet/" + private.id}}

	// A private NAT gateway in a subnet that routes to a transit gateway.
	natSubnet := w.subnet("10.0.250.0/28", "us-west-2a")
	natTable := w.routeTable(natSubnet)
	tgw, err := w.ec2.CreateTransitGateway(ctx, &ec2.CreateTransitGatewayInput{})
	if err != nil {
		t.Fatalf("creating the transit gateway: %v", err)
	}
	tgwID := aws.ToString(tgw.TransitGateway.TransitGatewayId)
	w.route(natTable, &ec2.CreateRouteInput{TransitGatewayId: aws.String(tgwID)})
	nat, err := w.ec2.CreateNatGateway(ctx, &ec2.CreateNatGatewayInput{SubnetId: aws.String(natSubnet),
		ConnectivityType: ec2types.ConnectivityTypePrivate})
	if err != nil {
		t.Fatalf("creating the private NAT gateway: %v", err)
	}
	privateNAT := aws.ToString(nat.NatGateway.NatGatewayId)
	w.route(table, &ec2.CreateRouteInput{NatGatewayId: aws.String(privateNAT)})
	rep := check(runOpts{})
	if got, want := rep.set(), []finding{{"subnet-no-egress-route", "info", "", "subnet/" + private.id}}; !slices.Equal(got, want) {
		t.Fatalf("private NAT gateway to a transit gateway: got %+v, want %+v", got, want)
	}
	if m := message(rep, "subnet-no-egress-route"); !strings.Contains(m, tgwID) || !strings.Contains(m, "private NAT gateway in "+natSubnet) {
		t.Errorf("private NAT gateway to a transit gateway: got %q, want it to name %s in %s", m, tgwID, natSubnet)
	}
	if _, err := w.ec2.ReplaceRoute(ctx, &ec2.ReplaceRouteInput{RouteTableId: aws.String(natTable),
		DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String(w.igw)}); err != nil {
		t.Fatalf("routing %s to %s: %v", natTable, w.igw, err)
	}
	rep = check(runOpts{})
	if got := rep.set(); !slices.Equal(got, egress) {
		t.Fatalf("private NAT gateway to an internet gateway: got %+v, want %+v", got, egress)
	}
	if m := message(rep, "subnet-no-egress-route"); !strings.Contains(m, "an internet gateway drops a private NAT gateway's traffic") {
		t.Errorf("private NAT gateway to an internet gateway: got %q, want it to say the internet gateway drops it", m)
	}

	// A zonal public NAT gateway in a public subnet whose network ACL admits both sides.
	publicSubnet := w.subnet("10.0.251.0/28", "us-west-2a")
	w.route(w.routeTable(publicSubnet), &ec2.CreateRouteInput{GatewayId: aws.String(w.igw)})
	eip, err := w.ec2.AllocateAddress(ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc})
	if err != nil {
		t.Fatalf("allocating the NAT gateway's address: %v", err)
	}
	pub, err := w.ec2.CreateNatGateway(ctx, &ec2.CreateNatGatewayInput{SubnetId: aws.String(publicSubnet), AllocationId: eip.AllocationId})
	if err != nil {
		t.Fatalf("creating the public NAT gateway: %v", err)
	}
	publicNAT := aws.ToString(pub.NatGateway.NatGatewayId)
	if _, err := w.ec2.ReplaceRoute(ctx, &ec2.ReplaceRouteInput{RouteTableId: aws.String(table),
		DestinationCidrBlock: aws.String("0.0.0.0/0"), NatGatewayId: aws.String(publicNAT)}); err != nil {
		t.Fatalf("routing %s through %s: %v", table, publicNAT, err)
	}
	internetSide := []aclEntry{{n: 100, egress: true, cidr: "0.0.0.0/0", lo: 443, hi: 443},
		{n: 110, cidr: "0.0.0.0/0", lo: 1024, hi: 65535}}
	nodeSide := []aclEntry{{n: 100, cidr: "10.0.0.0/16", lo: 443, hi: 443},
		{n: 110, egress: true, cidr: "10.0.0.0/16", lo: 1024, hi: 65535}}
	w.networkACLEntries(publicSubnet, append(slices.Clone(internetSide), nodeSide...)...)
	if got := check(runOpts{}).set(); len(got) != 0 {
		t.Fatalf("public NAT gateway whose subnet's ACL admits both sides: got %+v, want nothing", got)
	}
	acl := w.networkACLEntries(publicSubnet, append(slices.Clone(internetSide), nodeSide[0])...)
	rep = check(runOpts{})
	if got := rep.set(); !slices.Equal(got, egress) {
		t.Fatalf("public NAT gateway whose subnet's ACL drops the replies to the nodes: got %+v, want %+v", got, egress)
	}
	if m := message(rep, "subnet-no-egress-route"); !strings.Contains(m, "network ACL "+acl) ||
		!strings.Contains(m, "outbound TCP replies to the nodes' subnet "+private.id) {
		t.Errorf("NAT subnet's ACL: got %q, want it to name %s and the outbound replies to %s", m, acl, private.id)
	}

	// A regional NAT gateway, served by ec2sim: no subnet, its own route table.
	w.networkACLEntries(publicSubnet, append(slices.Clone(internetSide), nodeSide...)...)
	file := filepath.Join(t.TempDir(), "moto.json")
	if r := karpnet(t, runOpts{}, "check", "--only", joinChecks, "--save-snapshot", file); r.code != 0 {
		t.Fatalf("the healthy cluster: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	s := readSnapshotFile(t, file)
	const regional, regionalTable = "nat-0regional00000001", "rtb-0regional00000001"
	s.NATGateways = append(s.NATGateways, snapshot.NATGateway{ID: regional, VpcID: w.vpcID, State: "available",
		ConnectivityType: "public", PublicIP: "203.0.113.61", AvailabilityMode: snapshot.NATRegional,
		RouteTableID: regionalTable, AutoProvisionZones: "enabled", Zones: []string{"us-west-2a"}})
	s.RouteTables = append(s.RouteTables, snapshot.RouteTable{ID: regionalTable, VpcID: w.vpcID, Routes: []snapshot.Route{
		{Destination: "10.0.0.0/16", Target: "local", State: snapshot.RouteActive},
		{Destination: "0.0.0.0/0", Target: w.igw, State: snapshot.RouteActive}}})
	for i := range s.RouteTables {
		if s.RouteTables[i].ID != table {
			continue
		}
		for j := range s.RouteTables[i].Routes {
			if s.RouteTables[i].Routes[j].Destination == "0.0.0.0/0" {
				s.RouteTables[i].Routes[j].Target = regional
			}
		}
	}
	sim := ec2sim.New()
	sim.AddSnapshot(s)
	if got := check(runOpts{env: []string{"AWS_ENDPOINT_URL_EC2=" + sim.Start(t)}}).set(); len(got) != 0 {
		t.Fatalf("regional NAT gateway: got %+v, want nothing", got)
	}
	s.RouteTables[len(s.RouteTables)-1].Routes = s.RouteTables[len(s.RouteTables)-1].Routes[:1]
	sim = ec2sim.New()
	sim.AddSnapshot(s)
	rep = check(runOpts{env: []string{"AWS_ENDPOINT_URL_EC2=" + sim.Start(t)}})
	if got := rep.set(); !slices.Equal(got, egress) {
		t.Fatalf("regional NAT gateway without an internet gateway route: got %+v, want %+v", got, egress)
	}
	if m := message(rep, "subnet-no-egress-route"); !strings.Contains(m, "regional public NAT gateway (203.0.113.61), whose "+
		"route table "+regionalTable+" has no internet gateway route") || strings.Contains(m, "gateway in  ") {
		t.Errorf("regional NAT gateway without an internet gateway route: got %q, want it to name %s and no empty subnet",
			m, regionalTable)
	}
}
