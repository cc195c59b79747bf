package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/cischema"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/demo"
)

// An example of a command's help is a command line to copy: every one runs, in process,
// against the demo. TestExamplesRun finds them in the whole command tree and runs each by
// these rules:
//
//   - kubectl karpnet demo ... runs as written.
//   - A command the demo has (check, describe, serve, the terminal UI) runs under demo
//     (kubectl karpnet check ... as kubectl karpnet demo check ...), unless the example reads
//     a file (--snapshot) or several clusters (--contexts, --all-contexts), which demo refuses.
//   - Every snapshot file an example names (NAME.json, NAME.json.gz) holds the demo, written
//     before it runs, in a working directory of its own.
//   - What is read from a cluster all the same (diff OLD against the cluster now, --contexts)
//     is read from the package's simulated clusters (testdata/live), one per context named;
//     max-pods reads its instance types from the simulated EC2 of maxPodsTypes.
//   - The terminal UI runs on a fake terminal, and quits with q once it shows the demo's nodes
//     (with --watch too).
//   - serve listens on 127.0.0.1:0 instead (--listen is added last) and is stopped once its
//     first collection is served on /metrics.
//   - check --watch is interrupted after its first report, and exits 130.
//   - Output redirected (> FILE) or piped (| ...) is what the command wrote to standard
//     output; source <(kubectl karpnet ...) runs the command inside.
//
// Each run must exit 0, or 1 (findings) for check and diff (130 for check --watch). Exit 2
// (usage) always fails, as does 3. Output asked for as JSON, JUnit or SARIF must be valid.
// No example is left out: there is no list of examples that are not run.
func TestExamplesRun(t *testing.T) {
	examples := commandExamples(t)
	if len(examples) < 30 {
		t.Fatalf("found %d example command lines, want the 30 and more the commands' help shows", len(examples))
	}
	for _, ex := range examples {
		t.Run(ex.line, func(t *testing.T) {
			ex.run(t)
		})
	}
}

// example is one command line of the commands' examples.
type example struct {
	// line is the karpnet command as written (continuation lines joined), from the first
	// "kubectl karpnet"; words are its arguments after "kubectl karpnet", up to a pipe or a
	// redirection.
	line  string
	words []string
	// from are the commands whose help shows it.
	from []string
}

// commandExamples returns every karpnet command line of the Example of every command of the
// tree, each once, in the order of a walk of the tree.
func commandExamples(t *testing.T) []*example {
	t.Helper()
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	root := newRootCmd(newCommonOptions(streams))
	var out []*example
	byLine := map[string]*example{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example != "" {
			found := 0
			for _, line := range exampleLines(c.Example) {
				inv, ok := karpnetInvocation(line)
				if !ok {
					if strings.Contains(line, "kubectl karpnet") {
						t.Errorf("%s: example %q runs karpnet in a way this test has no rule for: add one", c.CommandPath(), line)
					}
					continue // not a karpnet command, e.g. installing the completion script
				}
				found++
				words, err := shellWords(strings.TrimPrefix(inv, "kubectl karpnet"))
				if err != nil {
					t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
					continue
				}
				ex := byLine[inv]
				if ex == nil {
					ex = &example{line: inv, words: words}
					byLine[inv] = ex
					out = append(out, ex)
				}
				ex.from = append(ex.from, c.CommandPath())
			}
			if found == 0 {
				t.Errorf("%s: its Example has no kubectl karpnet command line:\n%s", c.CommandPath(), c.Example)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// exampleLines returns the command lines of an Example: comment and blank lines left out,
// lines ending in a backslash joined with the next.
func exampleLines(text string) []string {
	var out []string
	pending := ""
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if pending == "" && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			pending += strings.TrimSpace(cont) + " "
			continue
		}
		out = append(out, pending+line)
		pending = ""
	}
	if pending != "" {
		out = append(out, strings.TrimSpace(pending))
	}
	return out
}

// processSubstitution is an example that loads what karpnet prints into the shell.
var processSubstitution = regexp.MustCompile(`^source <\((kubectl karpnet( [^)]*)?)\)$`)

// karpnetInvocation returns the karpnet command of an example line: the line itself when it
// starts with kubectl karpnet, or the command of source <(kubectl karpnet ...).
func karpnetInvocation(line string) (string, bool) {
	if line == "kubectl karpnet" || strings.HasPrefix(line, "kubectl karpnet ") {
		return line, true
	}
	if m := processSubstitution.FindStringSubmatch(line); m != nil {
		return m[1], true
	}
	return "", false
}

// shellWords splits a command line into words as sh would for what examples hold: blanks
// between words, '...' and "..." quoting; an unquoted |, >, <, ; or & ends the command (what
// follows pipes or redirects its output). Expansions ($, `, ~, *) are refused: the test could
// not run what the shell would.
func shellWords(line string) ([]string, error) {
	var (
		words []string
		word  strings.Builder
		in    bool // a word is open
		quote rune
	)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, word.String())
				word.Reset()
				in = false
			}
		case strings.ContainsRune("|><;&", r):
			if in {
				words = append(words, word.String())
			}
			return words, nil
		case strings.ContainsRune("$`~*", r):
			return nil, fmt.Errorf("%q needs the shell to expand it", string(r))
		default:
			word.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if in {
		words = append(words, word.String())
	}
	return words, nil
}

// flagValue returns the value of the flag of the given names in words (--name V or --name=V),
// and whether it is there.
func flagValue(words []string, names ...string) (string, bool) {
	for i, w := range words {
		for _, n := range names {
			if v, ok := strings.CutPrefix(w, n+"="); ok {
				return v, true
			}
			if w == n && i+1 < len(words) {
				return words[i+1], true
			}
		}
	}
	return "", false
}

// hasFlag reports whether words set one of the flags names.
func hasFlag(words []string, names ...string) bool {
	for _, n := range names {
		if _, ok := flagValue(words, n); ok || slices.Contains(words, n) {
			return true
		}
	}
	return false
}

// args returns what runs for the example, by the rules of TestExamplesRun, and the command
// that runs it.
func (ex *example) args(t *testing.T) ([]string, *cobra.Command) {
	t.Helper()
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	root := newRootCmd(newCommonOptions(streams))
	args := slices.Clone(ex.words)
	if len(args) > 0 && args[0] != "demo" && !hasFlag(args, "--snapshot", "--contexts", "--all-contexts") {
		demoCmd, _, err := root.Find([]string{"demo"})
		if err != nil {
			t.Fatal(err)
		}
		if sub, _, err := demoCmd.Find(args[:1]); err == nil && sub != demoCmd {
			args = append([]string{"demo"}, args...)
		}
	}
	leaf, _, err := root.Find(args)
	if err != nil {
		t.Fatalf("%q names no command: %v", ex.line, err)
	}
	if leaf.Name() == "serve" {
		args = append(args, "--listen", "127.0.0.1:0")
	}
	return args, leaf
}

// run runs the example and checks its exit code and output.
func (ex *example) run(t *testing.T) {
	args, leaf := ex.args(t)
	t.Logf("%s (from the help of %s) runs as: kubectl karpnet %s", ex.line, strings.Join(ex.from, ", "), strings.Join(args, " "))
	o := exampleOptions(t, args) // before the working directory changes: it reads testdata
	t.Chdir(t.TempDir())
	writeExampleSnapshots(t, args)
	if leaf.Name() == "max-pods" {
		maxPodsEC2(t, "us-west-2")
	}
	allowed := []int{ExitOK}
	if leaf.Name() == "check" || leaf.Name() == "diff" {
		allowed = append(allowed, ExitFindings)
	}
	if leaf.Name() == "check" && hasFlag(args, "--watch") {
		// The first report, then an interruption in the first wait.
		o.sleep = func(context.Context, time.Duration) bool { return false }
		allowed = []int{ExitInterrupted}
	}
	var r result
	switch {
	case leaf.Name() == "serve":
		r = runServeExample(t, o, args)
	case leaf.Name() == "mcp":
		r = runMCPExample(t, o, args)
	case leaf.Name() == "tui" || leaf.Name() == "demo" || !leaf.HasParent():
		r = runTUIExample(t, o, args)
	default:
		r = runWith(t, o, args...)
	}
	fail := func(why string) {
		t.Helper()
		t.Fatalf("%s\n  %s\n  ran as kubectl karpnet %s (the help of %s shows it)\nstdout:\n%s\nstderr:\n%s",
			why, ex.line, strings.Join(args, " "), strings.Join(ex.from, ", "), firstLines(r.stdout, 20), r.stderr)
	}
	switch {
	case r.code == ExitUsage:
		fail("the example is a usage error (exit 2)")
	case !slices.Contains(allowed, r.code):
		fail(fmt.Sprintf("exit %d, want one of %v", r.code, allowed))
	case leaf.Name() != "serve" && strings.TrimSpace(r.stdout) == "":
		fail("the example printed nothing")
	}
	switch format, _ := flagValue(args, "-o", "--output"); format {
	case "json":
		if !json.Valid([]byte(r.stdout)) {
			fail("-o json printed what is not JSON")
		}
	case "junit":
		cischema.ValidateJUnit(t, []byte(r.stdout))
	case "sarif":
		cischema.ValidateSARIF(t, []byte(r.stdout))
	}
}

// writeExampleSnapshots writes the demo snapshot as every snapshot file args name, in the
// working directory: what --snapshot and diff read, and what --save-snapshot overwrites.
func writeExampleSnapshots(t *testing.T, args []string) {
	t.Helper()
	for _, a := range args {
		if strings.HasPrefix(a, "-") || !(strings.HasSuffix(a, ".json") || strings.HasSuffix(a, ".json.gz")) {
			continue
		}
		s, err := demo.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(a), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := writeSnapshotFile(a, s); err != nil {
			t.Fatal(err)
		}
	}
}

// exampleOptions returns test options whose cluster is testdata/live, and whose kubeconfig has
// the contexts args name with --contexts (each a copy of testdata/live), else one.
func exampleOptions(t *testing.T, args []string) *commonOptions {
	t.Helper()
	names := []string{"live"}
	if v, ok := flagValue(args, "--contexts"); ok {
		names = strings.Split(v, ",")
	}
	m := &multiClusters{kubeconfig: multiKubeconfig(t, names...), make: map[string]func(t *testing.T) *collect.Collector{}}
	for _, n := range names {
		c := newLiveCluster(t)
		m.make[n] = func(t *testing.T) *collect.Collector { return healthyCollector(t, c, n) }
	}
	o := m.options(t)
	o.configFlags.KubeConfig = m.kubeconfig
	o.newCollector = newLiveCluster(t).collector()
	return o
}

// runServeExample runs a serve command line until its first collection is served on /metrics,
// then stops it as SIGTERM would.
func runServeExample(t *testing.T, o *commonOptions, args []string) result {
	t.Helper()
	s := startServeArgs(t, o, args)
	s.waitCollections(t, 1)
	if code, body := s.get(t, "/metrics"); code != http.StatusOK || !strings.Contains(body, "\nkarpnet_findings{") {
		t.Errorf("/metrics: %d, want 200 with karpnet_findings:\n%s", code, firstLines(body, 10))
	}
	code := s.stop(t)
	return result{code: code, stdout: bufString(o.Out), stderr: s.log.String()}
}

// runTUIExample runs the terminal UI on a fake terminal: it quits with q once the screen
// shows a node of the demo, or after 20 seconds, which fails the test.
func runTUIExample(t *testing.T, o *commonOptions, args []string) result {
	t.Helper()
	return runTUIUntil(t, o, args, "ip-10-0-")
}

// runTUIUntil runs the terminal UI on a fake terminal and quits with q once the screen shows
// want, or after 20 seconds, which fails the test.
func runTUIUntil(t *testing.T, o *commonOptions, args []string, want string) result {
	t.Helper()
	screen := &lockedBuffer{}
	o.Out = screen
	o.isTerminal = func(any) bool { return true }
	in := &quitWhenShown{t: t, screen: screen, want: want}
	o.In = in
	code := execute(t.Context(), o, args)
	return result{code: code, stdout: screen.String(), stderr: bufString(o.ErrOut)}
}

// quitWhenShown is the keyboard of runTUIExample: q once the screen shows want, then nothing.
type quitWhenShown struct {
	t      *testing.T
	screen *lockedBuffer
	want   string
	done   bool
}

func (q *quitWhenShown) Read(p []byte) (int, error) {
	if q.done {
		return 0, io.EOF
	}
	q.done = true
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(q.screen.String(), q.want) {
		if time.Now().After(deadline) {
			q.t.Errorf("the terminal UI did not show %q within 20s", q.want)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return copy(p, "q"), nil
}

// TestExampleLines checks how TestExamplesRun reads an Example: comments and blank lines left
// out, continuation lines joined, quotes removed, the command ended by a pipe or redirection.
func TestExampleLines(t *testing.T) {
	text := `  # A comment
  kubectl karpnet check \
    --nodepool general \
    -o json | jq .

  source <(kubectl karpnet completion bash)
  install -m 0755 kubectl_complete-karpnet "${KREW_ROOT:-$HOME/.krew}/bin/"
  kubectl karpnet check -l 'karpenter.sh/capacity-type in (spot)' > out.txt`
	var got [][]string
	for _, line := range exampleLines(text) {
		inv, ok := karpnetInvocation(line)
		if !ok {
			got = append(got, []string{"not karpnet: " + line})
			continue
		}
		words, err := shellWords(strings.TrimPrefix(inv, "kubectl karpnet"))
		if err != nil {
			t.Fatalf("%q: %v", inv, err)
		}
		got = append(got, words)
	}
	want := [][]string{
		{"check", "--nodepool", "general", "-o", "json"},
		{"completion", "bash"},
		{`not karpnet: install -m 0755 kubectl_complete-karpnet "${KREW_ROOT:-$HOME/.krew}/bin/"`},
		{"check", "-l", "karpenter.sh/capacity-type in (spot)"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if _, err := shellWords(" check --nodepool $POOL"); err == nil {
		t.Error("an expansion passed: the test cannot run what the shell would")
	}
}
