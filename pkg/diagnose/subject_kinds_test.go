package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestExaminedKindsAreInTheTable: every kind a check examines is a subject kind of the table
// of kinds the views read, and the table's class kinds are the snapshot's.
func TestExaminedKindsAreInTheTable(t *testing.T) {
	subjects := map[string]bool{}
	for _, k := range kinds.All() {
		subjects[k.Subject] = true
	}
	for _, c := range Checks() {
		for _, e := range c.Spec.Examines {
			if !subjects[e] {
				t.Errorf("%s examines %q, which the table of kinds does not hold", c.Spec.ID, e)
			}
		}
	}
	if kinds.Class(snapshot.KindEC2NodeClass) != kinds.EC2NodeClass || kinds.Class(snapshot.KindNodeClass) != kinds.NodeClass {
		t.Error("the table's class objects are not the snapshot's EC2NodeClass and NodeClass kinds")
	}
}
