package diagnose

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/catalogue.golden")

// TestCatalogueGolden pins the catalogue: every check's family, ID, severities and title in
// catalogue order. IDs are a public interface, so a change here is a change to it; rewrite the
// golden with -update only for a new check.
func TestCatalogueGolden(t *testing.T) {
	var b strings.Builder
	for _, c := range Checks() {
		var sev []string
		for _, s := range c.Severities() {
			sev = append(sev, s.String())
		}
		fmt.Fprintf(&b, "%-12s %-38s %-21s %s\n", c.Family, c.ID, strings.Join(sev, "/"), c.Title)
	}
	path := filepath.Join("testdata", "catalogue.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s (go test ./pkg/diagnose -run TestCatalogueGolden -update writes it): %v", path, err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("the catalogue changed (-golden +code); IDs never change meaning or get reused:\n%s", diff)
	}
}

// TestCatalogueEntries checks each entry is complete: a unique kebab-case ID, every text
// filled in, at least one source, families in catalogue order, each Spec used by one check.
func TestCatalogueEntries(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	families := []Family{FamilyCore, FamilyVPCCNI, FamilyNodeAgents, FamilyEFA, FamilyPlacement, FamilyConsistency, FamilyAutoMode, FamilyJoin}
	seen := map[string]bool{}
	specs := map[*Spec]bool{}
	last := 0
	for _, c := range Checks() {
		switch {
		case c.Spec == nil || c.Run == nil:
			t.Fatalf("a check has no Spec or no Run: %+v", c)
		case !kebab.MatchString(c.ID):
			t.Errorf("ID %q is not kebab-case", c.ID)
		case seen[c.ID]:
			t.Errorf("ID %s is used twice", c.ID)
		case specs[c.Spec]:
			t.Errorf("the Spec of %s serves two checks", c.ID)
		}
		seen[c.ID], specs[c.Spec] = true, true
		for name, text := range map[string]string{"Title": c.Title, "FiresWhen": c.FiresWhen, "Why": c.Why, "Remedy": c.Remedy} {
			if strings.TrimSpace(text) == "" {
				t.Errorf("%s has no %s", c.ID, name)
			}
		}
		if len(c.Sources) == 0 {
			t.Errorf("%s names no upstream source", c.ID)
		}
		i := slices.Index(families, c.Family)
		if i < last {
			t.Errorf("%s is in family %q after a later family: keep Checks() in family order", c.ID, c.Family)
		}
		last = max(last, i)
		for _, l := range c.Lower {
			if l >= c.Severity {
				t.Errorf("%s lists %s as a lower severity than its own %s", c.ID, l, c.Severity)
			}
		}
	}
}
