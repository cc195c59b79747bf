package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"
)

// kubeEtcdReadyTimeout bounds the wait for etcd's /health.
const kubeEtcdReadyTimeout = 30 * time.Second

// kubeEtcdBinary finds etcd on PATH or in /usr/bin. When it is missing and the process runs as
// root, it installs Debian's etcd-server package, updating the package lists if needed.
func kubeEtcdBinary(ctx context.Context) (string, error) {
	if bin, err := kubeFindEtcd(); err == nil {
		return bin, nil
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("etcd is not installed: run apt-get install etcd-server (Debian) or put etcd 3.4+ on PATH")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return "", fmt.Errorf("etcd is not installed and there is no apt-get: put etcd 3.4+ on PATH")
	}
	fmt.Fprintln(os.Stderr, "harness: etcd is not installed; running apt-get install -y etcd-server")
	out, err := kubeAptGet(ctx, "install", "-y", "--no-install-recommends", "etcd-server")
	if err != nil {
		if upd, uerr := kubeAptGet(ctx, "update"); uerr != nil {
			return "", fmt.Errorf("etcd is not installed and apt-get update failed: %w\n%s\nrun apt-get install etcd-server (Debian) or put etcd 3.4+ on PATH", uerr, upd)
		}
		out, err = kubeAptGet(ctx, "install", "-y", "--no-install-recommends", "etcd-server")
	}
	if err != nil {
		return "", fmt.Errorf("etcd is not installed and apt-get install etcd-server failed: %w\n%s\nrun apt-get install etcd-server (Debian) or put etcd 3.4+ on PATH",
			err, kubeLastLines(string(out), 20))
	}
	bin, err := kubeFindEtcd()
	if err != nil {
		return "", fmt.Errorf("apt-get installed etcd-server but etcd is still not found: %w; put etcd 3.4+ on PATH", err)
	}
	return bin, nil
}

// kubeFindEtcd looks for etcd on PATH, then at /usr/bin/etcd.
func kubeFindEtcd() (string, error) {
	if bin, err := exec.LookPath("etcd"); err == nil {
		return bin, nil
	}
	if kubeIsExecutable("/usr/bin/etcd") {
		return "/usr/bin/etcd", nil
	}
	return "", fmt.Errorf("no etcd on PATH nor at /usr/bin/etcd")
}

// kubeAptGet runs apt-get non-interactively, waiting for a dpkg lock held by another install.
func kubeAptGet(ctx context.Context, args ...string) ([]byte, error) {
	args = append([]string{"-o", "DPkg::Lock::Timeout=300", "-q"}, args...)
	cmd := exec.CommandContext(ctx, "apt-get", args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	return cmd.CombinedOutput()
}

// kubeStartEtcd starts a single-member etcd with its data in dir, serving clients on
// 127.0.0.1:clientPort, and waits until /health answers true. A process that fails to get
// ready is stopped and returned with the error, for its log.
func kubeStartEtcd(ctx context.Context, bin, dir string, clientPort, peerPort int) (*proc, string, error) {
	data := filepath.Join(dir, "etcd-data")
	if err := os.RemoveAll(data); err != nil {
		return nil, "", fmt.Errorf("clearing the etcd data directory: %w", err)
	}
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	var env []string
	if runtime.GOARCH != "amd64" {
		env = append(env, "ETCD_UNSUPPORTED_ARCH="+runtime.GOARCH)
	}
	p, err := startProc(ctx, "etcd", filepath.Join(dir, "etcd.log"), env, bin,
		"--name=e2e",
		"--data-dir="+data,
		"--listen-client-urls="+clientURL,
		"--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=e2e="+peerURL,
		"--initial-cluster-state=new",
		// The scale benchmark's 100,000 nodes and NodeClaims pass etcd's default 2 GiB.
		"--quota-backend-bytes=8589934592",
		"--logger=zap",
		"--log-level=warn",
	)
	if err != nil {
		return nil, "", err
	}
	client := &http.Client{Timeout: 2 * time.Second}
	err = p.waitReady(ctx, kubeEtcdReadyTimeout, func(ctx context.Context) error {
		return kubeEtcdHealthy(ctx, client, clientURL)
	})
	if err != nil {
		p.stop()
		return p, "", fmt.Errorf("starting etcd: %w", err)
	}
	return p, clientURL, nil
}

// kubeEtcdHealthy asks etcd's /health endpoint whether it is healthy.
func kubeEtcdHealthy(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var health struct {
		Health string `json:"health"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&health); err != nil {
		return fmt.Errorf("decoding /health: %w", err)
	}
	if health.Health != "true" {
		return fmt.Errorf("etcd /health says %q", health.Health)
	}
	return nil
}
