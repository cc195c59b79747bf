package sheet

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/fixture"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// sheetFixture returns the healthy snapshot with a second node in a spread placement group
// selected by EC2NodeClass default, an ENIConfig and the subnet discovery tag on fixture.SubnetA, an
// Auto Mode NodeClass that shares the name default, and a NodeClaim of pool default that
// launched an instance in fixture.SubnetA and has no Node.
func sheetFixture() *snapshot.Snapshot {
	s := fixture.Healthy()
	s.Subnets[0].Tags = map[string]string{diagnose.TagRoleCNI: "1"}
	s.ENIConfigs = []snapshot.ENIConfig{{Name: "us-west-2a", Subnet: fixture.SubnetA}}
	s.NodeClasses[0].PlacementGroupSelector = &snapshot.PlacementGroupSelector{Name: "web-spread"}
	s.NodeClasses = append(s.NodeClasses, snapshot.EC2NodeClass{Name: "default", Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass})
	s.PlacementGroups = []snapshot.PlacementGroup{{ID: "pg-0spread", Name: "web-spread", Strategy: "spread", SpreadLevel: "rack", State: "available"}}
	in := fixture.Instance(claimInstance, "10.0.1.77")
	in.Placement.GroupName = "web-spread"
	s.Instances = append(s.Instances, in)
	s.NodeClaims = append(s.NodeClaims, snapshot.NodeClaim{
		Name:         "default-nonode",
		Labels:       map[string]string{snapshot.LabelNodePool: "default"},
		NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "default"},
		ProviderID:   "aws:///us-west-2a/" + claimInstance,
		Created:      s.Taken.Add(-2 * 60e9),
	})
	s.NodePools[0].Requirements = []snapshot.Requirement{
		{Key: "topology.kubernetes.io/zone", Operator: "In", Values: []string{"us-west-2a", "us-west-2b"}},
		{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"spot"}},
	}
	return s
}

// claimInstance is the instance of the fixture's NodeClaim without a Node.
const claimInstance = "i-0c1a1a0000000000f"

// memberNames returns kind/name of each member.
func memberNames(ms []Member) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Kind+"/"+m.Name)
	}
	return out
}

func TestDescribeSubnet(t *testing.T) {
	s := sheetFixture()
	x := diagnose.NewIndex(s)
	r := diagnose.Analyze(s, diagnose.Options{})
	r.Findings = append(r.Findings, diagnose.Finding{ID: "planted", Resource: "subnet/" + fixture.SubnetA}, diagnose.Finding{ID: "other", Resource: "subnet/subnet-0other"})
	sh, ok := DescribeSubnet(x, r, fixture.SubnetA)
	if !ok {
		t.Fatalf("DescribeSubnet(%s): not found", fixture.SubnetA)
	}
	if sh.Kind != SubnetSheetKind || sh.UsableIPs != 251 || sh.AvailableIPs != 200 || sh.Zone != "us-west-2a" {
		t.Errorf("addresses: got kind %q usable %d available %d zone %q, want Subnet, 251, 200, us-west-2a", sh.Kind, sh.UsableIPs, sh.AvailableIPs, sh.Zone)
	}
	wantSel := []SubnetSelector{
		{Kind: "EC2NodeClass", Name: "default", Via: "status.subnets"},
		{Kind: "ENIConfig", Name: "us-west-2a", Via: "spec.subnet"},
		{Kind: "SubnetDiscovery", Name: diagnose.TagRoleCNI + "=1", Via: "tag, subnet discovery on"},
	}
	if diff := cmp.Diff(wantSel, sh.SelectedBy); diff != "" {
		t.Errorf("SelectedBy (-want +got):\n%s", diff)
	}
	if got, want := memberNames(sh.Members), []string{"node/" + fixture.NodeA, "nodeclaim/default-nonode"}; !slices.Equal(got, want) {
		t.Errorf("Members: got %q, want %q", got, want)
	}
	if len(sh.Findings) != 1 || sh.Findings[0].ID != "planted" {
		t.Errorf("Findings: got %+v, want only the planted finding on %s", sh.Findings, fixture.SubnetA)
	}
	if _, ok := DescribeSubnet(x, r, "subnet-0unknown"); ok {
		t.Error("DescribeSubnet of a subnet not read: got a sheet, want false")
	}
}

func TestDescribeNodeClass(t *testing.T) {
	s := sheetFixture()
	x := diagnose.NewIndex(s)
	r := diagnose.Analyze(s, diagnose.Options{})
	if got, want := NodeClassKinds(x, "", "default"), []string{snapshot.KindEC2NodeClass, snapshot.KindNodeClass}; !slices.Equal(got, want) {
		t.Errorf("NodeClassKinds(default): got %q, want %q", got, want)
	}
	if got := NodeClassKinds(x, snapshot.KindNodeClass, "default"); !slices.Equal(got, []string{snapshot.KindNodeClass}) {
		t.Errorf("NodeClassKinds(NodeClass, default): got %q, want only NodeClass", got)
	}
	sh, ok := DescribeNodeClass(x, r, snapshot.KindEC2NodeClass, "default")
	if !ok {
		t.Fatal("DescribeNodeClass(EC2NodeClass default): not found")
	}
	if sh.Resource != "ec2nodeclass/default" || sh.PlacementGroup == nil || sh.PlacementGroup.ID != "pg-0spread" {
		t.Errorf("got resource %q placement group %+v, want ec2nodeclass/default and pg-0spread", sh.Resource, sh.PlacementGroup)
	}
	if !slices.Equal(sh.NodePools, []string{"default"}) {
		t.Errorf("NodePools: got %q, want [default]", sh.NodePools)
	}
	if got, want := memberNames(sh.Members), []string{"node/" + fixture.NodeA, "nodeclaim/default-nonode"}; !slices.Equal(got, want) {
		t.Errorf("Members: got %q, want %q", got, want)
	}
	auto, ok := DescribeNodeClass(x, r, snapshot.KindNodeClass, "default")
	if !ok || auto.Resource != "nodeclass/default" || len(auto.Members) != 0 || len(auto.NodePools) != 0 {
		t.Errorf("Auto Mode NodeClass default: got %+v, want nodeclass/default with no pools or members", auto)
	}
}

func TestDescribeNodePool(t *testing.T) {
	s := sheetFixture()
	x := diagnose.NewIndex(s)
	r := diagnose.Analyze(s, diagnose.Options{})
	sh, ok := DescribeNodePool(x, r, "default")
	if !ok {
		t.Fatal("DescribeNodePool(default): not found")
	}
	if sh.Zones == nil || !slices.Equal(sh.Zones.Values, []string{"us-west-2a", "us-west-2b"}) || sh.CapacityTypes == nil || sh.InstanceTypes != nil {
		t.Errorf("requirements: got zones %+v capacity %+v types %+v, want the zone and capacity-type ones only", sh.Zones, sh.CapacityTypes, sh.InstanceTypes)
	}
	if !sh.NodeClassFound || sh.NodeClassKind != snapshot.KindEC2NodeClass || !slices.Equal(sh.ClassZones, []string{"us-west-2a"}) {
		t.Errorf("class: got found %v kind %q zones %q, want the EC2NodeClass in us-west-2a", sh.NodeClassFound, sh.NodeClassKind, sh.ClassZones)
	}
	if !slices.Equal(sh.ZonesWithoutSubnet, []string{"us-west-2b"}) {
		t.Errorf("ZonesWithoutSubnet: got %q, want [us-west-2b]: the pool allows it, the class has no subnet there", sh.ZonesWithoutSubnet)
	}
	if got, want := memberNames(sh.Members), []string{"node/" + fixture.NodeA, "nodeclaim/default-nonode"}; !slices.Equal(got, want) {
		t.Errorf("Members: got %q, want %q", got, want)
	}
	if sh.Members[1].Status == "" {
		t.Error("the NodeClaim without a Node has no status, want the report's")
	}
	if _, ok := DescribeNodePool(x, r, "nope"); ok {
		t.Error("DescribeNodePool(nope): got a sheet, want false")
	}
}

func TestDescribePlacementGroup(t *testing.T) {
	s := sheetFixture()
	for i := range 7 {
		in := fixture.Instance(fmt.Sprintf("i-0%016x", i+1), fmt.Sprintf("10.0.1.9%d", i))
		in.Placement.GroupID = "pg-0spread"
		if i == 6 {
			in.State = "terminated"
		}
		s.Instances = append(s.Instances, in)
		s.NodeClaims = append(s.NodeClaims, snapshot.NodeClaim{Name: "spread-" + string(rune('a'+i)), ProviderID: "aws:///us-west-2a/" + in.ID})
	}
	x := diagnose.NewIndex(s)
	r := diagnose.Analyze(s, diagnose.Options{})
	for _, key := range []string{"web-spread", "pg-0spread"} {
		sh, ok := DescribePlacementGroup(x, r, key)
		if !ok {
			t.Fatalf("DescribePlacementGroup(%s): not found", key)
		}
		if len(sh.Members) != 8 || !slices.Equal(sh.Classes, []string{"ec2nodeclass/default"}) {
			t.Errorf("%s: got members %q classes %q, want 8 members and ec2nodeclass/default", key, memberNames(sh.Members), sh.Classes)
		}
		// Seven are running or pending (the claim's and six of the spread ones); the terminated one does not count.
		if !slices.Equal(sh.ZonesFull, []string{"us-west-2a"}) {
			t.Errorf("%s: ZonesFull got %q, want [us-west-2a]", key, sh.ZonesFull)
		}
	}
	s.Instances = s.Instances[:len(s.Instances)-2]
	x = diagnose.NewIndex(s)
	if sh, _ := DescribePlacementGroup(x, diagnose.Analyze(s, diagnose.Options{}), "web-spread"); len(sh.ZonesFull) != 0 {
		t.Errorf("six running instances: ZonesFull got %q, want none", sh.ZonesFull)
	}
}

func TestDescribeSubnetENIs(t *testing.T) {
	s := sheetFixture()
	s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0pods", CIDR: "100.64.0.0/18", Zone: "us-west-2a", AvailableIPs: 100})
	s.Instances[0].ENIs = append(s.Instances[0].ENIs, snapshot.ENI{ID: "eni-0pod", InterfaceType: "interface", DeviceIndex: 1,
		SubnetID: "subnet-0pods", PrivateIPs: []string{"100.64.0.9"}, IPv4Prefixes: []string{"100.64.0.16/28", "100.64.0.32/28"}})
	x := diagnose.NewIndex(s)
	r := diagnose.Analyze(s, diagnose.Options{})
	pods, _ := DescribeSubnet(x, r, "subnet-0pods")
	want := []SubnetENI{{ID: "eni-0pod", Node: fixture.NodeA, InterfaceType: "interface", DeviceIndex: 1, PrivateIPs: 1, IPv4Prefixes: 2}}
	if diff := cmp.Diff(want, pods.ENIs); diff != "" {
		t.Errorf("ENIs of the pod subnet (-want +got):\n%s", diff)
	}
	if len(pods.Members) != 0 {
		t.Errorf("Members of the pod subnet: got %q, want none (no instance is in it)", memberNames(pods.Members))
	}
	if node, _ := DescribeSubnet(x, r, fixture.SubnetA); len(node.ENIs) != 0 {
		t.Errorf("ENIs of the node subnet: got %+v, want none (the primary ENI is the node's own)", node.ENIs)
	}
}

func TestDescribeNodeClassPodSubnets(t *testing.T) {
	s := sheetFixture()
	s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0pods", CIDR: "100.64.0.0/18", Zone: "us-west-2a", Tags: map[string]string{"role": "pod"}})
	s.NodeClasses[1].PodSubnetSelectorTerms = []snapshot.SelectorTerm{{Tags: map[string]string{"role": "pod"}}}
	x := diagnose.NewIndex(s)
	sh, _ := DescribeNodeClass(x, diagnose.Analyze(s, diagnose.Options{}), snapshot.KindNodeClass, "default")
	if !slices.Equal(sh.PodSubnets, []string{"subnet-0pods"}) {
		t.Errorf("PodSubnets: got %q, want [subnet-0pods]", sh.PodSubnets)
	}
	sub, _ := DescribeSubnet(x, diagnose.Analyze(s, diagnose.Options{}), "subnet-0pods")
	if !slices.Contains(sub.SelectedBy, SubnetSelector{Kind: snapshot.KindNodeClass, Name: "default", Via: "podSubnetSelectorTerms"}) {
		t.Errorf("SelectedBy of the pod subnet: got %+v, want NodeClass default by podSubnetSelectorTerms", sub.SelectedBy)
	}
}
