package diagnose

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCheckFilesNamedByFamily keeps each check in a file whose name starts with its catalogue
// family (core_, vpccni_, efa_, placement_, consistency_, automode_, join_), so a family's checks
// are found by file name, and its Spec in the same file as the Check that runs it.
func TestCheckFilesNamedByFamily(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]string{}   // FamilyCore -> core
	specFamily := map[string]string{} // specZoneMismatch -> FamilyCore
	specFile := map[string]string{}   // specZoneMismatch -> core_identity.go
	checkFile := map[string]string{}  // specZoneMismatch -> core_identity.go
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				v, ok := s.(*ast.ValueSpec)
				if !ok || len(v.Values) != 1 {
					continue
				}
				if lit, ok := v.Values[0].(*ast.BasicLit); ok && g.Tok == token.CONST && isIdent(v.Type, "Family") {
					families[v.Names[0].Name], _ = strconv.Unquote(lit.Value)
				}
				value := v.Values[0]
				if u, ok := value.(*ast.UnaryExpr); ok {
					value = u.X
				}
				lit, ok := value.(*ast.CompositeLit)
				if !ok {
					continue
				}
				switch {
				case isIdent(lit.Type, "Spec"):
					specFamily[v.Names[0].Name] = field(lit, "Family")
					specFile[v.Names[0].Name] = name
				case isIdent(lit.Type, "Check"):
					checkFile[field(lit, "Spec")] = name
				}
			}
		}
	}
	if len(checkFile) != len(Checks()) {
		t.Fatalf("found %d check declarations, want %d (one per check of Checks())", len(checkFile), len(Checks()))
	}
	for spec, file := range checkFile {
		family, ok := families[specFamily[spec]]
		if !ok {
			t.Errorf("%s: no family found for %s", file, spec)
			continue
		}
		if specFile[spec] != file {
			t.Errorf("%s holds the check of %s, but the Spec is in %q: declare it right above the check", file, spec, specFile[spec])
		}
		prefix := strings.ReplaceAll(family, "-", "")
		if file != prefix+".go" && !strings.HasPrefix(file, prefix+"_") {
			t.Errorf("%s holds a check of family %s (%s); its name must start with %s_", file, family, spec, prefix)
		}
	}
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// field returns the identifier a composite literal gives the named field, "" when none.
func field(lit *ast.CompositeLit, name string) string {
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok || !isIdent(kv.Key, name) {
			continue
		}
		if id, ok := kv.Value.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}
