package cmdverify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"

	"sigs.k8s.io/yaml"
)

// Kubectl runs kubectl commands against an API server that holds the objects they are about,
// changing nothing.
type Kubectl struct {
	// Binary is the kubectl to run; "kubectl" on PATH when empty.
	Binary string
	// Kubeconfig is the API server's kubeconfig; "" runs only `kubectl patch --local`.
	Kubeconfig string
	// Dir holds the object files of `patch --local` and kubectl's HOME (its discovery cache).
	Dir string
	// Env is added to kubectl's environment (last, so it wins): a PATH that holds the
	// kubectl-karpnet plugin, the AWS endpoint of the cluster it reads.
	Env []string

	files atomic.Int64
}

// readOnlyVerbs are the kubectl subcommands that change nothing.
var readOnlyVerbs = map[string]bool{
	"get": true, "describe": true, "logs": true, "top": true, "explain": true, "events": true,
	"api-resources": true, "api-versions": true, "version": true, "auth": true, "diff": true,
	// The kubectl-karpnet plugin, which only reads.
	"karpnet": true,
}

// serverDryRunVerbs are the changing subcommands that also run with --dry-run=server, so
// that the API server (and a CRD's schema) validates the object the change would leave. A
// delete is left out: its client dry run already gets the object, and no object is left to
// validate.
var serverDryRunVerbs = map[string]bool{
	"patch": true, "label": true, "annotate": true, "set": true, "taint": true, "create": true,
}

// logsWithoutKubelet are the errors of `kubectl logs` that come after kubectl found the pod
// and asked the API server for its log: the test's API server has no kubelet to read it from
// (the API server's request to the node's kubelet fails, or the pod's container never
// started). An API server kubectl cannot reach is no such error.
var logsWithoutKubelet = regexp.MustCompile(`:10250/containerLogs/|does not have a host assigned|` +
	`container "[^"]*" in pod "[^"]*" is waiting to start`)

// pluginFindings is how `kubectl karpnet` ends with exit code 1: it ran and found something at
// or above --fail-on (README.md, Exit codes); a usage error is 2 and a run that could not read
// its cluster or snapshot 3.
var pluginFindings = regexp.MustCompile(`(?m)^\[exit 1\]$`)

// Check is one run of kubectl a verification made.
type Check struct {
	// Args are kubectl's arguments (without the program).
	Args []string
	// Accepted says why a failing read-only run still counts as accepted, "" when it exited 0.
	Accepted string
}

// Verify runs a kubectl command (c.Argv) without changing anything and returns the runs it
// made. A read-only command (c.ReadOnly, which must agree with its subcommand) runs as it is
// and must exit 0, except that `logs` may fail the way it does with no kubelet behind the API
// server. A changing command runs with --dry-run=client and must exit 0; patch, label,
// annotate, set, taint and create also run with --dry-run=server. `kubectl karpnet`
// (the plugin, read-only) runs against the cluster, or with --snapshot c.Snapshot, and must
// exit 0, or 1 for findings. A patch also runs as
// `kubectl patch --local -f OBJECT -o json` over the object it is about (object returns it)
// and must apply cleanly and change it: a patch that leaves the object as it is fixes nothing. With no Kubeconfig only that last run is made.
func (k *Kubectl) Verify(ctx context.Context, c Command, object func(Ref) (map[string]any, error)) ([]Check, error) {
	if c.Program() != "kubectl" {
		return nil, fmt.Errorf("not a kubectl command: %q", c.Argv)
	}
	args := c.Argv[1:]
	verb := Verb(c.Argv)
	if verb == "" {
		return nil, fmt.Errorf("no kubectl subcommand in %q", c.Argv)
	}
	if c.ReadOnly != readOnlyVerbs[verb] {
		return nil, fmt.Errorf("the finding says the command changes nothing: %t, but kubectl %s %s", c.ReadOnly, verb,
			map[bool]string{true: "changes nothing", false: "changes objects"}[readOnlyVerbs[verb]])
	}
	for _, a := range args {
		if a == "--dry-run" || strings.HasPrefix(a, "--dry-run=") || a == "--local" {
			return nil, fmt.Errorf("the command sets %s itself", a)
		}
	}
	var checks []Check
	run := func(args []string, accept *regexp.Regexp) error {
		out, err := k.run(ctx, args)
		if err == nil {
			checks = append(checks, Check{Args: args})
			return nil
		}
		if accept != nil && accept.MatchString(out) {
			checks = append(checks, Check{Args: args, Accepted: strings.TrimSpace(lastLines(out, 1))})
			return nil
		}
		return fmt.Errorf("kubectl %s: %v\n%s", strings.Join(args, " "), err, lastLines(strings.TrimSpace(out), 6))
	}
	if verb == "karpnet" {
		// karpnet's own commands read the cluster, or the snapshot the finding came from.
		if c.Snapshot != "" {
			args = withFlag(withFlag(args, "--snapshot"), c.Snapshot)
		} else if k.Kubeconfig == "" {
			return checks, nil
		}
		return checks, run(args, pluginFindings)
	}
	if k.Kubeconfig != "" {
		switch {
		case c.ReadOnly:
			var accept *regexp.Regexp
			if verb == "logs" {
				accept = logsWithoutKubelet
			}
			if err := run(args, accept); err != nil {
				return checks, err
			}
		default:
			if err := run(withFlag(args, "--dry-run=client"), nil); err != nil {
				return checks, err
			}
			if serverDryRunVerbs[verb] {
				if err := run(withFlag(args, "--dry-run=server"), nil); err != nil {
					return checks, err
				}
			}
		}
	}
	if verb == "patch" {
		targets := Targets(c.Argv)
		if len(targets) != 1 {
			return checks, fmt.Errorf("a patch of %d objects %v, want one", len(targets), targets)
		}
		obj, err := object(targets[0])
		if err != nil {
			return checks, fmt.Errorf("the object of %s: %w", targets[0], err)
		}
		local, err := k.localPatch(args, obj)
		if err != nil {
			return checks, err
		}
		out, err := k.run(ctx, local)
		if err != nil {
			return checks, fmt.Errorf("kubectl %s: %v\n%s", strings.Join(local, " "), err, lastLines(strings.TrimSpace(out), 6))
		}
		checks = append(checks, Check{Args: local})
		if same, err := sameObject(obj, out); err != nil || same {
			return checks, fmt.Errorf("kubectl %s: the patch leaves %s as it is (%v): it fixes nothing",
				strings.Join(local, " "), targets[0], err)
		}
	}
	return checks, nil
}

// sameObject reports whether the JSON object patched is obj, field for field.
func sameObject(obj map[string]any, patched string) (bool, error) {
	var a, b any
	before, err := json.Marshal(obj)
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(before, &a); err != nil {
		return false, err
	}
	if err := json.Unmarshal([]byte(patched), &b); err != nil {
		return false, err
	}
	return reflect.DeepEqual(a, b), nil
}

// withFlag returns args with flag added at the end.
func withFlag(args []string, flag string) []string {
	return append(append([]string(nil), args...), flag)
}

// localPatch writes obj to a file and returns the patch's arguments with its KIND NAME (or
// KIND/NAME) replaced by --local -f FILE, and -o json.
func (k *Kubectl) localPatch(args []string, obj map[string]any) ([]string, error) {
	b, err := yaml.Marshal(obj)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(k.Dir, fmt.Sprintf("object-%d.yaml", k.files.Add(1)))
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return nil, err
	}
	pos := positionalIndexes(args)
	if len(pos) < 2 {
		return nil, fmt.Errorf("no object in kubectl %s", strings.Join(args, " "))
	}
	drop := map[int]bool{pos[1]: true}
	if !strings.Contains(args[pos[1]], "/") && len(pos) > 2 {
		drop[pos[2]] = true
	}
	var out []string
	for i, a := range args {
		if !drop[i] {
			out = append(out, a)
		}
	}
	return append(out, "--local", "-f", file, "-o", "json"), nil
}

// positionalIndexes returns the indexes of kubectl's positional arguments in args.
func positionalIndexes(args []string) []int {
	var out []int
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, i)
			continue
		}
		if name, _, hasValue := strings.Cut(a, "="); !hasValue && kubectlValueFlags[name] {
			i++
		}
	}
	return out
}

// run runs kubectl with args and returns its combined output.
func (k *Kubectl) run(ctx context.Context, args []string) (string, error) {
	bin := k.Binary
	if bin == "" {
		bin = "kubectl"
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	home := filepath.Join(k.Dir, "home")
	kubeconfig := k.Kubeconfig
	if kubeconfig == "" {
		kubeconfig = filepath.Join(k.Dir, "no-kubeconfig")
	}
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "KUBECONFIG=" + kubeconfig, "LANG=C.UTF-8"}, k.Env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		fmt.Fprintf(&out, "\n[exit %d]\n", exit.ExitCode())
	}
	if err == nil && len(args) > 0 && args[len(args)-1] == "json" {
		// patch --local -o json: the patched object must decode.
		var v map[string]any
		if jerr := json.Unmarshal(out.Bytes(), &v); jerr != nil {
			return out.String(), fmt.Errorf("the patched object is not JSON: %w", jerr)
		}
	}
	return out.String(), err
}
