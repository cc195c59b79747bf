package diagnose

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// snapshotSources returns the values of pkg/snapshot's Source* string constants, read from
// its source files: the names a Gap may give.
func snapshotSources(t *testing.T) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("../snapshot/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	out := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				for i, name := range v.Names {
					if !strings.HasPrefix(name.Name, "Source") || i >= len(v.Values) {
						continue
					}
					if lit, ok := v.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, err := strconv.Unquote(lit.Value)
						if err != nil {
							t.Fatal(err)
						}
						out[s] = true
					}
				}
			}
		}
	}
	if !out[snapshot.SourceDescribeSubnets] || !out[snapshot.SourceNodes] {
		t.Fatalf("read no source constants from pkg/snapshot: %v", out)
	}
	return out
}

// TestNeedsAreSources: every source a check needs is one a Gap names (a snapshot.Source*
// constant), once, and not the gap of all of EC2, which stands for every ec2:* source.
func TestNeedsAreSources(t *testing.T) {
	known := snapshotSources(t)
	for _, c := range Checks() {
		for i, source := range c.Needs {
			switch {
			case !known[source]:
				t.Errorf("%s needs %q, which is not a snapshot source constant", c.ID, source)
			case source == snapshot.SourceEC2 || source == snapshot.SourceBound:
				t.Errorf("%s needs %q, which names no one source", c.ID, source)
			case slices.Contains(c.Needs[:i], source):
				t.Errorf("%s needs %q twice", c.ID, source)
			}
		}
	}
}

// needsBases are the snapshots the Needs test takes away a source from: the demo's clusters,
// where many of the checks fire, and the healthy fixture.
func needsBases(t *testing.T) map[string]func() *snapshot.Snapshot {
	t.Helper()
	bases := map[string]func() *snapshot.Snapshot{"healthy": healthy}
	for _, ctx := range []string{"demo", "demo-cilium"} {
		if _, err := demo.SnapshotOf(ctx); err != nil {
			t.Fatal(err)
		}
		bases[ctx] = func() *snapshot.Snapshot {
			s, _ := demo.SnapshotOf(ctx)
			return s
		}
	}
	return bases
}

// TestNeedsGapNotRun: a check whose needed source is a gap (named, or through the gap of all
// of EC2) raises no finding and the report lists it as not run, naming that source; with the
// source read it is not listed. Each check is taken over every base, among them one where it
// fires when there is one.
func TestNeedsGapNotRun(t *testing.T) {
	bases := needsBases(t)
	fired := map[string]bool{}
	for _, c := range Checks() {
		if len(c.Needs) == 0 {
			continue
		}
		for name, base := range bases {
			before := Analyze(base(), Options{Only: []string{c.ID}})
			if slices.ContainsFunc(before.NotRun, func(n NotRun) bool { return n.ID == c.ID }) {
				t.Fatalf("%s over %s: not run with every source read: %+v", c.ID, name, before.NotRun)
			}
			if slices.ContainsFunc(before.Findings, func(f Finding) bool { return f.ID == c.ID }) {
				fired[c.ID] = true
			}
			for _, source := range c.Needs {
				gaps := []string{source}
				if strings.HasPrefix(source, snapshot.SourceEC2+":") {
					gaps = append(gaps, snapshot.SourceEC2)
				}
				for _, g := range gaps {
					s := base()
					gap(g)(s)
					r := Analyze(s, Options{Only: []string{c.ID}})
					for _, f := range r.Findings {
						if f.ID == c.ID {
							t.Errorf("%s over %s with %q a gap: finding %s", c.ID, name, g, f.Message)
						}
					}
					i := slices.IndexFunc(r.NotRun, func(n NotRun) bool { return n.ID == c.ID })
					if i < 0 || !slices.Contains(r.NotRun[i].Needs, source) {
						t.Errorf("%s over %s with %q a gap: notRun %+v does not name %q", c.ID, name, g, r.NotRun, source)
					}
				}
			}
		}
	}
	var quiet []string
	for _, c := range Checks() {
		if len(c.Needs) > 0 && !fired[c.ID] {
			quiet = append(quiet, c.ID)
		}
	}
	t.Logf("checks with Needs that fire on no base (their gap is still tested): %s", strings.Join(quiet, ", "))
}

// TestNotRunOfClusters: a report over several clusters marks each not-run check with its
// cluster's context, and a cluster's part keeps its own.
func TestNotRunOfClusters(t *testing.T) {
	a, b := healthy(), healthy()
	a.Context, b.Context = "a", "b"
	gap(snapshot.SourceDescribePlacementGroups)(b)
	r := AnalyzeClusters(&snapshot.Snapshot{Clusters: []snapshot.Snapshot{*a, *b}},
		func(*snapshot.Snapshot) Options { return Options{} })
	want := NotRun{ID: placementGroupUnavailable.ID, Needs: []string{snapshot.SourceDescribePlacementGroups}, Context: "b"}
	if len(r.NotRun) != 1 || !slices.Equal(r.NotRun[0].Needs, want.Needs) || r.NotRun[0].ID != want.ID || r.NotRun[0].Context != "b" {
		t.Fatalf("notRun = %+v, want [%+v]", r.NotRun, want)
	}
	if part, ok := r.OfContext("a"); !ok || len(part.NotRun) != 0 {
		t.Errorf("cluster a's part: notRun %+v", part.NotRun)
	}
	if part, ok := r.OfContext("b"); !ok || len(part.NotRun) != 1 {
		t.Errorf("cluster b's part: notRun %+v", part.NotRun)
	}
}
