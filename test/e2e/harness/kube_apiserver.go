package harness

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// kubeAPIServerReadyTimeout bounds the wait for kube-apiserver's /readyz.
const kubeAPIServerReadyTimeout = 90 * time.Second

// kubeAPIServerArgs returns the kube-apiserver flags for a server on 127.0.0.1:port backed by
// etcdURL, with its files in dir (see kubeWriteAuth).
func kubeAPIServerArgs(dir, etcdURL string, port int) []string {
	return []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--token-auth-file=" + filepath.Join(dir, kubeTokenFile),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + filepath.Join(dir, kubeSAKeyFile),
		"--service-account-signing-key-file=" + filepath.Join(dir, kubeSAKeyFile),
		"--service-cluster-ip-range=10.0.0.0/24",
		// No controller manager runs, so nothing would consume the endpoints of the
		// kubernetes Service, and flow control only adds goroutines.
		"--endpoint-reconciler-type=none",
		"--enable-priority-and-fairness=false",
		"--profiling=false",
		"--v=0",
	}
}

// kubeStartAPIServer starts kube-apiserver and waits until /readyz answers ok to the admin.
// A process that fails to get ready is stopped and returned with the error, for its log.
func kubeStartAPIServer(ctx context.Context, bin, dir, etcdURL string, port int, adminToken string) (*proc, string, error) {
	url := fmt.Sprintf("https://127.0.0.1:%d", port)
	p, err := startProc(ctx, "kube-apiserver", filepath.Join(dir, "kube-apiserver.log"), nil, bin,
		kubeAPIServerArgs(dir, etcdURL, port)...)
	if err != nil {
		return nil, "", err
	}
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}
	defer client.CloseIdleConnections()
	err = p.waitReady(ctx, kubeAPIServerReadyTimeout, func(ctx context.Context) error {
		return kubeReadyz(ctx, client, url, adminToken)
	})
	if err != nil {
		p.stop()
		return p, "", fmt.Errorf("starting kube-apiserver: %w", err)
	}
	return p, url, nil
}

// kubeReadyz asks kube-apiserver's /readyz whether it is ready.
func kubeReadyz(ctx context.Context, client *http.Client, url, token string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz answered %d: %s", resp.StatusCode, kubeFailedChecks(string(body)))
	}
	return nil
}

// kubeFailedChecks keeps the failing lines of a /readyz answer.
func kubeFailedChecks(body string) string {
	var failed []string
	for line := range strings.SplitSeq(body, "\n") {
		if strings.HasPrefix(line, "[-]") {
			failed = append(failed, line)
		}
	}
	if len(failed) == 0 {
		return strings.TrimSpace(body)
	}
	return strings.Join(failed, "; ")
}

// kubeWriteFile writes data to dir/name, readable only by the owner.
func kubeWriteFile(dir, name string, data []byte) error {
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
