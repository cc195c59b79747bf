package collect

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2AddNetwork gives the world's vpc-1 a main table with an internet gateway route, a private
// table through a NAT gateway with the S3 gateway endpoint's route, an interface endpoint, the
// default ACL and a custom ACL whose entries moto would answer with "tcp" and unsorted; and
// another VPC's table that must not be read.
func ec2AddNetwork(sim *ec2sim.Server) {
	sim.AddRouteTables(
		snapshot.RouteTable{ID: "rtb-main", VpcID: "vpc-1", Main: true, Routes: []snapshot.Route{
			{Destination: "10.0.0.0/16", Target: "local"}, {Destination: "0.0.0.0/0", Target: "igw-1"}}},
		snapshot.RouteTable{ID: "rtb-private", VpcID: "vpc-1", SubnetIDs: []string{"subnet-b", "subnet-a"}, Routes: []snapshot.Route{
			{Destination: "10.0.0.0/16", Target: "local"}, {Destination: "0.0.0.0/0", Target: "nat-1"},
			{DestinationPrefixList: "pl-68a54001", Target: "vpce-s3"}}},
		snapshot.RouteTable{ID: "rtb-other", VpcID: "vpc-9", Main: true})
	sim.AddNATGateways(snapshot.NATGateway{ID: "nat-1", VpcID: "vpc-1", SubnetID: "subnet-pub", State: "available",
		PublicIP: "203.0.113.7"}, ec2RegionalNAT)
	sim.AddVPCEndpoints(
		snapshot.VPCEndpoint{ID: "vpce-s3", VpcID: "vpc-1", ServiceName: "com.amazonaws.us-west-2.s3", Type: "Gateway",
			State: "available", RouteTableIDs: []string{"rtb-private"}},
		snapshot.VPCEndpoint{ID: "vpce-ecr", VpcID: "vpc-1", ServiceName: "com.amazonaws.us-west-2.ecr.dkr", Type: "Interface",
			State: "available", PrivateDNS: true, SubnetIDs: []string{"subnet-b", "subnet-a"}, SecurityGroups: []string{"sg-nodes"}})
	sim.AddNetworkACLs(
		snapshot.NetworkACL{ID: "acl-default", VpcID: "vpc-1", Default: true, SubnetIDs: []string{"subnet-pods"},
			Entries: []snapshot.ACLEntry{{RuleNumber: 100, Protocol: "-1", Action: "allow", CIDR: "0.0.0.0/0"},
				{RuleNumber: 100, Egress: true, Protocol: "-1", Action: "allow", CIDR: "0.0.0.0/0"}}},
		snapshot.NetworkACL{ID: "acl-nodes", VpcID: "vpc-1", SubnetIDs: []string{"subnet-a", "subnet-b"},
			Entries: []snapshot.ACLEntry{
				{RuleNumber: 200, Egress: true, Protocol: "tcp", Action: "allow", CIDR: "0.0.0.0/0", FromPort: 443, ToPort: 443},
				{RuleNumber: 100, Protocol: "tcp", Action: "allow", CIDR: "0.0.0.0/0", FromPort: 1024, ToPort: 65535},
				{RuleNumber: 90, Protocol: "udp", Action: "deny", CIDR: "10.9.0.0/16", FromPort: 53, ToPort: 53},
				{RuleNumber: 80, Protocol: "all", Action: "deny", IPv6CIDR: "::/0"},
			}})
}

// ec2RegionalNAT is a regional NAT gateway of vpc-1: no subnet, a route table of its own, and
// addresses in two zones it was given by hand.
var ec2RegionalNAT = snapshot.NATGateway{ID: "nat-2", VpcID: "vpc-1", State: "available", ConnectivityType: "public",
	PublicIP: "203.0.113.8", AvailabilityMode: snapshot.NATRegional, RouteTableID: "rtb-nat2",
	AutoProvisionZones: snapshot.NATAutoZonesDisabled, Zones: []string{"us-west-2a", "us-west-2b"},
	ZoneIDs: []string{"usw2-az1", "usw2-az2"}}

func TestCollectEC2ReadsTheWayOut(t *testing.T) {
	w := newEC2World(t, 3)
	ec2AddNetwork(w.sim)
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	if len(w.snap.Gaps) != 0 {
		t.Fatalf("got gaps %+v, want none", w.snap.Gaps)
	}
	wantTables := []snapshot.RouteTable{
		{ID: "rtb-main", VpcID: "vpc-1", Main: true, Routes: []snapshot.Route{
			{Destination: "10.0.0.0/16", Target: "local", State: "active"}, {Destination: "0.0.0.0/0", Target: "igw-1", State: "active"}}},
		{ID: "rtb-private", VpcID: "vpc-1", SubnetIDs: []string{"subnet-a", "subnet-b"}, Routes: []snapshot.Route{
			{Destination: "10.0.0.0/16", Target: "local", State: "active"}, {Destination: "0.0.0.0/0", Target: "nat-1", State: "active"},
			{DestinationPrefixList: "pl-68a54001", Target: "vpce-s3", State: "active"}}},
	}
	if diff := cmp.Diff(wantTables, w.snap.RouteTables); diff != "" {
		t.Errorf("route tables (-want +got):\n%s", diff)
	}
	wantNAT := []snapshot.NATGateway{{ID: "nat-1", VpcID: "vpc-1", SubnetID: "subnet-pub", State: "available",
		PublicIP: "203.0.113.7"}, ec2RegionalNAT}
	if diff := cmp.Diff(wantNAT, w.snap.NATGateways); diff != "" {
		t.Errorf("NAT gateways (-want +got):\n%s", diff)
	}
	wantEndpoints := []snapshot.VPCEndpoint{
		{ID: "vpce-ecr", VpcID: "vpc-1", ServiceName: "com.amazonaws.us-west-2.ecr.dkr", Type: "Interface",
			State: "available", PrivateDNS: true, SubnetIDs: []string{"subnet-a", "subnet-b"}, SecurityGroups: []string{"sg-nodes"}},
		{ID: "vpce-s3", VpcID: "vpc-1", ServiceName: "com.amazonaws.us-west-2.s3", Type: "Gateway",
			State: "available", RouteTableIDs: []string{"rtb-private"}},
	}
	if diff := cmp.Diff(wantEndpoints, w.snap.VPCEndpoints); diff != "" {
		t.Errorf("VPC endpoints (-want +got):\n%s", diff)
	}
	// Protocols as numbers, ingress then egress by rule number, the final "*" rules left out.
	wantACLs := []snapshot.NetworkACL{
		{ID: "acl-default", VpcID: "vpc-1", Default: true, SubnetIDs: []string{"subnet-pods"}, Entries: []snapshot.ACLEntry{
			{RuleNumber: 100, Protocol: "-1", Action: "allow", CIDR: "0.0.0.0/0"},
			{RuleNumber: 100, Egress: true, Protocol: "-1", Action: "allow", CIDR: "0.0.0.0/0"}}},
		{ID: "acl-nodes", VpcID: "vpc-1", SubnetIDs: []string{"subnet-a", "subnet-b"}, Entries: []snapshot.ACLEntry{
			{RuleNumber: 80, Protocol: "-1", Action: "deny", IPv6CIDR: "::/0"},
			{RuleNumber: 90, Protocol: "17", Action: "deny", CIDR: "10.9.0.0/16", FromPort: 53, ToPort: 53},
			{RuleNumber: 100, Protocol: "6", Action: "allow", CIDR: "0.0.0.0/0", FromPort: 1024, ToPort: 65535},
			{RuleNumber: 200, Egress: true, Protocol: "6", Action: "allow", CIDR: "0.0.0.0/0", FromPort: 443, ToPort: 443}}},
	}
	if diff := cmp.Diff(wantACLs, w.snap.NetworkACLs); diff != "" {
		t.Errorf("network ACLs (-want +got):\n%s", diff)
	}
	for _, r := range w.sim.Requests() {
		switch r.Action {
		case ec2sim.DescribeRouteTables, ec2sim.DescribeNatGateways, ec2sim.DescribeVpcEndpoints, ec2sim.DescribeNetworkAcls:
			if diff := cmp.Diff(map[string][]string{"vpc-id": {"vpc-1"}}, r.Filters); diff != "" {
				t.Errorf("%s filters (-want +got):\n%s", r.Action, diff)
			}
		}
	}
}

func TestCollectEC2NetworkDenied(t *testing.T) {
	for _, tc := range []struct {
		action, source string
	}{
		{ec2sim.DescribeRouteTables, snapshot.SourceDescribeRouteTables},
		{ec2sim.DescribeNatGateways, snapshot.SourceDescribeNatGateways},
		{ec2sim.DescribeVpcEndpoints, snapshot.SourceDescribeVpcEndpoints},
		{ec2sim.DescribeNetworkAcls, snapshot.SourceDescribeNetworkAcls},
	} {
		t.Run(tc.action, func(t *testing.T) {
			w := newEC2World(t, 3)
			ec2AddNetwork(w.sim)
			w.sim.Fail(tc.action, "UnauthorizedOperation", 0)
			(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
			if len(w.snap.Gaps) != 1 {
				t.Fatalf("got gaps %+v, want one for %s", w.snap.Gaps, tc.source)
			}
			g := w.snap.Gaps[0]
			if g.Source != tc.source || g.Remedy != "allow "+tc.source+" to the caller" {
				t.Errorf("gap = %+v, want source %s and remedy allowing it", g, tc.source)
			}
			got := map[string]int{"routeTables": len(w.snap.RouteTables), "natGateways": len(w.snap.NATGateways),
				"vpcEndpoints": len(w.snap.VPCEndpoints), "networkACLs": len(w.snap.NetworkACLs)}
			want := map[string]int{"routeTables": 2, "natGateways": 2, "vpcEndpoints": 2, "networkACLs": 2}
			want[map[string]string{
				ec2sim.DescribeRouteTables: "routeTables", ec2sim.DescribeNatGateways: "natGateways",
				ec2sim.DescribeVpcEndpoints: "vpcEndpoints", ec2sim.DescribeNetworkAcls: "networkACLs",
			}[tc.action]] = 0
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("what was read (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCollectEC2NetworkBatchesVPCs(t *testing.T) {
	w := newEC2World(t, 1)
	// 250 more subnets, each in a VPC of its own, named by an ENIConfig each.
	for i := range 250 {
		id := fmt.Sprintf("subnet-v%03d", i)
		w.sim.AddSubnets(snapshot.Subnet{ID: id, VpcID: fmt.Sprintf("vpc-%03d", i), CIDR: "10.1.0.0/24", Zone: "us-west-2a"})
		w.snap.ENIConfigs = append(w.snap.ENIConfigs, snapshot.ENIConfig{Name: id, Subnet: id})
	}
	w.sim.SetPageSize(11)
	for i := range 250 {
		w.sim.AddRouteTables(snapshot.RouteTable{ID: fmt.Sprintf("rtb-%03d", i), VpcID: fmt.Sprintf("vpc-%03d", i), Main: true})
	}
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	if len(w.snap.Gaps) != 0 {
		t.Fatalf("got gaps %+v, want none", w.snap.Gaps)
	}
	if got := len(w.snap.RouteTables); got != 250 {
		t.Errorf("got %d route tables, want 250", got)
	}
	// The nodes' VPC (vpc-1, without tables) is read with the references, one call of each
	// action; the 250 VPCs only the ENIConfigs' subnets are in once the subnets are read, in
	// two batches (200 and 50): the first batch's 200 route tables come in 19 pages of 11, the
	// second's 50 in 5.
	for action, want := range map[string]int{
		ec2sim.DescribeNatGateways: 1 + 2, ec2sim.DescribeVpcEndpoints: 1 + 2, ec2sim.DescribeNetworkAcls: 1 + 2,
		ec2sim.DescribeRouteTables: 1 + 19 + 5,
	} {
		if got := w.sim.Count(action); got != want {
			t.Errorf("got %d %s requests, want %d", got, action, want)
		}
	}
}

func TestCollectEC2NetworkAnswersAreChecked(t *testing.T) {
	for _, action := range []string{ec2sim.DescribeRouteTables, ec2sim.DescribeNatGateways,
		ec2sim.DescribeVpcEndpoints, ec2sim.DescribeNetworkAcls} {
		t.Run(action, func(t *testing.T) {
			w := newEC2World(t, 1)
			ec2AddNetwork(w.sim)
			w.sim.SetBody(action, http.StatusOK, "text/html", "<!DOCTYPE html><title>Sign in</title>")
			(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
			if len(w.snap.Gaps) != 1 || w.snap.Gaps[0].Source != snapshot.SourceEC2 ||
				!strings.Contains(w.snap.Gaps[0].Reason, "not a "+action+" answer") {
				t.Errorf("gaps %+v: want one ec2 gap saying the answer is not a %s answer", w.snap.Gaps, action)
			}
		})
	}
}

// ec2HeldSubnets answers DescribeSubnets only once DescribeRouteTables has been asked (or
// after a while, saying so): the way out of the VPCs the instances name is read with the
// references, not after them.
type ec2HeldSubnets struct {
	EC2API
	tables  chan struct{}
	once    sync.Once
	waited  atomic.Bool
	release time.Duration
}

func (h *ec2HeldSubnets) DescribeRouteTables(ctx context.Context, in *ec2.DescribeRouteTablesInput, opts ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	h.once.Do(func() { close(h.tables) })
	return h.EC2API.DescribeRouteTables(ctx, in, opts...)
}

func (h *ec2HeldSubnets) DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, opts ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	select {
	case <-h.tables:
	case <-time.After(h.release):
		h.waited.Store(true)
	}
	return h.EC2API.DescribeSubnets(ctx, in, opts...)
}

func TestCollectEC2ReadsTheInstancesVPCsWithTheReferences(t *testing.T) {
	w := newEC2World(t, 3)
	ec2AddNetwork(w.sim)
	api := &ec2HeldSubnets{EC2API: ec2sim.NewClient(w.url, "us-west-2"), tables: make(chan struct{}), release: 5 * time.Second}
	(&Collector{EC2: api}).collectEC2(t.Context(), w.snap)
	if api.waited.Load() {
		t.Error("DescribeSubnets was answered before any DescribeRouteTables was asked: the VPCs the instances name " +
			"were read after the references, not with them")
	}
	if len(w.snap.Gaps) != 0 || len(w.snap.Subnets) == 0 || len(w.snap.RouteTables) != 2 {
		t.Errorf("got %d subnets, %d route tables, gaps %+v; want the subnets, 2 tables, no gap",
			len(w.snap.Subnets), len(w.snap.RouteTables), w.snap.Gaps)
	}
	// The subnets name no VPC the instances do not: no second round of the way out.
	if got := w.sim.Count(ec2sim.DescribeRouteTables); got != 1 {
		t.Errorf("got %d DescribeRouteTables requests, want 1", got)
	}
}
