package collect

import (
	"fmt"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil/kubelist"
)

// TestCollectSharesRepeatedStrings collects nodes decoded from an API server's answer, where
// each node's labels are strings of their own: after Collect the equal label values of nodes
// are one copy from the value's second sight on, as a snapshot read gives them.
func TestCollectSharesRepeatedStrings(t *testing.T) {
	k := kubeHostile(t)
	nodes, err := kubelist.Read(filepath.Join("testdata", "kube", "nodes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // a node's unique values (its host name) seen thrice
		n := nodes[0].DeepCopy()
		n.SetName(fmt.Sprintf("%s-%d", n.GetName(), i))
		k.Add(n.Object)
	}
	c := kubeHostileCollector(t, k, 0, 0)
	sim := ec2sim.New()
	c.EC2, c.Region = ec2sim.NewClient(sim.Start(t), "us-west-2"), "us-west-2"
	s, err := c.Collect(t.Context(), Scope{})
	if err != nil {
		t.Fatal(err)
	}
	// The copy each label value has from its second node on.
	kept := map[string]*byte{}
	seen := map[string]int{}
	shared := 0
	for i := range s.Nodes {
		for k, v := range s.Nodes[i].Labels {
			key := k + "=" + v
			seen[key]++
			switch p, ok := kept[key]; {
			case seen[key] == 1:
			case !ok:
				kept[key] = unsafe.StringData(v)
			case p != unsafe.StringData(v):
				t.Fatalf("label %s of node %s: a copy of its own, want the one of the nodes before it", key, s.Nodes[i].Name)
			default:
				shared++
			}
		}
	}
	if shared == 0 {
		t.Fatal("no three nodes of the fixture share a label value")
	}
}
