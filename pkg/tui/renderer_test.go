package tui

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
)

// defaultRendererState is what the UI must leave alone in lipgloss's default renderer: which
// renderer it is, its colour profile and background, and whether either was set explicitly.
type defaultRendererState struct {
	renderer                      *lipgloss.Renderer
	profile                       string
	dark                          bool
	explicitProfile, explicitDark bool
}

// readDefaultRenderer reads lipgloss's default renderer. The explicit flags are unexported: a
// lipgloss that renames them fails the test rather than passing it unchecked.
func readDefaultRenderer(t *testing.T) defaultRendererState {
	t.Helper()
	r := lipgloss.DefaultRenderer()
	v := reflect.ValueOf(r).Elem()
	flag := func(name string) bool {
		f := v.FieldByName(name)
		if !f.IsValid() || f.Kind() != reflect.Bool {
			t.Fatalf("lipgloss.Renderer has no bool field %s: update this test to the lipgloss in go.mod", name)
		}
		return f.Bool()
	}
	return defaultRendererState{
		renderer: r, profile: r.ColorProfile().Name(), dark: r.HasDarkBackground(),
		explicitProfile: flag("explicitColorProfile"), explicitDark: flag("explicitBackgroundColor"),
	}
}

// TestRunLeavesTheDefaultRendererAlone runs the program, with and without styles of the
// caller, and checks that lipgloss's default renderer is the same after it: Run builds its
// own renderer on its output and passes the styles down.
func TestRunLeavesTheDefaultRendererAlone(t *testing.T) {
	before := readDefaultRenderer(t)
	for _, opts := range []Options{
		{In: &keyReader{keys: "fq"}, Title: "demo"},
		{In: &keyReader{keys: "feq"}, Styles: plain(), Title: "demo", AltScreen: true},
	} {
		var out bytes.Buffer
		opts.Out = &out
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		err := Run(ctx, fixedLoader(demoReport(t)), opts)
		timedOut := ctx.Err() != nil
		cancel()
		if err != nil || timedOut {
			t.Fatalf("Run = %v (timed out: %v), want nil once q quits", err, timedOut)
		}
		if after := readDefaultRenderer(t); after != before {
			t.Errorf("Run changed lipgloss's default renderer: before %+v, after %+v", before, after)
		}
	}
}

// keyReader is a terminal that types keys one at a time, so each is a key of its own.
type keyReader struct{ keys string }

func (r *keyReader) Read(p []byte) (int, error) {
	if r.keys == "" {
		return 0, io.EOF
	}
	time.Sleep(20 * time.Millisecond)
	n := copy(p, r.keys[:1])
	r.keys = r.keys[1:]
	return n, nil
}

// globalSetters are lipgloss's functions that change its default renderer for the whole process.
var globalSetters = map[string]bool{
	"SetColorProfile": true, "SetHasDarkBackground": true, "SetDefaultRenderer": true,
}

// TestNoGlobalLipglossState checks that the package's code (tests included) never calls a
// lipgloss function that changes the default renderer: styles come from a renderer of the
// UI's own, built on its output.
func TestNoGlobalLipglossState(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("listing the package's files: %v (%d files)", err, len(files))
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", name, err)
		}
		lipglossName := ""
		for _, imp := range f.Imports {
			if strings.Trim(imp.Path.Value, `"`) == "github.com/charmbracelet/lipgloss" {
				lipglossName = "lipgloss"
				if imp.Name != nil {
					lipglossName = imp.Name.Name
				}
			}
		}
		if lipglossName == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == lipglossName && globalSetters[sel.Sel.Name] {
				t.Errorf("%s: lipgloss.%s changes lipgloss's default renderer for the whole process; build styles on a renderer of the UI's own",
					fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}
