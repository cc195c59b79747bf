// Package layers holds the test that keeps karpnet's imports pointing down: each package of the
// product sits on a layer, and imports only packages of layers below its own, so the engine
// never reaches into a view and a view never into a command. docs/development.md
// (Architecture) draws the same rooms.
package layers

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/karpnet/kubectl-karpnet/"

// layers ranks the product's packages, bottom first. A package under pkg/diagnose/ holds a model
// the engine reads (way out, subnet capacity, blocks, report types), between the data and the
// engine.
var layers = []struct {
	name     string
	packages []string
}{
	{"foundation: the snapshot and what every room shares", []string{"pkg/snapshot", "pkg/kinds", "pkg/style", "pkg/version",
		"internal/answerrec", "internal/budget", "internal/memlimit", "internal/noquery", "internal/oneline", "internal/sdkhttp"}},
	{"readers of the answers", []string{"internal/"}},
	{"data: reading a cluster, the demo, the pod-density tables", []string{"pkg/collect", "pkg/demo", "pkg/maxpods"}},
	{"models the engine reads", []string{"pkg/diagnose/"}},
	{"the engine and the checks", []string{"pkg/diagnose"}},
	{"what is derived from a report: sheets and diffs", []string{"pkg/sheet", "pkg/diff"}},
	{"the printed views", []string{"pkg/printer"}},
	{"the interactive and served views", []string{"pkg/tui", "pkg/serve", "pkg/mcp"}},
	{"the commands", []string{"pkg/cmd"}},
	{"the binary", []string{"cmd/"}},
}

// layerOf returns the layer of package path (relative to the module), the most specific entry
// winning: pkg/diagnose/wayout is a model, pkg/diagnose the engine.
func layerOf(path string) (int, bool) {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l.packages {
			match := path == p || strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)
			if match && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best, best >= 0
}

type listed struct {
	ImportPath string
	Imports    []string
}

// TestImportsPointDown lists every package of the product (tests, test kits and hack tools
// aside) and fails on an import of a package of the same or a higher layer, and on a package
// the table does not place.
func TestImportsPointDown(t *testing.T) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "../../pkg/...", "../../internal/...", "../../cmd/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	n := 0
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		path := strings.TrimPrefix(p.ImportPath, module)
		if strings.HasPrefix(path, "internal/testkit/") {
			continue // test kits import what they test; hack/lint.sh keeps them out of the binary
		}
		n++
		from, ok := layerOf(path)
		if !ok {
			t.Errorf("%s is on no layer: add it to the layers table of hack/layers", path)
			continue
		}
		for _, imp := range p.Imports {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			to, ok := layerOf(dep)
			switch {
			case !ok:
				t.Errorf("%s imports %s, which is on no layer", path, dep)
			case to >= from && !(to == from && sameRoomAllowed(path, dep)):
				t.Errorf("%s (%s) imports %s (%s): imports point down", path, layers[from].name, dep, layers[to].name)
			}
		}
	}
	if n < 10 {
		t.Fatalf("go list gave %d packages of the product; want the whole of pkg/, internal/ and cmd/", n)
	}
}

// sameRoomAllowed names the imports within one layer that are part of its design: the readers
// build on each other (kubestream on kubeobj), and so may the models.
func sameRoomAllowed(from, to string) bool {
	return strings.HasPrefix(from, "internal/") && strings.HasPrefix(to, "internal/") ||
		strings.HasPrefix(from, "pkg/diagnose/") && strings.HasPrefix(to, "pkg/diagnose/")
}

func TestLayerOf(t *testing.T) {
	for path, want := range map[string]string{
		"pkg/diagnose":          "the engine and the checks",
		"pkg/diagnose/wayout":   "models the engine reads",
		"internal/ec2xml":       "readers of the answers",
		"pkg/collect":           "data: reading a cluster, the demo, the pod-density tables",
		"internal/oneline":      "foundation: the snapshot and what every room shares",
		"cmd/kubectl-karpnet":   "the binary",
		"pkg/printer":           "the printed views",
		"pkg/nothing-like-this": "",
	} {
		i, ok := layerOf(path)
		got := ""
		if ok {
			got = layers[i].name
		}
		if got != want {
			t.Errorf("layerOf(%s) = %q, want %q", path, got, want)
		}
	}
}
