package diagnose

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
)

// caseCoverage records, per check ID, whether a single-check table case made the check fire
// and whether one left it silent: every check must have both, the broken shape and the
// healthy one next to it.
type caseCoverage struct {
	mu            sync.Mutex
	fired, silent map[string]bool
}

func (c *caseCoverage) record(id string, findings int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if findings > 0 {
		c.fired[id] = true
	} else {
		c.silent[id] = true
	}
}

// coverage is filled by runCasesOver while the package's tests run.
var coverage = &caseCoverage{fired: map[string]bool{}, silent: map[string]bool{}}

// TestMain runs the tests and then, when every test ran (no -run filter), fails unless each
// check fired in some case and stayed silent in another.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" {
		var missing []string
		for _, id := range CheckIDs() {
			if !coverage.fired[id] {
				missing = append(missing, id+" never fires in a case")
			}
			if !coverage.silent[id] {
				missing = append(missing, id+" has no healthy case where it stays silent")
			}
		}
		slices.Sort(missing)
		for _, m := range missing {
			fmt.Fprintf(os.Stderr, "check coverage: %s (add a row to its runCheckCases table)\n", m)
		}
		if len(missing) > 0 {
			code = 1
		}
	}
	os.Exit(code)
}
