package collect

import (
	"testing"
	"unsafe"

	"github.com/karpnet/kubectl-karpnet/internal/ec2sim"
)

// TestCollectSharesRepeatedStrings collects nodes decoded from an API server's answer, where
// each node's labels are strings of their own: after Collect equal label values of two nodes
// are one copy, as a snapshot read gives them.
func TestCollectSharesRepeatedStrings(t *testing.T) {
	c := kubeHostileCollector(t, kubeHostile(t), 0, 0)
	sim := ec2sim.New()
	c.EC2, c.Region = ec2sim.NewClient(sim.Start(t), "us-west-2"), "us-west-2"
	s, err := c.Collect(t.Context(), Scope{})
	if err != nil {
		t.Fatal(err)
	}
	shared := 0
	for i := range s.Nodes {
		for j := range i {
			for k, v := range s.Nodes[i].Labels {
				if w, ok := s.Nodes[j].Labels[k]; ok && w == v {
					if unsafe.StringData(v) != unsafe.StringData(w) {
						t.Fatalf("label %s=%s of nodes %s and %s: two copies, want one", k, v, s.Nodes[j].Name, s.Nodes[i].Name)
					}
					shared++
				}
			}
		}
	}
	if shared == 0 {
		t.Fatal("no two nodes of the fixture share a label value")
	}
}
