package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestFindingSubjects(t *testing.T) {
	s := healthy()
	// A second NodePool on the class, a placement group it selects, and an ENIConfig.
	s.NodePools = append(s.NodePools, snapshot.NodePool{Name: "batch",
		NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "default"}})
	s.NodeClasses[0].PlacementGroupSelector = &snapshot.PlacementGroupSelector{Name: "training"}
	s.PlacementGroups = []snapshot.PlacementGroup{{ID: "pg-0abc", Name: "training", Strategy: "cluster"}}
	s.ENIConfigs = []snapshot.ENIConfig{{Name: "us-west-2a", Subnet: "subnet-0pods"}}
	x := NewIndex(s)
	g := newSubjectGraph(x, subnetUses(x))
	for _, tc := range []struct {
		name string
		f    Finding
		want []string
	}{
		{"a finding on a node is its node's, its resource's and what uses the resource",
			Finding{Node: nodeA, Resource: "subnet/" + subnetA}, []string{"node/" + nodeA, "ec2nodeclass/default", "nodepool/batch", "nodepool/default", "subnet/" + subnetA}},
		{"a node finding is its node's alone",
			Finding{Node: nodeA, Resource: "node/" + nodeA}, []string{"node/" + nodeA}},
		{"a subnet finding is the class's that selects it and its NodePools'",
			Finding{Resource: "subnet/" + subnetA}, []string{"subnet/" + subnetA, "ec2nodeclass/default", "nodepool/batch", "nodepool/default"}},
		{"a subnet nothing uses is its own",
			Finding{Resource: "subnet/subnet-0other"}, []string{"subnet/subnet-0other"}},
		{"a class finding is its NodePools'",
			Finding{Resource: "ec2nodeclass/default"}, []string{"ec2nodeclass/default", "nodepool/batch", "nodepool/default"}},
		{"a NodePool finding is its class's",
			Finding{Resource: "nodepool/batch"}, []string{"nodepool/batch", "ec2nodeclass/default"}},
		{"a placement group finding, by name, is its classes' and their NodePools'",
			Finding{Resource: "placementgroup/training"}, []string{"placementgroup/training", "ec2nodeclass/default", "nodepool/batch", "nodepool/default"}},
		{"a placement group finding, by ID, too",
			Finding{Resource: "placementgroup/pg-0abc"}, []string{"placementgroup/pg-0abc", "ec2nodeclass/default", "nodepool/batch", "nodepool/default"}},
		{"an instance finding is its subnet's",
			Finding{Resource: "instance/" + instanceA}, []string{"instance/" + instanceA, "subnet/" + subnetA}},
		{"an ENIConfig finding is its pod subnet's",
			Finding{Resource: "eniconfig/us-west-2a"}, []string{"eniconfig/us-west-2a", "subnet/subnet-0pods"}},
		{"a zone finding is its subnets' in use, their classes' and NodePools'",
			Finding{Resource: "zone/us-west-2a"}, []string{"zone/us-west-2a", "ec2nodeclass/default", "nodepool/batch", "nodepool/default", "subnet/" + subnetA}},
		{"a zone without subnets in use is its own",
			Finding{Resource: "zone/us-west-2c"}, []string{"zone/us-west-2c"}},
		{"data-unavailable is its source's alone",
			Finding{ID: DataUnavailableID, Resource: "ec2:DescribeSubnets"}, []string{"ec2:DescribeSubnets"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := g.of(x, tc.f)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("subjects mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReportAboutReadsSubjects(t *testing.T) {
	r := Report{Findings: []Finding{
		{ID: "a", Resource: "subnet/s1", Subjects: []string{"subnet/s1", "ec2nodeclass/default"}},
		{ID: "b", Resource: "ec2nodeclass/default", Subjects: []string{"ec2nodeclass/default"}},
		{ID: "c", Node: "n1", Subjects: []string{"node/n1"}},
		// A finding made without subjects concerns its own subject and resource.
		{ID: "d", Node: "n2", Resource: "ec2nodeclass/default"},
	}}
	ids := func(fs []Finding) (out []string) {
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	for ref, want := range map[string][]string{
		"ec2nodeclass/default": {"a", "b", "d"},
		"subnet/s1":            {"a"},
		"node/n1":              {"c"},
		"node/n2":              {"d"},
		"nodepool/none":        nil,
	} {
		if diff := cmp.Diff(want, ids(r.About(ref))); diff != "" {
			t.Errorf("About(%s) mismatch (-want +got):\n%s", ref, diff)
		}
	}
}

func TestSummaryStatusesAddUpToListed(t *testing.T) {
	for name, s := range map[string]*snapshot.Snapshot{"healthy": healthy(), "troubled": troubled()} {
		r := Analyze(s, Options{})
		total := 0
		for _, n := range r.Summary.Statuses {
			total += n
		}
		if total != r.Summary.Listed || r.Summary.Listed != len(r.Nodes) {
			t.Errorf("%s: statuses add up to %d, listed %d, nodes[] %d; want all equal", name, total, r.Summary.Listed, len(r.Nodes))
		}
		if r.Summary.Nodes != r.Summary.Listed-r.Summary.Skipped {
			t.Errorf("%s: nodes checked %d, want listed %d less skipped %d", name, r.Summary.Nodes, r.Summary.Listed, r.Summary.Skipped)
		}
		for _, n := range r.Nodes {
			if _, ok := r.Summary.Statuses[n.Status]; !ok {
				t.Errorf("%s: node %s has status %q, which Statuses does not count", name, n.Identity.Node, n.Status)
			}
		}
	}
}

func TestReportSubnetsListEveryENISubnet(t *testing.T) {
	s := healthy()
	s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0efa", CIDR: "10.0.9.0/24", Zone: "us-west-2a", AvailableIPs: 250})
	s.Instances[0].ENIs = append(s.Instances[0].ENIs,
		snapshot.ENI{ID: "eni-0card1", NetworkCardIndex: 1, SubnetID: "subnet-0efa", PrivateIPs: []string{"10.0.9.4"}},
		snapshot.ENI{ID: "eni-0card2", NetworkCardIndex: 2, SubnetID: "subnet-0efa", PrivateIPs: []string{"10.0.9.5"}})
	var got *SubnetUse
	for _, u := range Analyze(s, Options{}).Subnets {
		if u.ID == "subnet-0efa" {
			got = &u
		}
	}
	if got == nil || got.ENINodes != 1 || got.Nodes != 0 || got.PodSubnet {
		t.Errorf("subnet of a node's second and third ENIs: got %+v, want it listed with 1 ENI node", got)
	}
}

func TestOnWhatUsesReadsTheDirectSubjects(t *testing.T) {
	n := NodeReport{Identity: Identity{Node: "n1", NodePool: "p", NodeClass: "c", NodeClaim: "p-x"},
		Subnet: &SubnetReport{ID: "s-node"}, ENIs: []ENIReport{{ID: "eni-1", SubnetID: "s-pods"}}}
	r := Report{Findings: []Finding{
		{ID: "pods-full", Resource: "subnet/s-pods", Subjects: []string{"subnet/s-pods"}},
		// a subnet the node does not use reaches its class, not the node
		{ID: "class-pool", Resource: "subnet/s-other", Subjects: []string{"subnet/s-other", "ec2nodeclass/c", "nodepool/p"},
			InheritedSubjects: []string{"ec2nodeclass/c", "nodepool/p"}},
		{ID: "class", Resource: "ec2nodeclass/c", Subjects: []string{"ec2nodeclass/c", "nodepool/p"}, InheritedSubjects: []string{"nodepool/p"}},
		{ID: "unrelated", Resource: "subnet/s-other", Subjects: []string{"subnet/s-other"}},
		{ID: "own", Node: "n1", Resource: "subnet/s-node", Subjects: []string{"node/n1", "subnet/s-node"}},
		{ID: "other-node", Node: "n2", Resource: "subnet/s-node", Subjects: []string{"node/n2", "subnet/s-node"}},
		{ID: "other-cluster", Resource: "subnet/s-pods", Subjects: []string{"subnet/s-pods"}, Context: "b"},
	}}
	var got []string
	for _, f := range r.OnWhatUses(n) {
		got = append(got, f.ID)
	}
	if diff := cmp.Diff([]string{"pods-full", "class"}, got); diff != "" {
		t.Errorf("findings on what n1 uses (-want +got):\n%s", diff)
	}
}
