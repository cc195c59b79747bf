package cmd

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostile"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// hostileCluster is the healthy cluster of testdata/live behind a Kubernetes API server and an
// EC2 endpoint that misbehave on demand. Commands read it through the live collector built
// from kubectl's flags (--kubeconfig, --request-timeout); only the EC2 client is the tests'
// own, with fast retries.
type hostileCluster struct {
	*hostile.Cluster
	kubeconfig string
	ec2URL     string
}

// newHostileCluster serves testdata/live and points the AWS configuration at nothing, so the
// test never depends on the machine's.
func newHostileCluster(t *testing.T) *hostileCluster {
	t.Helper()
	return newHostileClusterOf(t, "kube.yaml", "karpenter.yaml")
}

// newHostileClusterOf is newHostileCluster with the Kubernetes objects of some of the files of
// testdata/live only.
func newHostileClusterOf(t *testing.T, kubeFiles ...string) *hostileCluster {
	t.Helper()
	return newHostileClusterIn(t, filepath.Join("testdata", "live"), kubeFiles...)
}

// newHostileClusterIn is newHostileClusterOf over the fixtures of dir.
func newHostileClusterIn(t *testing.T, dir string, kubeFiles ...string) *hostileCluster {
	t.Helper()
	c, err := hostile.LoadCluster(dir, kubeFiles...)
	if err != nil {
		t.Fatal(err)
	}
	h := &hostileCluster{Cluster: c}
	h.kubeconfig, _ = c.Kube.Kubeconfig(t)
	h.ec2URL = c.EC2.Start(t)
	empty := filepath.Join(t.TempDir(), "aws-config")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", empty)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", empty)
	return h
}

// run runs karpnet with args and --kubeconfig against the cluster and returns what it printed
// and how long it took.
func (h *hostileCluster) run(t *testing.T, args ...string) (result, time.Duration) {
	t.Helper()
	o, _, _ := newTestOptions()
	o.newCollector = h.collector()
	start := time.Now()
	r := runWith(t, o, append(args, "--kubeconfig", h.kubeconfig)...)
	return r, time.Since(start)
}

// collector returns a newCollector that reads the cluster through the live collector built
// from kubectl's flags, with the tests' EC2 client.
func (h *hostileCluster) collector() func(context.Context, *commonOptions) (*collect.Collector, error) {
	return func(ctx context.Context, o *commonOptions) (*collect.Collector, error) {
		c, err := liveCollector(ctx, o)
		if err != nil {
			return nil, err
		}
		c.EC2, c.EC2Gap = ec2sim.NewClient(h.ec2URL, "us-west-2"), nil
		return c, nil
	}
}

// wantReadOnly fails the test unless every request was a Kubernetes GET or an EC2 Describe or
// Get call.
func (h *hostileCluster) wantReadOnly(t *testing.T) {
	t.Helper()
	for _, r := range h.Kube.Requests() {
		if r.Method != http.MethodGet {
			t.Errorf("Kubernetes request %s %s: want GET only", r.Method, r.Path)
		}
	}
	for _, r := range h.EC2.Requests() {
		if !strings.HasPrefix(r.Action, "Describe") && !strings.HasPrefix(r.Action, "Get") {
			t.Errorf("EC2 request %s: want Describe* and Get* only", r.Action)
		}
	}
}

// wantWithin fails the test when a run took longer than bound.
func wantWithin(t *testing.T, took, bound time.Duration) {
	t.Helper()
	if took > bound {
		t.Errorf("the run took %s, want it to end within %s", took.Round(time.Millisecond), bound)
	}
}

// wantGap fails the test unless the JSON report has a gap for source whose reason holds every
// one of parts, and returns it.
func wantGap(t *testing.T, rep *jsonReport, source string, parts ...string) jsonGap {
	t.Helper()
	i := slices.IndexFunc(rep.Gaps, func(g jsonGap) bool { return g.Source == source })
	if i < 0 {
		t.Fatalf("gaps %+v: want one for %s", rep.Gaps, source)
	}
	g := rep.Gaps[i]
	for _, p := range parts {
		if !strings.Contains(g.Reason+" "+g.Remedy, p) {
			t.Errorf("gap for %s: got %q / %q, want it to mention %q", source, g.Reason, g.Remedy, p)
		}
	}
	if !slices.ContainsFunc(rep.Findings, func(f jsonFinding) bool { return f.ID == "data-unavailable" && f.Resource == source }) {
		t.Errorf("findings: want data-unavailable for %s", source)
	}
	return g
}

// wantNoFinding fails the test when the JSON report has a finding with id.
func wantNoFinding(t *testing.T, rep *jsonReport, id string) {
	t.Helper()
	for _, f := range rep.Findings {
		if f.ID == id {
			t.Errorf("finding %s on %s: %s; want none", id, f.Resource, f.Message)
		}
	}
}
