package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// region is where every scenario's EC2 state lives.
const region = "us-west-2"

// suite holds the components TestMain started, shared by every scenario (they run one at a time).
type suite struct {
	dir    string
	binDir string
	kube   *harness.Kube
	moto   *harness.Moto
}

// env is the running suite; set once by TestMain before any test runs.
var env *suite

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("e2e: skipped under -short: the end-to-end suite starts etcd, kube-apiserver and moto; run go test without -short to include it")
		os.Exit(0)
	}
	code, err := run(m)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "karpnet-e2e-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	s := &suite{dir: dir, binDir: filepath.Join(dir, "bin")}

	if _, err := exec.LookPath("kubectl"); err != nil {
		return 0, fmt.Errorf("kubectl is not on PATH: install kubectl 1.26 or newer")
	}
	start := time.Now()
	if err := buildPlugin(ctx, s.binDir); err != nil {
		return 0, err
	}
	logf("built kubectl-karpnet in %s", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	if s.kube, err = harness.StartKube(ctx, filepath.Join(dir, "kube")); err != nil {
		return 0, fmt.Errorf("starting etcd and kube-apiserver: %w", err)
	}
	defer s.kube.Close()
	logf("kube-apiserver ready in %s", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	if s.moto, err = harness.StartMoto(ctx, filepath.Join(dir, "moto")); err != nil {
		return 0, fmt.Errorf("starting moto: %w", err)
	}
	defer s.moto.Close()
	logf("moto ready in %s", time.Since(start).Round(time.Millisecond))

	env = s
	return m.Run(), nil
}

// buildPlugin builds the plugin binary from this checkout into dir, with the karpnet_testseams
// tag: serve then takes its interval floor from KARPNET_SERVE_TEST_MIN_INTERVAL, as no release does.
func buildPlugin(ctx context.Context, dir string) error {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "karpnet_testseams", "-o", filepath.Join(dir, "kubectl-karpnet"), "./cmd/kubectl-karpnet")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building kubectl-karpnet: %w\n%s", err, out)
	}
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "e2e: "+format+"\n", args...)
}
