package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// result is one run of `kubectl karpnet ...`.
type result struct {
	args     []string
	code     int
	stdout   string
	stderr   string
	duration time.Duration
}

// runOpts change how karpnet runs: which kubeconfig, and extra or replaced environment.
type runOpts struct {
	kubeconfig string   // default: the admin kubeconfig
	env        []string // appended last, so it wins
}

// karpnet runs `kubectl karpnet args...` through the real kubectl with the built plugin on PATH,
// EC2 pointed at moto and AWS configuration isolated from the machine's.
func karpnet(t *testing.T, o runOpts, args ...string) result {
	t.Helper()
	kubeconfig := o.kubeconfig
	if kubeconfig == "" {
		kubeconfig = env.kube.AdminKubeconfig
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"karpnet"}, args...)...)
	cmd.Env = append(baseEnv(), "KUBECONFIG="+kubeconfig)
	cmd.Env = append(cmd.Env, env.moto.Env(region)...)
	cmd.Env = append(cmd.Env, o.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String(), duration: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		t.Fatalf("running kubectl karpnet %s: %v\nstderr: %s", strings.Join(args, " "), err, r.stderr)
	}
	return r
}

// baseEnv is the process environment without AWS and kubeconfig settings, with the plugin first
// on PATH and colour off.
func baseEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "AWS_") || name == "KUBECONFIG" || name == "PATH" || name == "NO_COLOR" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+env.binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
}

// wantCode fails t unless r exited with code.
func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("kubectl karpnet %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s",
			strings.Join(r.args, " "), r.code, code, r.stdout, r.stderr)
	}
}
