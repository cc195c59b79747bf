package diff

import (
	"bytes"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// FuzzCompare feeds two snapshots' bytes through what diff OLD NEW does (snapshot.Read,
// diagnose.Analyze, Compare) and holds its accounting: every finding of OLD is in NEW,
// resolved or unknown, exactly once; unknown only when the sides' gaps differ; every node of
// OLD that NEW lacks is removed or not read, and not read only when NEW's node list has a gap.
// The seeds are the demo, and the demo with instances denied and with its node list cut.
func FuzzCompare(f *testing.F) {
	base := demo.Bytes()
	edited := func(edit func(*snapshot.Snapshot)) []byte {
		s, err := demo.Snapshot()
		if err != nil {
			f.Fatal(err)
		}
		edit(s)
		var b bytes.Buffer
		if err := snapshot.Write(&b, s); err != nil {
			f.Fatal(err)
		}
		return b.Bytes()
	}
	denied := edited(func(s *snapshot.Snapshot) {
		s.Instances = nil
		s.Gaps = append(s.Gaps, snapshot.Gap{Source: snapshot.SourceDescribeInstances, Reason: "UnauthorizedOperation"})
	})
	cut := edited(func(s *snapshot.Snapshot) {
		s.Nodes = s.Nodes[:len(s.Nodes)/2]
		s.Gaps = append(s.Gaps, snapshot.Gap{Source: snapshot.SourceNodes, Reason: "the list did not end"})
	})
	f.Add(base, denied)
	f.Add(denied, base)
	f.Add(base, cut)
	f.Add(cut, base)
	f.Fuzz(func(t *testing.T, oldData, newData []byte) {
		oldSnap, err := snapshot.Read(bytes.NewReader(oldData))
		if err != nil {
			return
		}
		newSnap, err := snapshot.Read(bytes.NewReader(newData))
		if err != nil {
			return
		}
		old := diagnose.Analyze(oldSnap, diagnose.Options{})
		new := diagnose.Analyze(newSnap, diagnose.Options{})
		d := Compare(old, new, Side{Source: "old"}, Side{Source: "new"})

		inNew := map[diagnose.FindingKey]bool{}
		for _, f := range new.Findings {
			inNew[f.Key()] = true
		}
		seen := map[diagnose.FindingKey]int{}
		for _, f := range d.Findings.Resolved {
			seen[f.Key()]++
		}
		for _, f := range d.Findings.Unknown {
			seen[f.Key()]++
		}
		for _, f := range old.Findings {
			k := f.Key()
			if n := seen[k]; inNew[k] && n != 0 || !inNew[k] && n != 1 {
				t.Fatalf("finding %v: in NEW %v, listed %d times as resolved or unknown", k, inNew[k], n)
			}
		}
		og, ng := gapsOf(old), gapsOf(new)
		if len(d.Findings.Unknown) > 0 && !og.missing(ng) && !ng.missing(og) {
			t.Fatalf("%d unknown findings with the same gaps on both sides", len(d.Findings.Unknown))
		}
		if len(d.Nodes.NotRead) > 0 && !ng[snapshot.SourceNodes] {
			t.Fatalf("%d nodes not read without a gap on NEW's nodes", len(d.Nodes.NotRead))
		}
		newNodes := map[string]bool{}
		for _, n := range new.Nodes {
			newNodes[n.Identity.Node] = true
		}
		gone := 0
		for _, n := range old.Nodes {
			if !newNodes[n.Identity.Node] {
				gone++
			}
		}
		if got := len(d.Nodes.Removed) + len(d.Nodes.NotRead); got > gone {
			t.Fatalf("%d nodes removed or not read, of %d gone", got, gone)
		}
	})
}
