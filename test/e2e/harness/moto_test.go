package harness

import (
	"net/netip"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

// TestMoto starts the launcher, builds EC2 state with the real SDK, and checks that every
// Describe call karpnet makes answers what karpnet reads; then faults, request counts, the
// collector over moto, a 50-instance DescribeInstances, Reset and Close.
func TestMoto(t *testing.T) {
	skipShort(t, "moto")
	ctx := t.Context()
	start := time.Now()
	m, err := StartMoto(ctx, t.TempDir())
	if err != nil {
		t.Fatalf("StartMoto: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	t.Logf("moto launcher answered in %s at %s", time.Since(start).Round(time.Millisecond), m.URL)
	var attempts motoAttempts
	c := ec2.New(m.EC2(ctx, motoRegion).Options(), attempts.install)
	w := motoBuild(t, c)

	t.Run("DescribeInstances", func(t *testing.T) { motoTestInstances(t, c, w) })
	t.Run("DescribeSubnets", func(t *testing.T) { motoTestSubnets(t, c, w) })
	t.Run("DescribeSecurityGroups", func(t *testing.T) { motoTestSecurityGroups(t, c, w) })
	t.Run("DescribePlacementGroups", func(t *testing.T) { motoTestPlacementGroups(t, c, w) })
	t.Run("DescribeInstanceTypes", func(t *testing.T) { motoTestInstanceTypes(t, c) })
	t.Run("faults", func(t *testing.T) { motoTestFaults(t, m, c, w) })
	t.Run("requests", func(t *testing.T) { motoTestRequests(t, m, &attempts) })
	t.Run("collector", func(t *testing.T) { motoTestCollector(t, m, w) })
	t.Run("50 instances", func(t *testing.T) { motoTestMany(t, c, w) })
	t.Run("IPv6", func(t *testing.T) { motoTestIPv6(t, c) })
	t.Run("Reset", func(t *testing.T) { motoTestReset(t, m, c) })
	t.Run("Close", func(t *testing.T) { motoTestClose(t, m) })
}

func motoTestInstances(t *testing.T, c *ec2.Client, w motoWorld) {
	ids := []string{w.prefixed, w.efa, w.trunked, w.partitioned}
	instances := motoDescribe(t, c, ids)
	sg := []string{w.sg}
	want := map[string]motoInstance{
		w.prefixed: {Type: "m5.large", State: "running", Zone: "us-west-2a", ZoneID: "usw2-az2", Subnet: w.subnetA,
			Groups: sg, ENIs: []motoENI{{Type: "interface", Status: "in-use", Addresses: 4, Prefixes: 2, Groups: sg}}},
		w.efa: {Type: "p5.48xlarge", State: "running", Zone: "us-west-2a", ZoneID: "usw2-az2", Subnet: w.subnetA,
			PlacementGroup: "training", Groups: sg, ENIs: []motoENI{
				{Type: "efa", Status: "in-use", Addresses: 1, Groups: sg},
				{Type: "efa-only", Card: 1, Device: 1, Status: "in-use", Groups: sg}}},
		w.trunked: {Type: "m5.large", State: "running", Zone: "us-west-2b", ZoneID: "usw2-az1", Subnet: w.subnetB,
			Groups: sg, ENIs: []motoENI{
				{Type: "interface", Status: "in-use", Addresses: 1, Groups: sg},
				{Type: "trunk", Device: 1, Status: "in-use", Addresses: 1, Groups: sg}}},
		w.partitioned: {Type: "m5.large", State: "running", Zone: "us-west-2b", ZoneID: "usw2-az1", Subnet: w.subnetB,
			PlacementGroup: "storage", Partition: 2, Groups: sg,
			ENIs: []motoENI{{Type: "interface", Status: "in-use", Addresses: 1, Groups: sg}}},
	}
	got := map[string]motoInstance{}
	for id, in := range instances {
		got[id] = motoView(in)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DescribeInstances mismatch (-want +got):\n%s", diff)
	}
	if g := aws.ToString(instances[w.efa].Placement.GroupId); g != w.cluster {
		t.Errorf("p5 placement groupId: got %q, want %q", g, w.cluster)
	}
	motoCheckAddresses(t, instances)
}

// motoCheckAddresses checks that every address and prefix is unique, inside its interface's
// subnet, prefixes are aligned /28s that hold no address, and that an instance's
// privateIpAddress is its primary interface's primary address.
func motoCheckAddresses(t *testing.T, instances map[string]types.Instance) {
	t.Helper()
	cidrs := map[string]netip.Prefix{"us-west-2a": netip.MustParsePrefix("10.0.0.0/24"),
		"us-west-2b": netip.MustParsePrefix("10.0.1.0/24")}
	seen := map[netip.Addr]string{}
	var prefixes []netip.Prefix
	for id, in := range instances {
		subnet := cidrs[aws.ToString(in.Placement.AvailabilityZone)]
		for _, ni := range in.NetworkInterfaces {
			for _, ip := range ni.PrivateIpAddresses {
				a := netip.MustParseAddr(aws.ToString(ip.PrivateIpAddress))
				if other, dup := seen[a]; dup || !subnet.Contains(a) {
					t.Errorf("%s: address %s is used twice (also %s) or outside %s", id, a, other, subnet)
				}
				seen[a] = id
				if aws.ToBool(ip.Primary) && aws.ToInt32(ni.Attachment.DeviceIndex) == 0 &&
					aws.ToInt32(ni.Attachment.NetworkCardIndex) == 0 && a.String() != aws.ToString(in.PrivateIpAddress) {
					t.Errorf("%s: privateIpAddress %s, want the primary interface's %s", id, aws.ToString(in.PrivateIpAddress), a)
				}
			}
			for _, p := range ni.Ipv4Prefixes {
				pfx := netip.MustParsePrefix(aws.ToString(p.Ipv4Prefix))
				if pfx.Bits() != 28 || pfx.Masked() != pfx || !subnet.Contains(pfx.Addr()) {
					t.Errorf("%s: prefix %s is not an aligned /28 inside %s", id, pfx, subnet)
				}
				prefixes = append(prefixes, pfx)
			}
		}
	}
	for i, p := range prefixes {
		for _, q := range prefixes[i+1:] {
			if p.Overlaps(q) {
				t.Errorf("prefixes %s and %s overlap", p, q)
			}
		}
		for a := range seen {
			if p.Contains(a) {
				t.Errorf("prefix %s holds the address %s", p, a)
			}
		}
	}
}

func motoDescribe(t *testing.T, c *ec2.Client, ids []string) map[string]types.Instance {
	t.Helper()
	out := map[string]types.Instance{}
	pages := ec2.NewDescribeInstancesPaginator(c, &ec2.DescribeInstancesInput{
		Filters: []types.Filter{{Name: aws.String("instance-id"), Values: ids}}, MaxResults: aws.Int32(1000)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(t.Context())
		if err != nil {
			t.Fatalf("DescribeInstances: %v", err)
		}
		for _, r := range page.Reservations {
			for _, in := range r.Instances {
				out[aws.ToString(in.InstanceId)] = in
			}
		}
	}
	return out
}

func motoTestSubnets(t *testing.T, c *ec2.Client, w motoWorld) {
	out, err := c.DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{
		Filters: []types.Filter{{Name: aws.String("subnet-id"), Values: []string{w.subnetA, w.subnetB}}}})
	if err != nil {
		t.Fatalf("DescribeSubnets: %v", err)
	}
	type subnet struct {
		CIDR, Zone, ZoneID string
		Available          int32
	}
	got := map[string]subnet{}
	for _, s := range out.Subnets {
		got[aws.ToString(s.SubnetId)] = subnet{aws.ToString(s.CidrBlock), aws.ToString(s.AvailabilityZone),
			aws.ToString(s.AvailabilityZoneId), aws.ToInt32(s.AvailableIpAddressCount)}
	}
	// A /24 has 251 usable addresses. A: 4 addresses and 2 prefixes (32) on one instance,
	// 1 address on the p5 (its efa-only interface has none). B: 3 addresses.
	want := map[string]subnet{
		w.subnetA: {"10.0.0.0/24", "us-west-2a", "usw2-az2", 251 - 4 - 32 - 1},
		w.subnetB: {"10.0.1.0/24", "us-west-2b", "usw2-az1", 251 - 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DescribeSubnets mismatch (-want +got):\n%s", diff)
	}
}

func motoTestSecurityGroups(t *testing.T, c *ec2.Client, w motoWorld) {
	out, err := c.DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{
		Filters: []types.Filter{{Name: aws.String("group-id"), Values: []string{w.sg}}}})
	if err != nil {
		t.Fatalf("DescribeSecurityGroups: %v", err)
	}
	if len(out.SecurityGroups) != 1 {
		t.Fatalf("DescribeSecurityGroups: got %d groups, want 1", len(out.SecurityGroups))
	}
	g := out.SecurityGroups[0]
	for dir, perms := range map[string][]types.IpPermission{"ingress": g.IpPermissions, "egress": g.IpPermissionsEgress} {
		self := false
		for _, p := range perms {
			for _, pair := range p.UserIdGroupPairs {
				self = self || (aws.ToString(p.IpProtocol) == "-1" && aws.ToString(pair.GroupId) == w.sg)
			}
		}
		if !self {
			t.Errorf("%s rules %+v: want all traffic with group %s", dir, perms, w.sg)
		}
	}
}

func motoTestPlacementGroups(t *testing.T, c *ec2.Client, w motoWorld) {
	ctx := t.Context()
	byFilter, err := c.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{Filters: []types.Filter{
		{Name: aws.String("group-name"), Values: []string{"training", "storage", "absent"}}}})
	if err != nil {
		t.Fatalf("DescribePlacementGroups by group-name: %v", err)
	}
	type group struct {
		ID, Strategy, State string
		Partitions          int32
	}
	got := map[string]group{}
	for _, g := range byFilter.PlacementGroups {
		got[aws.ToString(g.GroupName)] = group{aws.ToString(g.GroupId), string(g.Strategy), string(g.State), aws.ToInt32(g.PartitionCount)}
	}
	want := map[string]group{
		"training": {ID: w.cluster, Strategy: "cluster", State: "available"},
		"storage":  {ID: w.partition, Strategy: "partition", State: "available", Partitions: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DescribePlacementGroups by group-name mismatch (-want +got):\n%s", diff)
	}
	byID, err := c.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{GroupIds: []string{w.cluster}})
	if err != nil {
		t.Fatalf("DescribePlacementGroups by GroupIds: %v", err)
	}
	if len(byID.PlacementGroups) != 1 || aws.ToString(byID.PlacementGroups[0].GroupName) != "training" {
		t.Errorf("DescribePlacementGroups GroupIds=[%s]: got %+v, want only training", w.cluster, byID.PlacementGroups)
	}
	for name, in := range map[string]*ec2.DescribePlacementGroupsInput{
		"unknown ID":   {GroupIds: []string{w.cluster, "pg-0000000000000000a"}},
		"unknown name": {GroupNames: []string{"absent"}},
	} {
		_, err := c.DescribePlacementGroups(ctx, in)
		if code := motoErrorCode(err); code != "InvalidPlacementGroup.Unknown" {
			t.Errorf("DescribePlacementGroups with an %s: got error %v, want InvalidPlacementGroup.Unknown", name, err)
		}
	}
}

func motoTestInstanceTypes(t *testing.T, c *ec2.Client) {
	out, err := c.DescribeInstanceTypes(t.Context(), &ec2.DescribeInstanceTypesInput{
		InstanceTypes: []types.InstanceType{types.InstanceTypeP548xlarge}})
	if err != nil {
		t.Fatalf("DescribeInstanceTypes: %v", err)
	}
	if len(out.InstanceTypes) != 1 || out.InstanceTypes[0].NetworkInfo == nil {
		t.Fatalf("DescribeInstanceTypes p5.48xlarge: got %+v, want one type with NetworkInfo", out.InstanceTypes)
	}
	it := out.InstanceTypes[0]
	n := it.NetworkInfo
	type info struct {
		Hypervisor                 string
		VCPUs, MaxENIs, Cards, EFA int32
		EFASupported               bool
	}
	got := info{Hypervisor: string(it.Hypervisor), VCPUs: aws.ToInt32(it.VCpuInfo.DefaultVCpus),
		MaxENIs: aws.ToInt32(n.MaximumNetworkInterfaces), Cards: int32(len(n.NetworkCards)), EFASupported: aws.ToBool(n.EfaSupported)}
	if n.EfaInfo != nil {
		got.EFA = aws.ToInt32(n.EfaInfo.MaximumEfaInterfaces)
	}
	want := info{Hypervisor: "nitro", VCPUs: 192, MaxENIs: 64, Cards: 32, EFA: 32, EFASupported: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("p5.48xlarge mismatch (-want +got):\n%s", diff)
	}
}

// motoTestIPv6 builds a dual-stack subnet and an instance whose primary interface gets an
// IPv6 address at launch and a /80 prefix from AssignIpv6Addresses, as the VPC CNI of an IPv6
// cluster asks for it, and reads both back as karpnet does.
func motoTestIPv6(t *testing.T, c *ec2.Client) {
	ctx := t.Context()
	vpc, err := c.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.1.0.0/16"), AmazonProvidedIpv6CidrBlock: aws.Bool(true)})
	if err != nil {
		t.Fatalf("CreateVpc: %v", err)
	}
	vpcs, err := c.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{aws.ToString(vpc.Vpc.VpcId)}})
	if err != nil || len(vpcs.Vpcs) != 1 || len(vpcs.Vpcs[0].Ipv6CidrBlockAssociationSet) != 1 {
		t.Fatalf("DescribeVpcs: %v %+v", err, vpcs)
	}
	v6 := netip.MustParsePrefix(aws.ToString(vpcs.Vpcs[0].Ipv6CidrBlockAssociationSet[0].Ipv6CidrBlock))
	sub64 := netip.PrefixFrom(v6.Addr(), 64)
	sn, err := c.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: vpc.Vpc.VpcId, CidrBlock: aws.String("10.1.0.0/24"),
		Ipv6CidrBlock: aws.String(sub64.String()), AvailabilityZone: aws.String("us-west-2a")})
	if err != nil {
		t.Fatalf("CreateSubnet: %v", err)
	}
	subnets, err := c.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{aws.ToString(sn.Subnet.SubnetId)}})
	if err != nil || len(subnets.Subnets) != 1 || len(subnets.Subnets[0].Ipv6CidrBlockAssociationSet) != 1 {
		t.Fatalf("DescribeSubnets: %v %+v", err, subnets)
	}
	a := subnets.Subnets[0].Ipv6CidrBlockAssociationSet[0]
	if aws.ToString(a.Ipv6CidrBlock) != sub64.String() || a.Ipv6CidrBlockState == nil || a.Ipv6CidrBlockState.State != types.SubnetCidrBlockStateCodeAssociated {
		t.Errorf("subnet IPv6 CIDR: got %s in state %+v, want %s associated", aws.ToString(a.Ipv6CidrBlock), a.Ipv6CidrBlockState, sub64)
	}
	run, err := c.RunInstances(ctx, &ec2.RunInstancesInput{ImageId: aws.String("ami-0123456789abcdef0"), InstanceType: "m5.large",
		MinCount: aws.Int32(1), MaxCount: aws.Int32(1), SubnetId: sn.Subnet.SubnetId, Ipv6AddressCount: aws.Int32(1)})
	if err != nil {
		t.Fatalf("RunInstances: %v", err)
	}
	id := aws.ToString(run.Instances[0].InstanceId)
	eni := run.Instances[0].NetworkInterfaces[0].NetworkInterfaceId
	assigned, err := c.AssignIpv6Addresses(ctx, &ec2.AssignIpv6AddressesInput{NetworkInterfaceId: eni, Ipv6PrefixCount: aws.Int32(1)})
	if err != nil || len(assigned.AssignedIpv6Prefixes) != 1 {
		t.Fatalf("AssignIpv6Addresses Ipv6PrefixCount=1: %v %+v", err, assigned)
	}
	ni := motoDescribe(t, c, []string{id})[id].NetworkInterfaces[0]
	if len(ni.Ipv6Addresses) != 1 || !sub64.Contains(netip.MustParseAddr(aws.ToString(ni.Ipv6Addresses[0].Ipv6Address))) {
		t.Errorf("interface IPv6 addresses: got %+v, want one in %s", ni.Ipv6Addresses, sub64)
	}
	if len(ni.Ipv6Prefixes) != 1 {
		t.Fatalf("interface IPv6 prefixes: got %+v, want one /80", ni.Ipv6Prefixes)
	}
	if p := netip.MustParsePrefix(aws.ToString(ni.Ipv6Prefixes[0].Ipv6Prefix)); p.Bits() != 80 || p.Masked() != p || !sub64.Contains(p.Addr()) {
		t.Errorf("IPv6 prefix %s is not an aligned /80 inside %s", p, sub64)
	}
}
