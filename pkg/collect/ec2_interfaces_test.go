package collect

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2PrefixDelegation turns prefix delegation on in aws-node, so every subnet read is one
// prefixes may be carved from.
func ec2PrefixDelegation(s *snapshot.Snapshot) {
	s.AWSNode = &snapshot.AWSNode{Env: map[string]string{snapshot.EnvPrefixDelegation: "true"}}
}

// ec2AddOthers adds what holds addresses beside the nodes: a Lambda interface in subnet-a, a
// CNI interface left available in subnet-b, an interface of another VPC's subnet and CIDR
// reservations of subnet-a and subnet-pods.
func ec2AddOthers(sim *ec2sim.Server) {
	sim.AddInterfaces(
		snapshot.InterfaceRecord{ID: "eni-lambda", VpcID: "vpc-1", SubnetID: "subnet-a", Zone: "us-west-2a", Status: "in-use",
			InterfaceType: "lambda", Description: "AWS Lambda VPC ENI-fn", RequesterManaged: true,
			PrivateIPs: []string{"10.0.0.7", "10.0.0.8"}, SecurityGroups: []snapshot.GroupRef{{ID: "sg-fn", Name: "fn"}},
			Tags: map[string]string{"Name": "dropped"}},
		snapshot.InterfaceRecord{ID: "eni-leaked", VpcID: "vpc-1", SubnetID: "subnet-b", Zone: "us-west-2b", Status: "available",
			InterfaceType: "interface", Description: "aws-K8S-i-0gone", PrivateIPs: []string{"10.0.33.4"},
			IPv4Prefixes: []string{"10.0.33.16/28"}, IPv6Addresses: []string{"2600::5"}, IPv6Prefixes: []string{"2600:0:0:1::/80"},
			Tags: map[string]string{snapshot.TagCNIInstanceID: "i-0gone", snapshot.TagCNICreatedAt: "2025-01-01T00:00:00Z",
				"team": "dropped"}},
		snapshot.InterfaceRecord{ID: "eni-elsewhere", VpcID: "vpc-9", SubnetID: "subnet-z", Status: "in-use"},
	)
	sim.AddSubnets(snapshot.Subnet{ID: "subnet-z", VpcID: "vpc-9", CIDR: "10.9.0.0/24", Zone: "us-west-2a"})
	sim.AddCIDRReservations(
		snapshot.CIDRReservation{ID: "scr-a", SubnetID: "subnet-a", CIDR: "10.0.16.0/20", Type: "prefix", Description: "pods"},
		snapshot.CIDRReservation{ID: "scr-pods6", SubnetID: "subnet-pods", CIDR: "2600:1::/64", Type: "explicit"},
		snapshot.CIDRReservation{ID: "scr-z", SubnetID: "subnet-z", CIDR: "10.9.0.0/28", Type: "prefix"},
	)
}

// ec2Filtered returns the filters of each request of action, in arrival order.
func ec2Filtered(sim *ec2sim.Server, action string) []map[string][]string {
	var out []map[string][]string
	for _, r := range sim.Requests() {
		if r.Action == action {
			out = append(out, r.Filters)
		}
	}
	return out
}

func TestCollectEC2PrefixSubnetsReadInFull(t *testing.T) {
	w := newEC2World(t, 450)
	ec2AddOthers(w.sim)
	ec2PrefixDelegation(w.snap)
	w.sim.SetPageSize(100)
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	if len(w.snap.Gaps) != 0 {
		t.Fatalf("got gaps %+v, want none", w.snap.Gaps)
	}

	// The nodes' 450 ENIs and the Lambda and leaked ones in the three subnets: 452 interfaces in
	// five pages of 100, of which only the two that are not a node's are kept.
	want := []snapshot.InterfaceRecord{
		{ID: "eni-lambda", VpcID: "vpc-1", SubnetID: "subnet-a", Zone: "us-west-2a", Status: "in-use", InterfaceType: "lambda",
			Description: "AWS Lambda VPC ENI-fn", RequesterManaged: true, PrivateIPs: []string{"10.0.0.7", "10.0.0.8"},
			SecurityGroups: []snapshot.GroupRef{{ID: "sg-fn", Name: "fn"}}},
		{ID: "eni-leaked", VpcID: "vpc-1", SubnetID: "subnet-b", Zone: "us-west-2b", Status: "available", InterfaceType: "interface",
			Description: "aws-K8S-i-0gone", PrivateIPs: []string{"10.0.33.4"}, IPv4Prefixes: []string{"10.0.33.16/28"},
			IPv6Addresses: []string{"2600::5"}, IPv6Prefixes: []string{"2600:0:0:1::/80"},
			Tags: map[string]string{snapshot.TagCNIInstanceID: "i-0gone", snapshot.TagCNICreatedAt: "2025-01-01T00:00:00Z"}},
	}
	if diff := cmp.Diff(want, w.snap.Interfaces); diff != "" {
		t.Errorf("interfaces (-want +got):\n%s", diff)
	}
	wantReservations := []snapshot.CIDRReservation{
		{ID: "scr-a", SubnetID: "subnet-a", CIDR: "10.0.16.0/20", Type: "prefix", Description: "pods"},
		{ID: "scr-pods6", SubnetID: "subnet-pods", CIDR: "2600:1::/64", Type: "explicit"},
	}
	if diff := cmp.Diff(wantReservations, w.snap.CIDRReservations); diff != "" {
		t.Errorf("reservations (-want +got):\n%s", diff)
	}
	subnets := []string{"subnet-a", "subnet-b", "subnet-pods"}
	if diff := cmp.Diff(subnets, w.snap.AddressSubnets); diff != "" {
		t.Errorf("address subnets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"vpc-1"}, w.snap.AvailableVPCs); diff != "" {
		t.Errorf("available VPCs (-want +got):\n%s", diff)
	}

	var bySubnet, available int
	for _, f := range ec2Filtered(w.sim, ec2sim.DescribeNetworkInterfaces) {
		switch {
		case cmp.Equal(f, map[string][]string{"subnet-id": subnets}):
			bySubnet++
		case cmp.Equal(f, map[string][]string{"vpc-id": {"vpc-1"}, "status": {"available"}}):
			available++
		default:
			t.Errorf("DescribeNetworkInterfaces with filters %v, want subnet-id %v or vpc-id and status", f, subnets)
		}
	}
	if bySubnet != 5 || available != 1 {
		t.Errorf("got %d pages by subnet and %d calls for available interfaces, want 5 and 1", bySubnet, available)
	}
	if got := w.sim.Count(ec2sim.GetSubnetCidrReservations); got != 3 {
		t.Errorf("got %d GetSubnetCidrReservations, want 3 (one per subnet)", got)
	}
}

func TestCollectEC2NothingCarvesPrefixesNoSubnetReads(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scoped bool
		// available is how many DescribeNetworkInterfaces the run makes: the available
		// interfaces of the one VPC, not in a scoped run.
		available int
	}{
		{name: "cluster", available: 1},
		{name: "scoped", scoped: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := newEC2World(t, 5)
			(&Collector{EC2: ec2sim.NewClient(base.url, "us-west-2")}).collectEC2(t.Context(), base.snap)

			w := newEC2World(t, 5)
			ec2AddOthers(w.sim)
			// A class that asks for prefixes in no subnet the status names is no reason to read.
			w.snap.NodeClasses = []snapshot.EC2NodeClass{{Name: "default", IPPrefixCount: new(int32)}}
			e := (&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).startEC2(t.Context())
			e.scoped = tc.scoped
			e.addNodes(w.snap.Nodes, -1)
			e.nodesDone(w.snap)
			e.finish(t.Context(), w.snap)

			counts := w.sim.Counts()
			if got := counts[ec2sim.DescribeNetworkInterfaces]; got != tc.available {
				t.Errorf("got %d DescribeNetworkInterfaces, want %d", got, tc.available)
			}
			delete(counts, ec2sim.DescribeNetworkInterfaces)
			wantCounts := base.sim.Counts()
			delete(wantCounts, ec2sim.DescribeNetworkInterfaces)
			if tc.scoped { // the VPCs' DNS is the cluster's, not the nodes': not read in a scoped run
				delete(wantCounts, ec2sim.DescribeVpcs)
				delete(wantCounts, ec2sim.DescribeVpcAttribute)
			}
			if diff := cmp.Diff(wantCounts, counts); diff != "" {
				t.Errorf("requests besides the available interfaces' (-without prefixes +with the others added):\n%s", diff)
			}
			if w.snap.AddressSubnets != nil || w.snap.CIDRReservations != nil {
				t.Errorf("address subnets %v, reservations %v: want none", w.snap.AddressSubnets, w.snap.CIDRReservations)
			}
			if tc.scoped && (w.snap.Interfaces != nil || w.snap.AvailableVPCs != nil) {
				t.Errorf("scoped run: interfaces %v, available VPCs %v; want none", w.snap.Interfaces, w.snap.AvailableVPCs)
			}
			if !tc.scoped && (len(w.snap.Interfaces) != 1 || w.snap.Interfaces[0].ID != "eni-leaked") {
				t.Errorf("interfaces %+v: want only eni-leaked, the available one", w.snap.Interfaces)
			}
		})
	}
}

func TestCollectEC2PrefixSubnetsOfClasses(t *testing.T) {
	w := newEC2World(t, 4)
	ec2AddOthers(w.sim)
	one := int32(1)
	// subnet-b is read; subnet-gone is named but does not exist, so it is not read.
	w.snap.NodeClasses = []snapshot.EC2NodeClass{{Name: "pd", IPPrefixCount: &one,
		StatusSubnets: []snapshot.SubnetStatus{{ID: "subnet-b"}, {ID: "subnet-gone"}}}}
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	if diff := cmp.Diff([]string{"subnet-b"}, w.snap.AddressSubnets); diff != "" {
		t.Errorf("address subnets (-want +got):\n%s", diff)
	}
	for _, f := range ec2Filtered(w.sim, ec2sim.DescribeNetworkInterfaces) {
		if ids, ok := f["subnet-id"]; ok && !slices.Equal(ids, []string{"subnet-b"}) {
			t.Errorf("DescribeNetworkInterfaces by subnet-id %v, want subnet-b only", ids)
		}
	}
	if got := w.sim.Count(ec2sim.GetSubnetCidrReservations); got != 1 {
		t.Errorf("got %d GetSubnetCidrReservations, want 1", got)
	}
}

func TestCollectEC2InterfacesOfTheClusterSearchAreNotKept(t *testing.T) {
	w := ec2KarpenterWorld(t)
	ec2PrefixDelegation(w.snap)
	// The leaked instance the search by cluster tag finds has an ENI in subnet-a, read by
	// subnet before or after the search ends: it is the instance's, not an interface of its own.
	w.sim.AddInstances(snapshot.Instance{ID: ec2InstanceID(11), Type: "m5.large", State: "running", Zone: "us-west-2a",
		VpcID: "vpc-1", SubnetID: "subnet-a", Tags: map[string]string{"kubernetes.io/cluster/prod": "owned",
			"karpenter.sh/provisioner-name": "old"},
		ENIs: []snapshot.ENI{{ID: "eni-found", SubnetID: "subnet-a", PrimaryIP: "10.0.0.11"}}})
	w.sim.AddInterfaces(snapshot.InterfaceRecord{ID: "eni-other", VpcID: "vpc-1", SubnetID: "subnet-a", Status: "in-use"})
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2"), ClusterName: "prod"}).collectEC2(t.Context(), w.snap)
	if !slices.ContainsFunc(w.snap.Instances, func(in snapshot.Instance) bool { return in.ID == ec2InstanceID(11) }) {
		t.Fatalf("instances %+v: want the search's %s", w.snap.Instances, ec2InstanceID(11))
	}
	var ids []string
	for _, n := range w.snap.Interfaces {
		ids = append(ids, n.ID)
	}
	if diff := cmp.Diff([]string{"eni-other"}, ids); diff != "" {
		t.Errorf("interfaces (-want +got):\n%s", diff)
	}
}

func TestCollectEC2AddressReadsDenied(t *testing.T) {
	for _, tc := range []struct {
		action  string
		sources []string
	}{
		{ec2sim.DescribeNetworkInterfaces, []string{snapshot.SourceAvailableInterfaces, snapshot.SourceSubnetInterfaces}},
		{ec2sim.GetSubnetCidrReservations, []string{snapshot.SourceCIDRReservations}},
	} {
		t.Run(tc.action, func(t *testing.T) {
			w := newEC2World(t, 3)
			ec2AddOthers(w.sim)
			ec2PrefixDelegation(w.snap)
			w.sim.Fail(tc.action, "UnauthorizedOperation", 0)
			(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
			var sources []string
			for _, g := range w.snap.Gaps {
				sources = append(sources, g.Source)
				if want := "allow ec2:" + tc.action + " to the caller"; g.Remedy != want {
					t.Errorf("gap %+v: want remedy %q", g, want)
				}
			}
			if diff := cmp.Diff(tc.sources, sources); diff != "" {
				t.Errorf("gap sources (-want +got):\n%s", diff)
			}
			// A subnet whose interfaces or reservations are unknown is not one whose addresses are.
			if w.snap.AddressSubnets != nil {
				t.Errorf("address subnets %v, want none", w.snap.AddressSubnets)
			}
			if len(w.snap.Subnets) == 0 {
				t.Error("the rest of EC2 was not read: no subnets")
			}
		})
	}
}

func TestCollectEC2HostileInterfaceAnswers(t *testing.T) {
	var many strings.Builder
	many.WriteString(`<DescribeNetworkInterfacesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><networkInterfaceSet>`)
	for i := range 1001 {
		fmt.Fprintf(&many, "<item><networkInterfaceId>eni-%d</networkInterfaceId><subnetId>subnet-a</subnetId>"+
			"<vpcId>vpc-1</vpcId><status>available</status></item>", i)
	}
	many.WriteString(`</networkInterfaceSet></DescribeNetworkInterfacesResponse>`)
	for _, tc := range []struct {
		name   string
		action string
		set    func(*ec2sim.Server)
		reason string
	}{
		{"garbage XML", ec2sim.DescribeNetworkInterfaces, func(s *ec2sim.Server) {
			s.SetBody(ec2sim.DescribeNetworkInterfaces, http.StatusOK, "text/xml",
				`<DescribeNetworkInterfacesResponse><networkInterfaceSet><item><networkInterfaceId>eni-1<`)
		}, "deserialization failed"},
		{"more than asked for", ec2sim.DescribeNetworkInterfaces, func(s *ec2sim.Server) {
			s.SetBody(ec2sim.DescribeNetworkInterfaces, http.StatusOK, "text/xml", many.String())
		}, "answered 1001 items on one page"},
		{"endless pages", ec2sim.DescribeNetworkInterfaces, func(s *ec2sim.Server) {
			s.SetTokens(ec2sim.DescribeNetworkInterfaces, ec2sim.EndlessTokens)
		}, "did not end"},
		{"cycling reservations", ec2sim.GetSubnetCidrReservations, func(s *ec2sim.Server) {
			s.SetTokens(ec2sim.GetSubnetCidrReservations, ec2sim.CycleTokens)
		}, "did not end"},
		{"garbage reservations", ec2sim.GetSubnetCidrReservations, func(s *ec2sim.Server) {
			s.SetBody(ec2sim.GetSubnetCidrReservations, http.StatusOK, "text/xml",
				`<GetSubnetCidrReservationsResponse><subnetIpv4CidrReservationSet><item><cidr>&bogus;</cidr>`)
		}, "deserialization failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newEC2World(t, 3)
			ec2AddOthers(w.sim)
			ec2PrefixDelegation(w.snap)
			tc.set(w.sim)
			(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
			if len(w.snap.Gaps) == 0 {
				t.Fatal("got no gap, want one for the hostile answer")
			}
			for _, g := range w.snap.Gaps {
				if !strings.HasPrefix(g.Source, "ec2:"+tc.action) || !strings.Contains(g.Reason, tc.reason) {
					t.Errorf("gap %+v: want source %s... and a reason saying %q", g, tc.action, tc.reason)
				}
			}
			if w.snap.AddressSubnets != nil {
				t.Errorf("address subnets %v after a hostile answer, want none", w.snap.AddressSubnets)
			}
			if len(w.snap.Instances) != 3 || len(w.snap.Subnets) == 0 {
				t.Errorf("the rest of EC2 was not read: %d instances, %d subnets", len(w.snap.Instances), len(w.snap.Subnets))
			}
		})
	}
}

// TestCollectEC2InterfaceOwners: the instances that interfaces left available name and no
// read holds are read by ID, in one DescribeInstances by instance-id: a terminated one with its
// state and stateTransitionReason, one EC2 no longer has with no state. The nodes' own
// instances, interfaces in use and tags that are no instance ID are not asked for; a run scoped
// to some nodes reads none.
func TestCollectEC2InterfaceOwners(t *testing.T) {
	const dead, gone = "i-0000000000000dead", "i-00000000000000b0b"
	for _, scoped := range []bool{false, true} {
		t.Run(fmt.Sprintf("scoped=%t", scoped), func(t *testing.T) {
			w := newEC2World(t, 3)
			w.sim.AddInstances(snapshot.Instance{ID: dead, Type: "m5.large", State: "terminated", Zone: "us-west-2a",
				StateTransitionReason: "User initiated (2025-01-02 02:54:05 GMT)"})
			available := func(id, instance, status string) snapshot.InterfaceRecord {
				return snapshot.InterfaceRecord{ID: id, VpcID: "vpc-1", SubnetID: "subnet-a", Status: status,
					Description: "aws-K8S-" + instance, Tags: map[string]string{snapshot.TagCNIInstanceID: instance}}
			}
			w.sim.AddInterfaces(available("eni-dead", dead, "available"), available("eni-gone", gone, "available"),
				available("eni-node", ec2InstanceID(0), "available"), available("eni-junk", "i-0gone", "available"),
				available("eni-used", "i-00000000000000abc", "in-use"))
			e := (&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).startEC2(t.Context())
			e.scoped = scoped
			e.addNodes(w.snap.Nodes, -1)
			e.nodesDone(w.snap)
			e.finish(t.Context(), w.snap)
			if len(w.snap.Gaps) != 0 {
				t.Fatalf("got gaps %+v, want none", w.snap.Gaps)
			}
			var byOwner int
			for _, f := range ec2Filtered(w.sim, ec2sim.DescribeInstances) {
				if ids, ok := f["instance-id"]; ok && slices.Contains(ids, dead) {
					byOwner++
					if !slices.Equal(ids, []string{gone, dead}) {
						t.Errorf("owners asked for %v, want %v", ids, []string{gone, dead})
					}
				}
			}
			var want []snapshot.InterfaceOwner
			if !scoped {
				want = []snapshot.InterfaceOwner{{ID: gone},
					{ID: dead, State: "terminated", StateTransitionReason: "User initiated (2025-01-02 02:54:05 GMT)"}}
			}
			if diff := cmp.Diff(want, w.snap.InterfaceOwners); diff != "" {
				t.Errorf("interface owners (-want +got):\n%s", diff)
			}
			if wantCalls := len(want) / 2; byOwner != wantCalls {
				t.Errorf("got %d DescribeInstances for the owners, want %d", byOwner, wantCalls)
			}
		})
	}
}

// TestCollectEC2ReservationPagesBounded: with prefixes carved from many subnets, the
// GetSubnetCidrReservations calls of one collection cost one request per subnet for at most
// ec2MaxReservationSubnets subnets plus ec2SpareReservations follow-up pages shared, whatever
// the NextTokens; a subnet past either bound is a gap and not one whose addresses are known.
func TestCollectEC2ReservationPagesBounded(t *testing.T) {
	for _, tc := range []struct {
		name     string
		subnets  int
		tokens   ec2sim.Tokens
		requests int
		reason   string
	}{
		{"32 subnets, tokens that end", 32, 0, 32, ""},
		{"32 subnets, endless tokens", 32, ec2sim.EndlessTokens, 32 + ec2SpareReservations, "GetSubnetCidrReservations "},
		{"202 subnets, tokens that end", 202, 0, ec2MaxReservationSubnets, "202 subnets carve prefixes"},
		{"202 subnets, endless tokens", 202, ec2sim.EndlessTokens, ec2MaxReservationSubnets + ec2SpareReservations, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newEC2World(t, 2)
			one := int32(1)
			var classes []snapshot.EC2NodeClass
			for i := range tc.subnets {
				id := fmt.Sprintf("subnet-%04d", i)
				w.sim.AddSubnets(snapshot.Subnet{ID: id, VpcID: "vpc-1", CIDR: fmt.Sprintf("10.1.%d.0/24", i), Zone: "us-west-2a"})
				w.sim.AddCIDRReservations(snapshot.CIDRReservation{ID: fmt.Sprintf("scr-%04d", i), SubnetID: id,
					CIDR: fmt.Sprintf("10.1.%d.0/28", i), Type: "prefix"})
				// A class names at most ec2MaxIDsPerSource subnets; 101 a class.
				if i%101 == 0 {
					classes = append(classes, snapshot.EC2NodeClass{Name: fmt.Sprintf("pd-%d", i), IPPrefixCount: &one})
				}
				c := &classes[len(classes)-1]
				c.StatusSubnets = append(c.StatusSubnets, snapshot.SubnetStatus{ID: id})
			}
			w.snap.NodeClasses = classes
			w.sim.SetTokens(ec2sim.GetSubnetCidrReservations, tc.tokens)
			// Unpaced: the bound is on requests; at the default pace they take a tenth of a second each.
			unpaced := NewPacer(1<<30, 1<<30)
			(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2"), Pacer: unpaced}).collectEC2(t.Context(), w.snap)
			got := w.sim.Count(ec2sim.GetSubnetCidrReservations)
			t.Logf("%d subnets: %d GetSubnetCidrReservations requests", tc.subnets, got)
			if got > tc.requests {
				t.Errorf("got %d GetSubnetCidrReservations requests, want at most %d", got, tc.requests)
			}
			var gaps []snapshot.Gap
			for _, g := range w.snap.Gaps {
				if g.Source == snapshot.SourceCIDRReservations {
					gaps = append(gaps, g)
				}
			}
			if tc.tokens == 0 && tc.subnets <= ec2MaxReservationSubnets {
				if len(gaps) != 0 || len(w.snap.AddressSubnets) != tc.subnets || len(w.snap.CIDRReservations) != tc.subnets {
					t.Errorf("gaps %+v, %d address subnets, %d reservations: want none and %d, %d", gaps,
						len(w.snap.AddressSubnets), len(w.snap.CIDRReservations), tc.subnets, tc.subnets)
				}
				return
			}
			if len(gaps) != 1 || !strings.Contains(gaps[0].Reason, tc.reason) {
				t.Fatalf("gaps %+v: want one for %s saying %q", gaps, snapshot.SourceCIDRReservations, tc.reason)
			}
			if len(w.snap.AddressSubnets) >= tc.subnets {
				t.Errorf("%d address subnets of %d, want those past the bound left out", len(w.snap.AddressSubnets), tc.subnets)
			}
		})
	}
}
