package scale

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// Throttle settings: EC2's token bucket for Describe calls holds about 100 requests and
// refills 20 a second, per account and Region.
const (
	ThrottleBurst  = 100
	ThrottleRefill = 20
)

// Env is a running benchmark environment: etcd and kube-apiserver behind a counting proxy, an
// ec2sim server, the built binaries and the cluster they all see.
type Env struct {
	Cluster *Cluster
	EC2     *ec2sim.Server

	dir        string
	kube       *harness.Kube
	ec2Server  *httptest.Server
	counter    *kubeCounter
	kubeconfig string
	plugin     string
	pernode    string
	peakrss    string
	log        io.Writer
}

// Start builds kubectl-karpnet and the per-node baseline into dir, starts etcd and
// kube-apiserver with the Karpenter v1 CRDs, the EC2 server and the counting proxy, and
// creates an empty cluster. Progress goes to log.
func Start(ctx context.Context, dir string, log io.Writer) (e *Env, err error) {
	e = &Env{dir: dir, log: log}
	defer func() {
		if err != nil {
			e.Close()
			e = nil
		}
	}()
	start := time.Now()
	bin := filepath.Join(dir, "bin")
	e.plugin, e.pernode, e.peakrss = filepath.Join(bin, "kubectl-karpnet"), filepath.Join(bin, "pernode"), filepath.Join(bin, "peakrss")
	if err := goBuild(ctx, e.plugin, "./cmd/kubectl-karpnet"); err != nil {
		return e, err
	}
	if err := goBuild(ctx, e.pernode, "./test/scale/cmd/pernode"); err != nil {
		return e, err
	}
	if err := BuildPeakRSS(ctx, e.peakrss); err != nil {
		return e, err
	}
	e.logf("built kubectl-karpnet and pernode in %s", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	if e.kube, err = harness.StartKube(ctx, filepath.Join(dir, "kube")); err != nil {
		return e, fmt.Errorf("starting etcd and kube-apiserver: %w", err)
	}
	if err := e.kube.InstallCRDs(ctx, harness.CRDsV1); err != nil {
		return e, fmt.Errorf("installing the Karpenter CRDs: %w", err)
	}
	e.logf("kube-apiserver ready in %s", time.Since(start).Round(time.Millisecond))
	e.EC2 = ec2sim.New()
	e.ec2Server = e.EC2.NewHTTPServer()
	if e.counter, err = newKubeCounter(e.kube.Admin); err != nil {
		return e, err
	}
	e.kubeconfig = filepath.Join(dir, "scale.kubeconfig")
	if err := e.counter.writeKubeconfig(e.kubeconfig, e.kube.Admin); err != nil {
		return e, err
	}
	if e.Cluster, err = NewCluster(ctx, e.kube.Admin, e.EC2); err != nil {
		return e, err
	}
	return e, nil
}

// Close stops everything Start started. It is safe to call on a partly started Env.
func (e *Env) Close() {
	if e == nil {
		return
	}
	if e.counter != nil {
		e.counter.close()
	}
	if e.ec2Server != nil {
		e.ec2Server.Close()
	}
	if e.kube != nil {
		_ = e.kube.Close()
	}
}

func (e *Env) logf(format string, args ...any) {
	if e.log != nil {
		fmt.Fprintf(e.log, "scale: "+format+"\n", args...)
	}
}

// goBuild builds the package at pkg, relative to the module root, into out.
func goBuild(ctx context.Context, out, pkg string) error {
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "karpnet_testseams", "-o", out, pkg)
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// awsEnv points an AWS SDK process at the EC2 server with static credentials, isolated from
// the machine's AWS configuration.
func (e *Env) awsEnv() []string {
	return []string{
		"AWS_ENDPOINT_URL_EC2=" + e.ec2Server.URL,
		"AWS_ACCESS_KEY_ID=AKIDSCALE", "AWS_SECRET_ACCESS_KEY=scale", "AWS_SESSION_TOKEN=",
		"AWS_REGION=" + Region, "AWS_DEFAULT_REGION=" + Region, "AWS_PROFILE=", "AWS_DEFAULT_PROFILE=",
		"AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
		"AWS_EC2_METADATA_DISABLED=true",
	}
}

// Environ returns the environment that points kubectl-karpnet at the cluster: KUBECONFIG
// through the counting proxy, and AWS settings for the EC2 server.
func (e *Env) Environ() []string {
	return append([]string{"KUBECONFIG=" + e.kubeconfig}, e.awsEnv()...)
}

// BuildPlugin builds kubectl-karpnet into out.
func BuildPlugin(ctx context.Context, out string) error {
	return goBuild(ctx, out, "./cmd/kubectl-karpnet")
}
