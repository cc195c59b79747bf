package collect

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestClusterNameFromExec(t *testing.T) {
	for _, tc := range []struct {
		name    string
		command string
		args    []string
		want    string
	}{
		{"aws eks get-token", "aws", []string{"--region", "us-west-2", "eks", "get-token", "--cluster-name", "prod"}, "prod"},
		{"with equals", "/usr/local/bin/aws", []string{"eks", "get-token", "--cluster-name=prod"}, "prod"},
		{"cluster id", "aws", []string{"eks", "get-token", "--cluster-id", "a1b2"}, "a1b2"},
		{"aws-iam-authenticator -i", "aws-iam-authenticator", []string{"token", "-i", "legacy"}, "legacy"},
		{"aws-iam-authenticator --cluster-id", "aws-iam-authenticator", []string{"token", "--cluster-id=legacy"}, "legacy"},
		{"aws without get-token", "aws", []string{"sts", "get-caller-identity", "--cluster-name", "x"}, ""},
		{"flag without value", "aws", []string{"eks", "get-token", "--cluster-name"}, ""},
		{"flag followed by a flag", "aws", []string{"eks", "get-token", "--cluster-name", "--region"}, ""},
		{"another plugin", "kubelogin", []string{"get-token", "--cluster-name", "x"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClusterNameFromExec(tc.command, tc.args); got != tc.want {
				t.Errorf("ClusterNameFromExec(%q, %q) = %q, want %q", tc.command, tc.args, got, tc.want)
			}
		})
	}
}

func TestEC2ClusterName(t *testing.T) {
	tagged := func(tags ...string) snapshot.Instance {
		m := map[string]string{}
		for i := 0; i+1 < len(tags); i += 2 {
			m[tags[i]] = tags[i+1]
		}
		return snapshot.Instance{Tags: m}
	}
	for _, tc := range []struct {
		name       string
		flag       string
		instances  []snapshot.Instance
		kubeconfig string
		want       string
		wantNote   string
	}{
		{"flag wins", "given", []snapshot.Instance{tagged("eks:eks-cluster-name", "prod")}, "kc", "given", ""},
		{"eks tag", "", []snapshot.Instance{tagged("eks:eks-cluster-name", "prod"), {}}, "kc", "prod", ""},
		{"owned cluster tag", "", []snapshot.Instance{tagged("kubernetes.io/cluster/prod", "owned")}, "", "prod", ""},
		{"shared cluster tag", "", []snapshot.Instance{tagged("kubernetes.io/cluster/prod", "shared")}, "", "prod", ""},
		{"cluster tag with another value", "", []snapshot.Instance{tagged("kubernetes.io/cluster/prod", "1")}, "", "", "not known"},
		{"eks tag over cluster tag", "", []snapshot.Instance{
			tagged("eks:eks-cluster-name", "prod", "kubernetes.io/cluster/old", "owned")}, "", "prod", ""},
		{"kubeconfig", "", []snapshot.Instance{{}}, "kc", "kc", ""},
		{"several on the instances", "", []snapshot.Instance{tagged("eks:eks-cluster-name", "a"),
			tagged("kubernetes.io/cluster/b", "owned")}, "kc", "", "tagged for 2 clusters (a, b)"},
		{"nothing", "", nil, "", "", "pass --cluster-name NAME"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, note := ec2ClusterName(tc.flag, tc.instances, tc.kubeconfig)
			if got != tc.want {
				t.Errorf("name = %q, want %q", got, tc.want)
			}
			if (tc.wantNote == "") != (note == "") || !strings.Contains(note, tc.wantNote) {
				t.Errorf("note = %q, want one containing %q", note, tc.wantNote)
			}
		})
	}
}

// ec2KarpenterWorld is a world of three nodes launched by Karpenter for cluster prod, a
// NodeClaim whose instance never became a node, an instance nothing names (leaked), another
// cluster's instance and a terminated one of ours.
func ec2KarpenterWorld(t *testing.T) *ec2World {
	t.Helper()
	w := newEC2World(t, 3)
	tags := func(cluster string) map[string]string {
		return map[string]string{"kubernetes.io/cluster/" + cluster: "owned", "karpenter.sh/nodepool": "default",
			"eks:eks-cluster-name": cluster}
	}
	for i := range 3 {
		in := snapshot.Instance{ID: ec2InstanceID(i), Type: "m5.large", State: "running", Zone: "us-west-2a",
			VpcID: "vpc-1", SubnetID: "subnet-a", Tags: tags("prod")}
		w.sim.AddInstances(in)
	}
	w.sim.AddInstances(
		snapshot.Instance{ID: ec2InstanceID(10), Type: "m5.large", State: "pending", Zone: "us-west-2b", VpcID: "vpc-1",
			SubnetID: "subnet-b", Tags: map[string]string{"kubernetes.io/cluster/prod": "owned", "karpenter.sh/nodepool": "default"}},
		snapshot.Instance{ID: ec2InstanceID(11), Type: "m5.large", State: "running", Zone: "us-west-2a", VpcID: "vpc-1",
			SubnetID: "subnet-a", PrivateIP: "10.0.0.11", Tags: map[string]string{"kubernetes.io/cluster/prod": "owned",
				"karpenter.sh/provisioner-name": "old"}},
		snapshot.Instance{ID: ec2InstanceID(12), Type: "m5.large", State: "running", Zone: "us-west-2a", VpcID: "vpc-1",
			SubnetID: "subnet-a", Tags: tags("staging")},
		snapshot.Instance{ID: ec2InstanceID(13), Type: "m5.large", State: "terminated", Zone: "us-west-2a", VpcID: "vpc-1",
			SubnetID: "subnet-a", Tags: tags("prod")},
	)
	w.snap.NodeClaims = []snapshot.NodeClaim{
		{Name: "default-joined", ProviderID: w.snap.Nodes[0].Spec.ProviderID, NodeName: w.snap.Nodes[0].Name},
		{Name: "default-stuck", ProviderID: "aws:///us-west-2b/" + ec2InstanceID(10)},
		{Name: "default-new"},
	}
	return w
}

func TestCollectEC2NodeClaimAndClusterInstances(t *testing.T) {
	w := ec2KarpenterWorld(t)
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	if len(w.snap.Gaps) != 0 || len(w.snap.Notes) != 0 {
		t.Fatalf("got gaps %+v and notes %q, want none", w.snap.Gaps, w.snap.Notes)
	}
	if w.snap.ClusterName != "prod" {
		t.Errorf("ClusterName = %q, want prod (from the instances' tags)", w.snap.ClusterName)
	}
	var ids []string
	for _, in := range w.snap.Instances {
		ids = append(ids, in.ID)
	}
	// The nodes' three, the stuck claim's and the leaked one launched before v0.32.
	want := []string{ec2InstanceID(0), ec2InstanceID(1), ec2InstanceID(2), ec2InstanceID(10), ec2InstanceID(11)}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("instances (-want +got):\n%s", diff)
	}
	var byID [][]string
	var byTag []map[string][]string
	for _, r := range w.sim.Requests() {
		if r.Action != ec2sim.DescribeInstances {
			continue
		}
		if ids, ok := r.Filters["instance-id"]; ok {
			byID = append(byID, ids)
		} else {
			byTag = append(byTag, r.Filters)
		}
	}
	slices.SortFunc(byID, func(a, b []string) int { return len(a) - len(b) })
	wantByID := [][]string{{ec2InstanceID(10)}, {ec2InstanceID(0), ec2InstanceID(1), ec2InstanceID(2)}}
	if diff := cmp.Diff(wantByID, byID); diff != "" {
		t.Errorf("DescribeInstances by ID (-want +got):\n%s", diff)
	}
	wantByTag := []map[string][]string{{
		"tag:kubernetes.io/cluster/prod": {"owned"},
		"tag-key":                        {"karpenter.sh/nodepool", "karpenter.sh/provisioner-name"},
		"instance-state-name":            {"pending", "running"},
	}}
	if diff := cmp.Diff(wantByTag, byTag); diff != "" {
		t.Errorf("DescribeInstances by cluster tag (-want +got):\n%s", diff)
	}
}

func TestCollectEC2ClusterInstancesDenied(t *testing.T) {
	w := ec2KarpenterWorld(t)
	w.sim.Fail(ec2sim.DescribeInstances, "UnauthorizedOperation", 0)
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2"), ClusterName: "prod"}).collectEC2(t.Context(), w.snap)
	var got []snapshot.Gap
	for _, g := range w.snap.Gaps {
		if g.Source == snapshot.SourceClusterInstances {
			got = append(got, g)
		}
	}
	if len(got) != 1 || got[0].Remedy != "allow ec2:DescribeInstances to the caller" {
		t.Errorf("cluster instances gaps = %+v, want one allowing ec2:DescribeInstances", got)
	}
	if w.snap.ClusterName != "prod" {
		t.Errorf("ClusterName = %q, want prod (from --cluster-name)", w.snap.ClusterName)
	}
}

func TestCollectEC2WithoutClusterNameNotes(t *testing.T) {
	w := newEC2World(t, 2)
	w.snap.NodePools = []snapshot.NodePool{{Name: "default"}}
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	if len(w.snap.Notes) != 1 || !strings.Contains(w.snap.Notes[0], "--cluster-name") {
		t.Errorf("notes = %q, want one saying how to pass --cluster-name", w.snap.Notes)
	}
	for _, r := range w.sim.Requests() {
		if _, ok := r.Filters["instance-id"]; r.Action == ec2sim.DescribeInstances && !ok {
			t.Errorf("DescribeInstances by %v without a cluster name, want none", r.Filters)
		}
	}
}

func TestCollectEC2ScopedDoesNotSearchTheCluster(t *testing.T) {
	w := ec2KarpenterWorld(t)
	e := (&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2"), ClusterName: "prod"}).startEC2(t.Context())
	e.scoped = true
	e.addNodes(w.snap.Nodes, -1)
	e.nodesDone(w.snap)
	e.finish(t.Context(), w.snap)
	for _, r := range w.sim.Requests() {
		if _, ok := r.Filters["instance-id"]; r.Action == ec2sim.DescribeInstances && !ok {
			t.Errorf("DescribeInstances by %v in a scoped run, want none", r.Filters)
		}
	}
	if len(w.snap.Notes) != 0 || w.snap.ClusterName != "prod" {
		t.Errorf("notes = %q, cluster name %q; want none and prod", w.snap.Notes, w.snap.ClusterName)
	}
	// The claim without a node is read all the same: it names no node.
	if !slices.ContainsFunc(w.snap.Instances, func(in snapshot.Instance) bool { return in.ID == ec2InstanceID(10) }) {
		t.Errorf("instances %+v: want the stuck claim's %s", w.snap.Instances, ec2InstanceID(10))
	}
}

// TestCollectEC2ClusterInstanceInAnotherVPC: the way out of the nodes' VPC is read while the
// search for the cluster's instances pages on, and the VPC only a leaked instance is in is
// read once the search found it.
func TestCollectEC2ClusterInstanceInAnotherVPC(t *testing.T) {
	w := ec2KarpenterWorld(t)
	w.sim.AddInstances(snapshot.Instance{ID: ec2InstanceID(20), Type: "m5.large", State: "running", Zone: "us-west-2c",
		VpcID: "vpc-2", SubnetID: "subnet-z", Tags: map[string]string{"kubernetes.io/cluster/prod": "owned",
			"karpenter.sh/nodepool": "default"}})
	w.sim.AddRouteTables(
		snapshot.RouteTable{ID: "rtb-1", VpcID: "vpc-1", Main: true, Routes: []snapshot.Route{{Destination: "10.0.0.0/16", Target: "local"}}},
		snapshot.RouteTable{ID: "rtb-2", VpcID: "vpc-2", Main: true, Routes: []snapshot.Route{{Destination: "10.1.0.0/16", Target: "local"}}})
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	var tables []string
	for _, rt := range w.snap.RouteTables {
		tables = append(tables, rt.ID)
	}
	slices.Sort(tables)
	if diff := cmp.Diff([]string{"rtb-1", "rtb-2"}, tables); diff != "" {
		t.Errorf("route tables (-want +got):\n%s", diff)
	}
	var asked [][]string
	for _, r := range w.sim.Requests() {
		if r.Action == ec2sim.DescribeRouteTables {
			asked = append(asked, r.Filters["vpc-id"])
		}
	}
	if diff := cmp.Diff([][]string{{"vpc-1"}, {"vpc-2"}}, asked); diff != "" {
		t.Errorf("DescribeRouteTables vpc-id filters (-want +got):\n%s", diff)
	}
}

// TestCollectEC2ClusterNameGivenSearchesEarly: with --cluster-name (or a kubeconfig that names
// the cluster) the search starts once the nodes are listed, before the NodeClaims and their
// instances are read; what it finds is the same, the NodeClaim's instance (read by ID) once.
func TestCollectEC2ClusterNameGivenSearchesEarly(t *testing.T) {
	for _, c := range []*Collector{{ClusterName: "prod"}, {KubeconfigClusterName: "prod"}} {
		w := ec2KarpenterWorld(t)
		c.EC2 = ec2sim.NewClient(w.url, "us-west-2")
		e := c.startEC2(t.Context())
		e.addNodes(w.snap.Nodes, -1)
		e.nodesDone(w.snap)
		if e.early == nil || e.earlyName != "prod" {
			t.Fatalf("cluster name %q, kubeconfig's %q: the search did not start when the nodes were listed", c.ClusterName, c.KubeconfigClusterName)
		}
		e.finish(t.Context(), w.snap)
		var ids []string
		for _, in := range w.snap.Instances {
			ids = append(ids, in.ID)
		}
		want := []string{ec2InstanceID(0), ec2InstanceID(1), ec2InstanceID(2), ec2InstanceID(10), ec2InstanceID(11)}
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Errorf("instances (-want +got):\n%s", diff)
		}
		if n := w.sim.Count(ec2sim.DescribeInstances); n != 3 {
			t.Errorf("DescribeInstances: %d calls, want 3 (the nodes', the NodeClaim's, the search)", n)
		}
	}
}
