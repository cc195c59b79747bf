package scale

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Measure is one run of a program against the cluster.
type Measure struct {
	Wall time.Duration
	// PeakRSS is the process's peak resident set size in bytes.
	PeakRSS int64
	// UserCPU is the CPU time the process spent in user mode, on all cores.
	UserCPU time.Duration
	// EC2 and Kube count the requests the run made, by EC2 action and by Kubernetes verb and
	// resource.
	EC2  map[string]int
	Kube map[string]int
	// Throttled is how many of the run's EC2 requests were answered RequestLimitExceeded.
	Throttled int
	Exit      int
	Stdout    []byte
	// Instances and Decoded are what check -v said it read and kept, and decoded from
	// DescribeInstances answers (each instance once: as many decoded as read); -1 when it did
	// not say.
	Instances, Decoded int
}

// verboseInstances matches check -v's "N instances (M decoded)".
var verboseInstances = regexp.MustCompile(`([0-9,]+) instances \(([0-9,]+) decoded\)`)

// instancesDecoded returns what check -v's standard error says of the instances read and
// decoded, -1 each when it says nothing.
func instancesDecoded(stderr string) (read, decoded int) {
	m := verboseInstances.FindStringSubmatch(stderr)
	if m == nil {
		return -1, -1
	}
	read, _ = strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	decoded, _ = strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
	return read, decoded
}

// EC2Total returns the number of EC2 requests.
func (m Measure) EC2Total() int { return sum(m.EC2) }

// KubeTotal returns the number of Kubernetes requests.
func (m Measure) KubeTotal() int { return sum(m.Kube) }

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Conditions are the EC2 conditions of a run.
type Conditions struct {
	// Latency is added to every EC2 request.
	Latency time.Duration
	// Throttle turns on EC2's token bucket (ThrottleBurst, ThrottleRefill), full at the start
	// of the run.
	Throttle bool
	// NamedCluster passes --cluster-name, as a kubeconfig from `aws eks update-kubeconfig`
	// names the cluster too; without it karpnet learns the name from the instances' tags.
	NamedCluster bool
}

// run runs bin with args against the cluster under c and measures it. Exit codes 0 and 1 are
// results; any other exit is an error carrying stderr.
func (e *Env) run(ctx context.Context, c Conditions, bin string, args ...string) (Measure, error) {
	e.EC2.SetLatency(c.Latency)
	if c.Throttle {
		e.EC2.SetThrottle(ThrottleBurst, ThrottleRefill)
	} else {
		e.EC2.SetThrottle(0, 0)
	}
	before, throttledBefore := e.EC2.Counts(), e.EC2.Throttled()
	e.counter.take()

	cmd, peak := MeasuredCommand(ctx, e.peakrss, bin, args...)
	cmd.Env = append(append(cleanEnv(), "NO_COLOR=1"), e.Environ()...)
	// Standard output goes straight to a file, read once the run has ended: copied into this
	// process's memory as it came (370 MB of report at 100,000 nodes), the copying and this
	// process's collector took the cores the run was measured on.
	out, err := os.CreateTemp(e.dir, "stdout-*")
	if err != nil {
		return Measure{}, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	start := time.Now()
	err = cmd.Run()
	m := Measure{Wall: time.Since(start)}
	stdout, rerr := os.ReadFile(out.Name())
	if rerr != nil {
		return m, fmt.Errorf("reading the output of %s: %w", strings.Join(args, " "), rerr)
	}
	m.Stdout = stdout
	m.Instances, m.Decoded = instancesDecoded(stderr.String())
	if cmd.ProcessState != nil {
		// peakrss's own, which includes the command it waited for: peakrss itself spends next to none.
		m.UserCPU = cmd.ProcessState.UserTime()
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		m.Exit = exit.ExitCode()
	case err != nil:
		return m, fmt.Errorf("running %s: %w", strings.Join(args, " "), err)
	}
	if m.Exit > 1 {
		return m, fmt.Errorf("%s %s exited %d: %s", bin, strings.Join(args, " "), m.Exit, strings.TrimSpace(stderr.String()))
	}
	if m.PeakRSS, err = peak(); err != nil {
		return m, err
	}
	m.EC2 = e.EC2.Counts()
	for k, v := range before {
		m.EC2[k] -= v
	}
	maps.DeleteFunc(m.EC2, func(_ string, v int) bool { return v == 0 })
	m.Throttled = e.EC2.Throttled() - throttledBefore
	m.Kube = e.counter.take()
	e.EC2.SetLatency(0)
	e.EC2.SetThrottle(0, 0)
	return m, nil
}

// cleanEnv is the process environment without AWS and kubeconfig settings.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "AWS_") || name == "KUBECONFIG" || name == "NO_COLOR" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Check runs `kubectl-karpnet check -o json -v` over the whole cluster (-v: how many instances
// were read and decoded).
func (e *Env) Check(ctx context.Context, c Conditions) (Measure, error) {
	args := []string{"check", "-o", "json", "-v"}
	if c.NamedCluster {
		args = append(args, "--cluster-name", clusterName)
	}
	return e.run(ctx, c, e.plugin, args...)
}

// Describe runs `kubectl-karpnet describe node NAME`.
func (e *Env) Describe(ctx context.Context, c Conditions, node string) (Measure, error) {
	return e.run(ctx, c, e.plugin, "describe", "node", node)
}

// Baseline runs the per-node baseline over the whole cluster. It must succeed and describe
// every node's instance.
func (e *Env) Baseline(ctx context.Context, c Conditions) (Measure, error) {
	m, err := e.run(ctx, c, e.pernode)
	if err != nil {
		return m, err
	}
	var r struct{ Nodes, Described, Failed int }
	if err := json.Unmarshal(m.Stdout, &r); err != nil || m.Exit != 0 {
		return m, fmt.Errorf("the per-node baseline failed (exit %d): %s", m.Exit, m.Stdout)
	}
	if r.Described != r.Nodes || r.Failed != 0 {
		return m, fmt.Errorf("the per-node baseline described %d of %d nodes (%d calls failed)", r.Described, r.Nodes, r.Failed)
	}
	return m, nil
}
