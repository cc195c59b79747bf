package collect

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
)

// TestEachInstanceReadOnce: whether the cluster's name is given or read from the first
// instances' tags, the nodes' instances and the search for the cluster's other instances are
// one read by the cluster's tag; only the instances it cannot see, and the first batch when
// the name is not known, are read by ID, and no instance is decoded twice. Before, 2,000
// nodes were read by ID (10 calls) and then again by tag (2 pages).
func TestEachInstanceReadOnce(t *testing.T) {
	for _, c := range []struct {
		name        string
		n           int
		clusterName string
		// byID is the DescribeInstances calls by ID: the 3 nodes the filter cannot see, and
		// the first batch when the name is learned.
		byID     int
		strategy string
	}{
		{"2,000 nodes, name given", 2000, "prod", 1, "by cluster tag kubernetes.io/cluster/prod=owned"},
		{"2,000 nodes, name learned", 2000, "", 2, "the cluster's name read from the first instances' tags"},
		{"300 nodes, name given", 300, "prod", 1, "by cluster tag"},
		{"150 nodes, name learned", 150, "", 2, "the cluster's name read from the first instances' tags"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sim, url, s := ec2FilterWorld(t, c.n)
			meter := &Meter{}
			e := (&Collector{EC2: ec2sim.NewClient(url, "us-west-2"), ClusterName: c.clusterName, Meter: meter}).startEC2(t.Context())
			for i := 0; i < len(s.Nodes); i += 500 {
				e.addNodes(s.Nodes[i:min(i+500, len(s.Nodes))], int64(len(s.Nodes)-min(i+500, len(s.Nodes))))
			}
			e.nodesDone(s)
			e.finish(t.Context(), s)

			p := meter.Progress()
			if !strings.Contains(p.Strategy, c.strategy) {
				t.Errorf("strategy %q: want %q", p.Strategy, c.strategy)
			}
			if s.ClusterName != "prod" || len(s.Gaps) != 0 {
				t.Errorf("cluster %q, gaps %+v: want prod and none", s.ClusterName, s.Gaps)
			}
			// The nodes' n+2 instances EC2 knows, and the one launched for the cluster that no
			// node names.
			if len(s.Instances) != c.n+3 {
				t.Errorf("%d instances kept, want %d", len(s.Instances), c.n+3)
			}
			byID, byTag := 0, 0
			for _, r := range sim.Requests() {
				if r.Action != ec2sim.DescribeInstances {
					continue
				}
				if _, ok := r.Filters["instance-id"]; ok {
					byID++
				} else {
					byTag++
				}
			}
			// The tag read returns the n+2 running instances tagged for the cluster, 1,000 a page,
			// in a stream per zone: a page more than the fewest at most.
			if most := ec2Ceil(c.n+2, 1000) + 1; byID != c.byID || byTag > most {
				t.Errorf("%d DescribeInstances by ID and %d by tag; want %d by ID and at most %d by tag", byID, byTag, c.byID, most)
			}
			t.Logf("%d by ID, %d by tag, %d decoded", byID, byTag, p.Decoded)
			// Every instance the tag read returns (the nodes', the leaked one, the one without a
			// NodePool tag) and the terminated node's, each decoded once; the first batch,
			// read by ID, is not decoded again from the tag read.
			if want := c.n + 4; p.Decoded != want {
				t.Errorf("%d instances decoded, want %d (each once)", p.Decoded, want)
			}
		})
	}
}

// TestNamelessInstancesAreReadByID: when the first instances carry no cluster tag, the rest
// are read by ID as before, and -v says why.
func TestNamelessInstancesAreReadByID(t *testing.T) {
	w := newEC2World(t, 450) // instances without cluster tags
	meter := &Meter{}
	e := (&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2"), Meter: meter}).startEC2(t.Context())
	e.addNodes(w.snap.Nodes, 0)
	e.nodesDone(w.snap)
	e.finish(t.Context(), w.snap)
	if p := meter.Progress(); !strings.Contains(p.Strategy, "by instance ID") || !strings.Contains(p.Strategy, "name no cluster") {
		t.Errorf("strategy %q: want by instance ID, the first instances naming no cluster", p.Strategy)
	}
	byID := 0
	for _, r := range w.sim.Requests() {
		if _, ok := r.Filters["instance-id"]; ok && r.Action == ec2sim.DescribeInstances {
			byID++
		}
	}
	if len(w.snap.Instances) != 450 || byID != 3 || len(w.snap.Gaps) != 0 {
		t.Errorf("%d instances in %d calls by ID, gaps %+v; want 450 in 3, none", len(w.snap.Instances), byID, w.snap.Gaps)
	}
}

// TestClusterNameFromTheClassesInstanceProfiles: when the EC2NodeClasses' instance profiles
// name the cluster (Karpenter names the profile it makes for a class's role CLUSTER_HASH), the
// nodes' instances are read by its tag from the first page on: no batch is read by ID to learn
// the name. A profile that names another cluster costs the pages of its streams, and the
// nodes' instances are then read by ID, as every instance the filter does not return.
func TestClusterNameFromTheClassesInstanceProfiles(t *testing.T) {
	for _, c := range []struct {
		name, profileCluster string
		byID                 int
		tag, strategy        string
	}{
		// The 3 nodes the filter cannot see, in one call.
		{"the cluster's", "prod", 1, "prod", "the cluster's name read from the EC2NodeClasses' instance profiles"},
		// 2,003 nodes' instances in 11 calls of 200.
		{"another cluster's", "staging", 11, "staging", "the cluster's name read from the EC2NodeClasses' instance profiles"},
		// No name (no role, a profile of the user's, classes that disagree): the first batch
		// read by ID names it, as without the classes.
		{"none", "", 2, "prod", "the cluster's name read from the first instances' tags"},
	} {
		t.Run(c.name, func(t *testing.T) {
			const n = 2000
			sim, url, s := ec2FilterWorld(t, n)
			meter := &Meter{}
			e := (&Collector{EC2: ec2sim.NewClient(url, "us-west-2"), Meter: meter}).startEC2(t.Context())
			e.classes = &kubeClassesAhead{done: make(chan struct{}), cluster: c.profileCluster}
			close(e.classes.done)
			for i := 0; i < len(s.Nodes); i += 500 {
				e.addNodes(s.Nodes[i:min(i+500, len(s.Nodes))], int64(len(s.Nodes)-min(i+500, len(s.Nodes))))
			}
			e.nodesDone(s)
			e.finish(t.Context(), s)

			if p := meter.Progress(); !strings.Contains(p.Strategy, c.strategy) ||
				!strings.Contains(p.Strategy, "kubernetes.io/cluster/"+c.tag+"=owned") {
				t.Errorf("strategy %q: want the tag of %s and %q", p.Strategy, c.tag, c.strategy)
			}
			// Whichever name the profiles gave, the instances' tags name the cluster, and the
			// search for its other instances is by that name.
			if s.ClusterName != "prod" || len(s.Gaps) != 0 || len(s.Instances) != n+3 {
				t.Errorf("cluster %q, %d instances, gaps %+v: want prod, %d, none", s.ClusterName, len(s.Instances), s.Gaps, n+3)
			}
			byID := 0
			for _, r := range sim.Requests() {
				if _, ok := r.Filters["instance-id"]; ok && r.Action == ec2sim.DescribeInstances {
					byID++
				}
			}
			if byID != c.byID {
				t.Errorf("%d DescribeInstances by ID, want %d", byID, c.byID)
			}
		})
	}
}

func TestClusterOfProfile(t *testing.T) {
	for _, c := range []struct {
		role, profile, want string
	}{
		{"KarpenterNodeRole-prod", "prod_13350930935433484217", "prod"},
		{"KarpenterNodeRole-prod", "my_cluster_2_16914386470298536107", "my_cluster_2"},
		// A class that names its instance profile: the user's name, whatever its shape.
		{"", "prod_13350930935433484217", ""},
		{"KarpenterNodeRole-prod", "", ""},
		{"KarpenterNodeRole-prod", "KarpenterNodeInstanceProfile-prod", ""},
		{"KarpenterNodeRole-prod", "prod_", ""},
		{"KarpenterNodeRole-prod", "_123", ""},
		{"KarpenterNodeRole-prod", "prod_12a", ""},
		{"KarpenterNodeRole-prod", "prod_123456789012345678901", ""},
	} {
		if got := kubeClusterOfProfile(c.role, c.profile); got != c.want {
			t.Errorf("kubeClusterOfProfile(%q, %q) = %q, want %q", c.role, c.profile, got, c.want)
		}
	}
}
