package diagnose

import (
	"strings"
	"testing"
)

// TestLedgerEntries checks every check names at least one upstream file it was verified against,
// each in a project the ledger pins, with the file and the fact filled in; and that every pin has
// a repository and a version.
func TestLedgerEntries(t *testing.T) {
	for _, p := range Ledger() {
		if p.Repository == "" || p.Version == "" {
			t.Errorf("the pin of %s has no repository or version: %+v", p.Project, p)
		}
	}
	for _, c := range Checks() {
		if len(c.Verified) == 0 {
			t.Errorf("%s names no upstream file it was verified against (Spec.Verified)", c.ID)
		}
		for _, v := range c.Verified {
			if _, ok := PinOf(v.Project); !ok {
				t.Errorf("%s: %q is not in the ledger (ledger.go)", c.ID, v.Project)
			}
			if strings.TrimSpace(v.File) == "" || strings.TrimSpace(v.Fact) == "" {
				t.Errorf("%s: a Verified entry of %s has no file or no fact: %+v", c.ID, v.Project, v)
			}
		}
	}
}

// TestPinOf finds a pinned project and refuses one the ledger lacks.
func TestPinOf(t *testing.T) {
	if p, ok := PinOf(UpstreamCilium); !ok || p.Version == "" || p.Image != "cilium" {
		t.Errorf("PinOf(cilium) = %+v, %v; want the pinned version with image cilium", p, ok)
	}
	if _, ok := PinOf("no-such-project"); ok {
		t.Error("PinOf found a project the ledger does not have")
	}
}
