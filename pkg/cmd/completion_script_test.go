package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// completeScript is the completion script kubectl runs for `kubectl karpnet`, at the root of
// the module.
var completeScript = filepath.Join("..", "..", "kubectl_complete-karpnet")

// TestCompletionExecutables builds kubectl-karpnet and drives its completion the way shells and
// kubectl do: the kubectl_complete-karpnet script, real kubectl, and the bash script.
func TestCompletionExecutables(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("kubectl_complete-karpnet is a POSIX sh script")
	}
	if testing.Short() {
		t.Skip("-short: this test builds the binary and runs real kubectl and bash; run go test without -short to include it")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("the go command is needed to build kubectl-karpnet and is not on PATH")
	}
	bin := t.TempDir()
	build := exec.CommandContext(t.Context(), goTool, "build", "-ldflags=-s -w", "-o", filepath.Join(bin, "kubectl-karpnet"),
		"github.com/karpnet/kubectl-karpnet/cmd/kubectl-karpnet")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-karpnet: %v\n%s", err, out)
	}
	info, err := os.Stat(completeScript)
	if err != nil {
		t.Fatalf("reading the completion script: %v", err)
	}
	if info.Mode().Perm()&0o111 != 0o111 {
		t.Errorf("%s: got mode %v, want it executable by all", completeScript, info.Mode().Perm())
	}
	script, err := os.ReadFile(completeScript)
	if err != nil {
		t.Fatalf("reading the completion script: %v", err)
	}
	install := func(dir string) string {
		path := filepath.Join(dir, "kubectl_complete-karpnet")
		if err := os.WriteFile(path, script, 0o755); err != nil {
			t.Fatalf("copying the completion script: %v", err)
		}
		return path
	}
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatalf("writing an empty kubeconfig: %v", err)
	}
	const node = "ip-10-0-5-219.us-west-2.compute.internal"
	args := []string{"demo", "describe", "node", "ip-10-0-5"}

	t.Run("script beside the binary", func(t *testing.T) {
		empty := t.TempDir()
		got := runCompletion(t, install(bin), args, environ("PATH="+empty, "KUBECONFIG="+kubeconfig), true)
		wantNode(t, got, node)
	})
	t.Run("script with the binary on PATH", func(t *testing.T) {
		got := runCompletion(t, install(t.TempDir()), args, environ("PATH="+bin, "KUBECONFIG="+kubeconfig), true)
		wantNode(t, got, node)
	})
	t.Run("kubectl plugin completion", func(t *testing.T) {
		kubectl, err := exec.LookPath("kubectl")
		if err != nil {
			t.Fatal("kubectl 1.26 or newer is needed to test plugin completion and is not on PATH")
		}
		install(bin)
		path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
		got := runCompletion(t, kubectl, append([]string{cobra.ShellCompRequestCmd, "karpnet"}, args...),
			environ("PATH="+path, "KUBECONFIG="+kubeconfig), false)
		wantNode(t, got, node)
	})
	t.Run("bash script", func(t *testing.T) {
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Fatal("bash is needed to test the bash completion script and is not on PATH")
		}
		var gen bytes.Buffer
		cmd := exec.CommandContext(t.Context(), filepath.Join(bin, "kubectl-karpnet"), "completion", "bash")
		cmd.Stdout = &gen
		if err := cmd.Run(); err != nil {
			t.Fatalf("kubectl-karpnet completion bash: %v", err)
		}
		file := filepath.Join(t.TempDir(), "kubectl-karpnet.bash")
		if err := os.WriteFile(file, gen.Bytes(), 0o644); err != nil {
			t.Fatalf("writing the bash script: %v", err)
		}
		// _get_comp_words_by_ref stands in for the bash-completion package the script uses.
		drive := `_get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
source "$1"
COMP_WORDS=(kubectl-karpnet demo describe node ip-10-0-5); COMP_CWORD=4
COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
__start_kubectl-karpnet 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"`
		cmd = exec.CommandContext(t.Context(), bash, "-c", drive, "bash", file)
		cmd.Env = environ("PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+kubeconfig)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("running the bash completion: %v", err)
		}
		got := strings.Fields(string(out))
		if !slices.Contains(got, node) || slices.Contains(got, "ip-10-0-1-69.us-west-2.compute.internal") {
			t.Errorf("bash COMPREPLY: got %q, want %s among the nodes starting with ip-10-0-5", got, node)
		}
	})
}

// environ returns this process's environment with the given NAME=value entries replacing theirs.
func environ(set ...string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") })
	})
	return append(env, set...)
}

// runCompletion runs program with args and env and parses the completion it prints; with
// quiet, stderr may hold only cobra's directive line.
func runCompletion(t *testing.T, program string, args, env []string, quiet bool) completion {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), program, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %q: %v\nstderr:\n%s", filepath.Base(program), args, err, stderr.String())
	}
	if !quiet {
		stderr.Reset()
	}
	return parseCompletion(t, stdout.String(), stderr.String())
}

// wantNode fails the test unless c offers node, only names that start with ip-10-0-5, and no files.
func wantNode(t *testing.T, c completion, node string) {
	t.Helper()
	if !slices.Contains(c.values, node) {
		t.Errorf("completions: got %q, want %s among them", c.values, node)
	}
	for _, v := range c.values {
		if !strings.HasPrefix(v, "ip-10-0-5") {
			t.Errorf("completions: got %q, want only names starting with ip-10-0-5", v)
		}
	}
	if c.directive != noFile {
		t.Errorf("directive: got %d, want %d", c.directive, noFile)
	}
}
