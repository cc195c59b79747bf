package diagnose

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/cmdverify"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
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

// commandCorpusEnv names the file that, when set, receives every command of the findings the
// table cases raise, with the objects each is about built from the case's snapshot, one JSON
// line each: the end-to-end suite runs them through kubectl and the AWS CLI
// (TestRemedyCommandsRunInTheRealTools).
const commandCorpusEnv = "KARPNET_COMMAND_CORPUS"

// commandCorpus writes the commands of the table cases when commandCorpusEnv is set.
var commandCorpus struct {
	mu  sync.Mutex
	enc *json.Encoder
	// dir receives the snapshots that `kubectl karpnet` commands read; snapshots counts them.
	dir       string
	snapshots int
}

// recordCommands writes the commands of a case's findings to the corpus, if one is open.
func recordCommands(t *testing.T, s *snapshot.Snapshot, findings []Finding) {
	commandCorpus.mu.Lock()
	defer commandCorpus.mu.Unlock()
	if commandCorpus.enc == nil {
		return
	}
	for _, f := range findings {
		for _, c := range f.Commands {
			line := cmdverify.Command{Source: "unit", Origin: t.Name() + " " + f.ID, Argv: c.Argv, ReadOnly: c.ReadOnly}
			objs, err := cmdverify.Manifests(s, c.Argv)
			if err != nil {
				line.ObjectsError = err.Error()
			}
			line.Objects = objs
			if len(c.Argv) > 1 && c.Argv[1] == "karpnet" {
				line.Snapshot = writeCorpusSnapshot(t, s)
			}
			if err := commandCorpus.enc.Encode(line); err != nil {
				t.Fatalf("writing the command corpus: %v", err)
			}
		}
	}
}

// writeCorpusSnapshot writes s to the corpus's directory of snapshots and returns its path.
func writeCorpusSnapshot(t *testing.T, s *snapshot.Snapshot) string {
	commandCorpus.snapshots++
	path := filepath.Join(commandCorpus.dir, fmt.Sprintf("%d.json", commandCorpus.snapshots))
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("writing the command corpus: %v", err)
	}
	defer f.Close()
	if err := snapshot.Write(f, s); err != nil {
		t.Fatalf("writing the command corpus: %v", err)
	}
	return path
}

// TestMain runs the tests and then, when every test ran (no -run filter), fails unless each
// check fired in some case and stayed silent in another.
func TestMain(m *testing.M) {
	flag.Parse()
	if path := os.Getenv(commandCorpusEnv); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", commandCorpusEnv, err)
			os.Exit(1)
		}
		commandCorpus.enc = json.NewEncoder(f)
		commandCorpus.dir = path + ".snapshots"
		if err := os.MkdirAll(commandCorpus.dir, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", commandCorpusEnv, err)
			os.Exit(1)
		}
		defer func() {
			if err := f.Close(); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", commandCorpusEnv, err)
				os.Exit(1)
			}
		}()
	}
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
	if code != 0 {
		os.Exit(code)
	}
}
