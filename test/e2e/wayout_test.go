package e2e

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// wayOut is what buildWayOut made in the world's VPC.
type wayOut struct {
	igw, nat, mainTable, privateTable, acl string
	gateway, iface, gwlb                   string
}

// buildWayOut gives the world's VPC a route to its internet gateway in its main table, a private
// table (for private) through a NAT gateway in public, an S3 gateway endpoint on the private
// table, an ECR interface endpoint and a Gateway Load Balancer endpoint in private, and a
// custom network ACL on aclSubnet whose entries allow outbound 443 and the return ports (one
// protocol given as "tcp", which moto keeps as given).
func buildWayOut(w *world, public, private, aclSubnet, group string) wayOut {
	t, ctx := w.t, w.t.Context()
	var out wayOut
	vpc := []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{w.vpcID}}}
	tables, err := w.ec2.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{Filters: append(vpc,
		ec2types.Filter{Name: aws.String("association.main"), Values: []string{"true"}})})
	if err != nil || len(tables.RouteTables) != 1 {
		t.Fatalf("finding the VPC's main route table: %v (%d tables)", err, len(tables.RouteTables))
	}
	out.mainTable = aws.ToString(tables.RouteTables[0].RouteTableId)
	out.igw = w.igw // the world's NAT gateway's (newWorld): a VPC takes one internet gateway
	w.route(out.mainTable, &ec2.CreateRouteInput{GatewayId: aws.String(out.igw)})

	eip, err := w.ec2.AllocateAddress(ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc})
	if err != nil {
		t.Fatalf("allocating the NAT gateway's address: %v", err)
	}
	nat, err := w.ec2.CreateNatGateway(ctx, &ec2.CreateNatGatewayInput{SubnetId: aws.String(public), AllocationId: eip.AllocationId})
	if err != nil {
		t.Fatalf("creating the NAT gateway: %v", err)
	}
	out.nat = aws.ToString(nat.NatGateway.NatGatewayId)
	rt, err := w.ec2.CreateRouteTable(ctx, &ec2.CreateRouteTableInput{VpcId: aws.String(w.vpcID)})
	if err != nil {
		t.Fatalf("creating the private route table: %v", err)
	}
	out.privateTable = aws.ToString(rt.RouteTable.RouteTableId)
	w.route(out.privateTable, &ec2.CreateRouteInput{NatGatewayId: aws.String(out.nat)})
	if _, err := w.ec2.AssociateRouteTable(ctx, &ec2.AssociateRouteTableInput{
		RouteTableId: aws.String(out.privateTable), SubnetId: aws.String(private)}); err != nil {
		t.Fatalf("associating the private route table: %v", err)
	}

	endpoint := func(in *ec2.CreateVpcEndpointInput) string {
		in.VpcId = aws.String(w.vpcID)
		e, err := w.ec2.CreateVpcEndpoint(ctx, in)
		if err != nil {
			t.Fatalf("creating the %s endpoint %s: %v", in.VpcEndpointType, aws.ToString(in.ServiceName), err)
		}
		return aws.ToString(e.VpcEndpoint.VpcEndpointId)
	}
	out.gateway = endpoint(&ec2.CreateVpcEndpointInput{VpcEndpointType: ec2types.VpcEndpointTypeGateway,
		ServiceName: aws.String("com.amazonaws.us-west-2.s3"), RouteTableIds: []string{out.privateTable}})
	out.iface = endpoint(&ec2.CreateVpcEndpointInput{VpcEndpointType: ec2types.VpcEndpointTypeInterface,
		ServiceName: aws.String("com.amazonaws.us-west-2.ecr.api"), SubnetIds: []string{private},
		SecurityGroupIds: []string{group}, PrivateDnsEnabled: aws.Bool(true)})
	out.gwlb = endpoint(&ec2.CreateVpcEndpointInput{VpcEndpointType: ec2types.VpcEndpointTypeGatewayLoadBalancer,
		ServiceName: aws.String("com.amazonaws.vpce.us-west-2.vpce-svc-0123456789abcdef0"), SubnetIds: []string{private}})

	acl, err := w.ec2.CreateNetworkAcl(ctx, &ec2.CreateNetworkAclInput{VpcId: aws.String(w.vpcID)})
	if err != nil {
		t.Fatalf("creating the network ACL: %v", err)
	}
	out.acl = aws.ToString(acl.NetworkAcl.NetworkAclId)
	for _, e := range []ec2.CreateNetworkAclEntryInput{
		{RuleNumber: aws.Int32(100), Egress: aws.Bool(true), Protocol: aws.String("tcp"), RuleAction: ec2types.RuleActionAllow,
			CidrBlock: aws.String("0.0.0.0/0"), PortRange: &ec2types.PortRange{From: aws.Int32(443), To: aws.Int32(443)}},
		{RuleNumber: aws.Int32(100), Egress: aws.Bool(false), Protocol: aws.String("6"), RuleAction: ec2types.RuleActionAllow,
			CidrBlock: aws.String("0.0.0.0/0"), PortRange: &ec2types.PortRange{From: aws.Int32(1024), To: aws.Int32(65535)}},
		{RuleNumber: aws.Int32(50), Egress: aws.Bool(false), Protocol: aws.String("-1"), RuleAction: ec2types.RuleActionDeny,
			CidrBlock: aws.String("192.0.2.0/24")},
	} {
		e.NetworkAclId = aws.String(out.acl)
		if _, err := w.ec2.CreateNetworkAclEntry(ctx, &e); err != nil {
			t.Fatalf("adding rule %d to the network ACL: %v", aws.ToInt32(e.RuleNumber), err)
		}
	}
	current, err := w.ec2.DescribeNetworkAcls(ctx, &ec2.DescribeNetworkAclsInput{Filters: []ec2types.Filter{
		{Name: aws.String("association.subnet-id"), Values: []string{aclSubnet}}}})
	if err != nil || len(current.NetworkAcls) != 1 {
		t.Fatalf("finding the network ACL of %s: %v", aclSubnet, err)
	}
	for _, a := range current.NetworkAcls[0].Associations {
		if aws.ToString(a.SubnetId) != aclSubnet {
			continue
		}
		if _, err := w.ec2.ReplaceNetworkAclAssociation(ctx, &ec2.ReplaceNetworkAclAssociationInput{
			AssociationId: a.NetworkAclAssociationId, NetworkAclId: aws.String(out.acl)}); err != nil {
			t.Fatalf("moving %s to the custom network ACL: %v", aclSubnet, err)
		}
	}
	return out
}

// route adds the default IPv4 route to in's target in table.
func (w *world) route(table string, in *ec2.CreateRouteInput) {
	w.t.Helper()
	in.RouteTableId, in.DestinationCidrBlock = aws.String(table), aws.String("0.0.0.0/0")
	if _, err := w.ec2.CreateRoute(w.t.Context(), in); err == nil {
		return
	} else if !madeBefore(err, "RouteAlreadyExists") {
		w.t.Fatalf("adding the default route to %s: %v", table, err)
	}
	// The world's main table already gets out through its NAT gateway: replace that route.
	if _, err := w.ec2.ReplaceRoute(w.t.Context(), &ec2.ReplaceRouteInput{RouteTableId: in.RouteTableId,
		DestinationCidrBlock: in.DestinationCidrBlock, GatewayId: in.GatewayId, NatGatewayId: in.NatGatewayId}); err != nil {
		w.t.Fatalf("replacing the default route of %s: %v", table, err)
	}
}

// TestWayOutReadFromMoto reads a VPC with an internet gateway route, a NAT route, endpoints of
// each type and a custom network ACL from moto into the snapshot.
func TestWayOutReadFromMoto(t *testing.T) {
	c := newHealthyCluster(t)
	a, b, cc := c.subnets[0].id, c.subnets[1].id, c.subnets[2].id
	wo := buildWayOut(c.world, a, b, cc, c.sgs[1])
	file := filepath.Join(t.TempDir(), "snap.json")
	r := karpnet(t, runOpts{}, "check", "--save-snapshot", file)
	if r.code != 0 && r.code != 1 {
		wantCode(t, r, 0)
	}
	s := readSnapshotFile(t, file)
	for _, g := range s.Gaps {
		t.Errorf("gap %+v, want none", g)
	}
	table := func(id string) snapshot.RouteTable {
		i := slices.IndexFunc(s.RouteTables, func(rt snapshot.RouteTable) bool { return rt.ID == id })
		if i < 0 {
			t.Fatalf("route table %s not in the snapshot: %+v", id, s.RouteTables)
		}
		return s.RouteTables[i]
	}
	hasRoute := func(rt snapshot.RouteTable, dest, target string) bool {
		return slices.ContainsFunc(rt.Routes, func(r snapshot.Route) bool {
			return (r.Destination == dest || r.DestinationPrefixList == dest) && r.Target == target
		})
	}
	main, private := table(wo.mainTable), table(wo.privateTable)
	if !main.Main || !hasRoute(main, "0.0.0.0/0", wo.igw) || !hasRoute(main, "10.0.0.0/16", "local") {
		t.Errorf("main table %+v: want main, 0.0.0.0/0 via %s and the local route", main, wo.igw)
	}
	if private.Main || !slices.Equal(private.SubnetIDs, []string{b}) || !hasRoute(private, "0.0.0.0/0", wo.nat) {
		t.Errorf("private table %+v: want %s associated and 0.0.0.0/0 via %s", private, b, wo.nat)
	}
	if !slices.ContainsFunc(private.Routes, func(r snapshot.Route) bool {
		return r.Target == wo.gateway && len(r.DestinationPrefixList) > 3 && r.DestinationPrefixList[:3] == "pl-"
	}) {
		t.Errorf("private table %+v: want the S3 gateway endpoint's prefix-list route", private)
	}
	// The world's own NAT gateway (newWorld) is there too.
	if len(s.NATGateways) != 2 || !slices.ContainsFunc(s.NATGateways, func(g snapshot.NATGateway) bool {
		return g.ID == wo.nat && g.SubnetID == a && g.State == "available"
	}) {
		t.Errorf("NAT gateways %+v: want the world's and %s in %s, available", s.NATGateways, wo.nat, a)
	}
	types := map[string]snapshot.VPCEndpoint{}
	for _, e := range s.VPCEndpoints {
		types[e.Type] = e
	}
	if e := types["Gateway"]; e.ID != wo.gateway || !slices.Equal(e.RouteTableIDs, []string{wo.privateTable}) {
		t.Errorf("gateway endpoint %+v: want %s on %s", e, wo.gateway, wo.privateTable)
	}
	if e := types["Interface"]; e.ID != wo.iface || e.ServiceName != "com.amazonaws.us-west-2.ecr.api" ||
		!e.PrivateDNS || !slices.Equal(e.SubnetIDs, []string{b}) || !slices.Equal(e.SecurityGroups, []string{c.sgs[1]}) {
		t.Errorf("interface endpoint %+v: want %s in %s with %s and private DNS", e, wo.iface, b, c.sgs[1])
	}
	if e := types["GatewayLoadBalancer"]; e.ID != wo.gwlb {
		t.Errorf("Gateway Load Balancer endpoint %+v: want %s", e, wo.gwlb)
	}
	var custom, def *snapshot.NetworkACL
	for i := range s.NetworkACLs {
		switch a := &s.NetworkACLs[i]; {
		case a.ID == wo.acl:
			custom = a
		case a.Default && a.VpcID == c.vpcID:
			def = a
		}
	}
	if custom == nil || def == nil {
		t.Fatalf("network ACLs %+v: want the custom %s and the VPC's default one", s.NetworkACLs, wo.acl)
	}
	wantEntries := []snapshot.ACLEntry{
		{RuleNumber: 50, Protocol: "-1", Action: "deny", CIDR: "192.0.2.0/24"},
		{RuleNumber: 100, Protocol: "6", Action: "allow", CIDR: "0.0.0.0/0", FromPort: 1024, ToPort: 65535},
		{RuleNumber: 100, Egress: true, Protocol: "6", Action: "allow", CIDR: "0.0.0.0/0", FromPort: 443, ToPort: 443},
	}
	if !slices.Equal(custom.SubnetIDs, []string{cc}) || !slices.Equal(custom.Entries, wantEntries) {
		t.Errorf("custom ACL %+v: want %s associated and entries %+v", custom, cc, wantEntries)
	}
	if slices.Contains(def.SubnetIDs, cc) || !slices.Contains(def.SubnetIDs, a) {
		t.Errorf("default ACL subnets %v: want %s and not %s", def.SubnetIDs, a, cc)
	}
}
