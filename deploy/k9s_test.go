package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/xeipuuv/gojsonschema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/pkg/cmd"
)

// k9sModule is the k9s release whose plugin schema and key bindings the plugins file is held
// to. Its source comes from the Go module proxy (go mod download), as k9s itself builds.
const k9sModule = "github.com/derailed/k9s@v0.50.16"

// k9sPluginsFile is the plugins file docs/k9s.md tells k9s users to install.
const k9sPluginsFile = "k9s/plugins.yaml"

// k9sPlugin is one entry of a k9s plugins file, as k9s's config.Plugin reads it.
type k9sPlugin struct {
	ShortCut    string   `json:"shortCut"`
	Description string   `json:"description"`
	Scopes      []string `json:"scopes"`
	Command     string   `json:"command"`
	Background  bool     `json:"background"`
	Args        []string `json:"args"`
}

var k9sDir = sync.OnceValues(func() (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", &downloadError{"no go command on PATH: " + err.Error()}
	}
	// Outside any module, so that the download does not touch this module's go.mod.
	c := exec.Command(goBin, "mod", "download", "-json", k9sModule)
	c.Dir = os.TempDir()
	c.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", &downloadError{info.Error}
	}
	if err != nil {
		return "", &downloadError{strings.TrimSpace(err.Error() + ": " + stderr.String())}
	}
	if info.Dir == "" {
		return "", &downloadError{"go mod download printed no Dir: " + string(out)}
	}
	return info.Dir, nil
})

type downloadError struct{ reason string }

func (e *downloadError) Error() string {
	return "go mod download " + k9sModule + " (the module proxy must be reachable, GOPROXY and GOFLAGS allowing it): " + e.reason
}

// k9sSource returns the k9s module's directory; the test fails, never skips, when the module
// cannot be had.
func k9sSource(t *testing.T) string {
	t.Helper()
	dir, err := k9sDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func readK9sPlugins(t *testing.T) (raw []byte, plugins map[string]k9sPlugin) {
	t.Helper()
	raw, err := os.ReadFile(k9sPluginsFile)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Plugins map[string]k9sPlugin `json:"plugins"`
	}
	if err := yaml.UnmarshalStrict(raw, &file); err != nil {
		t.Fatalf("%s: %v", k9sPluginsFile, err)
	}
	if len(file.Plugins) == 0 {
		t.Fatalf("%s has no plugins", k9sPluginsFile)
	}
	return raw, file.Plugins
}

// validateK9sPlugins validates a plugins file against k9s's plugins.json schema (the complete
// plugins file, with its top-level plugins key), with the validator k9s uses.
func validateK9sPlugins(t *testing.T, schemaPath string, doc []byte) []string {
	t.Helper()
	schema, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return []string{err.Error()}
	}
	res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(js))
	if err != nil {
		t.Fatalf("validating with %s: %v", schemaPath, err)
	}
	var errs []string
	for _, e := range res.Errors() {
		errs = append(errs, e.String())
	}
	return errs
}

func TestK9sPluginsMatchK9sSchema(t *testing.T) {
	schema := filepath.Join(k9sSource(t), "internal", "config", "json", "schemas", "plugins.json")
	raw, _ := readK9sPlugins(t)
	if errs := validateK9sPlugins(t, schema, raw); len(errs) > 0 {
		t.Errorf("%s does not validate against %s's %s:\n%s", k9sPluginsFile, k9sModule, filepath.Base(schema), strings.Join(errs, "\n"))
	}
	// The schema does reject: a plugin without its shortcut, and a key k9s does not know.
	for name, doc := range map[string]string{
		"no shortCut":    "plugins:\n  x:\n    description: d\n    scopes: [nodes]\n    command: sh\n",
		"unknown key":    "plugins: {}\nplugin: {}\n",
		"no plugins key": "x:\n  shortCut: Shift-K\n",
	} {
		if errs := validateK9sPlugins(t, schema, []byte(doc)); len(errs) == 0 {
			t.Errorf("%s: the schema accepts %q", name, doc)
		}
	}
}

// k9sKeyViews are the k9s source files that bind the keys of each view the plugins are scoped
// to: every view is a Browser in k9s's App (ui.App, view.App, view.Table, ui.Table); Nodes have
// their own viewer (view/node.go) and custom resources the default one (command.go's viewMetaFor:
// a Browser with the owner and scale extenders).
var k9sKeyViews = func() map[string][]string {
	common := []string{"internal/ui/app.go", "internal/ui/table.go", "internal/view/app.go", "internal/view/table.go", "internal/view/browser.go"}
	crd := append(slices.Clone(common), "internal/view/owner_extender.go", "internal/view/scale_extender.go")
	return map[string][]string{
		"nodes":          append(slices.Clone(common), "internal/view/node.go"),
		"nodeclaims":     crd,
		"nodepools":      crd,
		"ec2nodeclasses": crd,
		"nodeclasses":    crd,
	}
}()

func TestK9sPluginShortcutsAreFree(t *testing.T) {
	src := k9sSource(t)
	keyGo, err := os.ReadFile(filepath.Join(src, "internal", "ui", "key.go"))
	if err != nil {
		t.Fatal(err)
	}
	// k9s's key names, as its plugins' shortCut values name them (asKey reads tcell.KeyNames).
	keyOf := map[string]string{}
	for _, m := range regexp.MustCompile(`tcell\.KeyNames\[(Key\w+)\]\s*=\s*"([^"]+)"`).FindAllStringSubmatch(string(keyGo), -1) {
		keyOf[m[2]] = m[1]
	}
	if keyOf["Shift-K"] != "KeyShiftK" {
		t.Fatalf("%s's internal/ui/key.go: no Shift-K among %d key names", k9sModule, len(keyOf))
	}
	bound := map[string]map[string]bool{} // scope -> ui.Key* bound by k9s in its view
	bindRX := regexp.MustCompile(`\bui\.(Key\w+)\b`)
	for scope, files := range k9sKeyViews {
		bound[scope] = map[string]bool{}
		for _, f := range files {
			raw, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f)))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range bindRX.FindAllStringSubmatch(string(raw), -1) {
				bound[scope][m[1]] = true
			}
		}
		if !bound[scope]["KeyY"] {
			t.Fatalf("the %s view binds no y (YAML) in %v: k9s's layout changed", scope, files)
		}
	}
	_, plugins := readK9sPlugins(t)
	taken := map[string]string{} // scope + key -> plugin
	for name, p := range plugins {
		key, ok := keyOf[p.ShortCut]
		if !ok {
			t.Errorf("%s: shortCut %q is not a key k9s defines (internal/ui/key.go): use Shift-A to Shift-Z", name, p.ShortCut)
			continue
		}
		for _, scope := range p.Scopes {
			if _, ok := bound[scope]; !ok {
				t.Errorf("%s: scope %q: the test knows the keys of %v only", name, scope, slices.Sorted(mapsKeys(bound)))
				continue
			}
			if bound[scope][key] {
				t.Errorf("%s: %s is bound by %s in the %s view", name, p.ShortCut, k9sModule, scope)
			}
			if other, ok := taken[scope+" "+key]; ok {
				t.Errorf("%s and %s both take %s in the %s view", name, other, p.ShortCut, scope)
			}
			taken[scope+" "+key] = name
		}
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestK9sPluginsRunKarpnet runs each plugin's karpnet command line, as k9s substitutes its
// variables into it, against the demo: every subcommand and flag it passes exists, the cluster
// is k9s's ($CONTEXT, $KUBECONFIG) and each kind's describe finds the selected object.
func TestK9sPluginsRunKarpnet(t *testing.T) {
	_, plugins := readK9sPlugins(t)
	want := map[string][]string{ // plugin -> karpnet's arguments before the context
		"karpnet-node":      {"describe", "node", "$NAME"},
		"karpnet-nodeclaim": {"describe", "nodeclaim", "$NAME"},
		"karpnet-nodepool":  {"describe", "nodepool", "$NAME"},
		"karpnet-nodeclass": {"describe", "nodeclass", "$NAME"},
		"karpnet-check":     {"check"},
	}
	selected := map[string]string{ // a demo object of each plugin's kind
		"karpnet-node":      "i-09b6fa2b0d0d83659",
		"karpnet-nodeclaim": "batch-szxd6", // no Node: with one, describe names the Node to describe
		"karpnet-nodepool":  "web",
		"karpnet-nodeclass": "web",
		"karpnet-check":     "i-09b6fa2b0d0d83659",
	}
	if got := slices.Sorted(mapsKeys(plugins)); !slices.Equal(got, slices.Sorted(mapsKeys(want))) {
		t.Fatalf("%s has plugins %v, want %v", k9sPluginsFile, got, slices.Sorted(mapsKeys(want)))
	}
	const script = `kubectl karpnet "$@" --color always 2>&1 | less -RK`
	for name, p := range plugins {
		t.Run(name, func(t *testing.T) {
			head := []string{"KUBECONFIG=$KUBECONFIG", "sh", "-c", script, "kubectl-karpnet"}
			if p.Command != "env" || len(p.Args) < len(head) || !slices.Equal(p.Args[:len(head)], head) {
				t.Fatalf("runs %s %q, want env %q then karpnet's arguments", p.Command, p.Args, head)
			}
			args := p.Args[len(head):]
			if diff := slices.Compare(args, append(slices.Clone(want[name]), "--context", "$CONTEXT")); diff != 0 {
				t.Fatalf("passes karpnet %q, want %q --context $CONTEXT", args, want[name])
			}
			if p.Background {
				t.Errorf("runs in the background: its output would not be shown")
			}
			// k9s substitutes its variables, then sh runs kubectl karpnet "$@" --color always.
			env := map[string]string{"NAME": selected[name], "CONTEXT": "demo"}
			argv := []string{"demo"}
			for _, a := range append(slices.Clone(args), "--color", "always") {
				argv = append(argv, os.Expand(a, func(k string) string { return env[k] }))
			}
			streams, _, out, errOut := genericiooptions.NewTestIOStreams()
			code := cmd.Execute(context.Background(), streams, argv)
			if code > 1 || errOut.Len() > 0 || out.Len() == 0 { // check exits 1 on the demo's criticals
				t.Errorf("kubectl karpnet %q: exit %d, stderr %q, %d bytes out", argv, code, errOut.String(), out.Len())
			}
		})
	}
}
