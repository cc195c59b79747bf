package e2e

import (
	"slices"
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// placementWorld builds TestPlacementGroups' cluster: classes selecting cluster, partition and
// spread groups (one by a misspelt name), nodes in the wrong group, in none, without their
// partition label, and too many in one zone of a spread group. It returns the nodes in the
// wrong group, in none, without the partition label, and the drifted one's instance.
func placementWorld(t *testing.T) (stale, outside, unlabelled string, drifting ec2types.Instance) {
	t.Helper()
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	b := subnetRef{w.subnet("10.0.16.0/20", "us-west-2b"), "us-west-2b"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1"})
	ids := map[string]string{
		"training": w.placementGroup("training", ec2types.PlacementStrategyCluster, 0),
		"scratch":  w.placementGroup("scratch", ec2types.PlacementStrategyCluster, 0),
		"kafka":    w.placementGroup("kafka", ec2types.PlacementStrategyPartition, 3),
		"web":      w.placementGroup("web", ec2types.PlacementStrategySpread, 0),
	}
	selector := func(name string) map[string]any {
		return map[string]any{"placementGroupSelector": map[string]any{"name": name}}
	}
	w.nodeClass(nodeClassSpec{name: "ml", subnets: []subnetRef{a, b}, sgs: sgs, spec: selector("training")})
	w.nodePool("ml", "v1", "ml", []string{"us-west-2a", "us-west-2b"}, 0)
	w.nodeClass(nodeClassSpec{name: "ml-canary", subnets: []subnetRef{a}, sgs: sgs, spec: selector("trainign")})
	w.nodePool("ml-canary", "v1", "ml-canary", []string{"us-west-2a"}, 0)
	w.nodeClass(nodeClassSpec{name: "kafka", subnets: []subnetRef{a}, sgs: sgs, spec: selector("kafka")})
	w.nodePool("kafka", "v1", "kafka", []string{"us-west-2a"}, 0)
	w.nodeClass(nodeClassSpec{name: "web", subnets: []subnetRef{a, b}, sgs: sgs, spec: selector("web")})
	w.nodePool("web", "v1", "web", []string{"us-west-2a", "us-west-2b"}, 0)

	// node launches an m5.large into group (none when empty) and registers it in pool, with the
	// placement labels Karpenter sets: the group ID, and for partition groups the partition.
	node := func(pool string, s subnetRef, group, labelGroup string, part int32, partLabel *string) string {
		in := w.launch(launchSpec{typ: "m5.large", subnet: s.id, sgs: sgs, group: group, part: part})
		name := nodeNameOf(in)
		w.karpenterNode(name, pool, pool, "v1", in, 29, func(n *nodeSpec) {
			n.labels = map[string]string{}
			if labelGroup != "" {
				n.labels["karpenter.k8s.aws/placement-group-id"] = ids[labelGroup]
			}
			if partLabel != nil {
				n.labels["karpenter.k8s.aws/placement-group-partition"] = *partLabel
			}
		})
		return name
	}
	one, none := "1", ""

	node("ml", a, "training", "training", 0, nil) // healthy
	// Launched while the selector still named the scratch group; drift has not replaced it yet.
	stale = node("ml", a, "scratch", "scratch", 0, nil)
	// Launched before the class selected any group.
	outside = node("ml", a, "", "", 0, nil)
	// The same, once Karpenter marked it drifted for it: still one warning, which says drift will replace it.
	drifting = w.launch(launchSpec{typ: "m5.large", subnet: a.id, sgs: sgs})
	w.karpenterNode(nodeNameOf(drifting), "ml", "ml", "v1", drifting, 29, func(n *nodeSpec) {
		n.claimConditions = []map[string]any{condition("Drifted", "True", "PlacementGroupDrift", "")}
	})

	node("kafka", a, "kafka", "kafka", 1, &one) // healthy
	// The registration hook never filled the partition label.
	unlabelled = node("kafka", a, "kafka", "kafka", 2, &none)

	for range 7 {
		node("web", a, "web", "web", 0, nil)
	}
	node("web", b, "web", "web", 0, nil) // healthy

	return stale, outside, unlabelled, drifting
}

// TestPlacementGroups builds NodePools on placement groups the way they go wrong: an ML class
// whose selector moved from one cluster group to another while its NodePool allows two zones,
// with one node still in the old group and one launched before the selector was set; a class
// whose selector has a typo; a Kafka pool in a partition group with a node whose partition label
// was never filled; and a web pool whose spread group is full in one zone. One node of each
// working pool is as it should be.
func TestPlacementGroups(t *testing.T) {
	stale, outside, unlabelled, drifting := placementWorld(t)

	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 1)
	want := []finding{
		{"placement-group-cluster-multi-az", "warning", "", "nodepool/ml"},
		{"placement-group-mismatch", "warning", stale, "ec2nodeclass/ml"},
		{"placement-group-missing", "warning", nodeNameOf(drifting), "ec2nodeclass/ml"},
		{"placement-group-missing", "warning", outside, "ec2nodeclass/ml"},
		{"placement-group-partition-mismatch", "warning", unlabelled, "node/" + unlabelled},
		{"placement-group-spread-limit", "warning", "", "placementgroup/web"},
		{"placement-group-unavailable", "critical", "", "ec2nodeclass/ml-canary"},
	}
	slices.SortFunc(want, func(a, b finding) int { return strings.Compare(a.ID+a.Node+a.Resource, b.ID+b.Node+b.Resource) })
	rep := decode(t, r)
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, f := range rep.Findings {
		if drifted := strings.Contains(f.Message, "Drifted=True (PlacementGroupDrift)"); f.ID == "placement-group-missing" &&
			drifted != (f.Node == nodeNameOf(drifting)) {
			t.Errorf("placement-group-missing on %s: says the node is drifted %v, want %v: %s", f.Node, drifted,
				f.Node == nodeNameOf(drifting), f.Message)
		}
		if f.Message == "" || f.Remedy == "" {
			t.Errorf("finding %s on %s%s has no message or remedy", f.ID, f.Node, f.Resource)
		}
	}
	if got, want := rep.Summary.Nodes, 14; got != want {
		t.Errorf("summary: got %d nodes checked, want %d", got, want)
	}
}
