package serve

import (
	"context"
	"fmt"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestSubjectLabelsAreObjectsThatExist: 20,000 stuck NodeClaims whose labels name 20,000
// NodePools and classes the cluster does not have add no series of their own to
// karpnet_nodepool_findings and karpnet_nodeclass_findings: their findings are counted under
// otherSubject, beside the NodePools and classes that exist; the NodePools and classes that
// exist keep their own series.
func TestSubjectLabelsAreObjectsThatExist(t *testing.T) {
	snap, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var stuck *snapshot.NodeClaim
	healthy := diagnose.Analyze(snap, diagnose.Options{})
	for _, f := range healthy.Findings {
		if f.ID != "nodeclaim-not-registered" {
			continue
		}
		for i := range snap.NodeClaims {
			if f.Resource == "nodeclaim/"+snap.NodeClaims[i].Name {
				stuck = &snap.NodeClaims[i]
			}
		}
	}
	if stuck == nil {
		t.Fatal("the demo has no NodeClaim that nodeclaim-not-registered finds")
	}
	const claims = 20000
	for i := range claims {
		c := *stuck
		c.Name = fmt.Sprintf("hostile-%d", i)
		c.Labels = map[string]string{snapshot.LabelNodePool: fmt.Sprintf("pool-%d", i)}
		c.NodeClassRef.Name = fmt.Sprintf("class-%d", i)
		snap.NodeClaims = append(snap.NodeClaims, c)
	}
	r := diagnose.Analyze(snap, diagnose.Options{})
	col := NewCollection(snap, r)
	s := New(Options{Collect: func(context.Context) (Collection, error) { return col, nil }})
	if err := s.CollectOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	bound := 0
	for _, name := range []string{"karpnet_nodepool_findings", "karpnet_nodeclass_findings"} {
		ms, _ := series(t, s, name)
		label := map[string]string{"karpnet_nodepool_findings": "nodepool", "karpnet_nodeclass_findings": "nodeclass"}[name]
		known := existing(col.NodePools)
		if label == "nodeclass" {
			known = existing(col.NodeClasses)
		}
		var other float64
		for _, m := range ms {
			v := labelOf(m, label)
			switch {
			case v == otherSubject:
				other += m.GetGauge().GetValue()
			case !known[v]:
				t.Errorf("%s{%s=%q}: not an object of the cluster, want it counted under %q", name, label, v, otherSubject)
			}
		}
		if other < claims {
			t.Errorf("%s{%s=%q} add up to %v, want at least the %d NodeClaims' findings", name, label, otherSubject, other, claims)
		}
		// Every series is a check, a severity and a NodePool or class that exists, or the bucket.
		max := len(diagnose.CheckIDs()) * 3 * (len(known) + 1)
		t.Logf("%s: %d series for %d NodeClaims naming others (at most %d)", name, len(ms), claims, max)
		if len(ms) > max {
			t.Errorf("%s: %d series, want at most %d", name, len(ms), max)
		}
		bound += len(ms)
	}
	if bound > 200 {
		t.Errorf("%d series of NodePool and class findings for 20,000 NodeClaims naming others, want at most 200", bound)
	}
}

// labelOf returns the value of m's label name, "" when it has none.
func labelOf(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
