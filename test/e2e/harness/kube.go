package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Kube is a running etcd and kube-apiserver on 127.0.0.1, with the ENIConfig CRD installed.
type Kube struct {
	// URL is the API server address, https://127.0.0.1:PORT, with a self-signed certificate.
	URL string
	// AdminKubeconfig is the path of a kubeconfig for user "admin" (group system:masters),
	// context "admin".
	AdminKubeconfig string
	// ViewerKubeconfig is the path of a kubeconfig for user "viewer", context "viewer", who
	// may get and list nodes, events, DaemonSets and ENIConfigs but nothing in the
	// karpenter.sh and karpenter.k8s.aws API groups.
	ViewerKubeconfig string
	// Admin is the client configuration of the admin user.
	Admin *rest.Config
	// Dir holds the logs (etcd.log, kube-apiserver.log), data and kubeconfigs.
	Dir string

	etcd, apiserver *proc
	kube            kubernetes.Interface
	dynamic         dynamic.Interface
	startup         kubeStartup
}

// kubeStartup is how long the components took to start.
type kubeStartup struct {
	etcd, apiserver, total time.Duration
}

// errKubePortClash marks a start that failed because a chosen port was taken meanwhile.
var errKubePortClash = errors.New("port already in use")

// StartKube starts etcd and kube-apiserver with their files in dir, waits until the API
// server is ready, creates the viewer's RBAC and installs the ENIConfig CRD. Both processes
// stop on Close or when ctx is done. etcd comes from PATH, /usr/bin/etcd or, as root, from
// apt-get install etcd-server; kube-apiserver from KubeAPIServerBinary. A start that loses a
// port to another process is retried once with new ports.
func StartKube(ctx context.Context, dir string) (*Kube, error) {
	etcdBin, err := kubeEtcdBinary(ctx)
	if err != nil {
		return nil, err
	}
	apiBin, err := KubeAPIServerBinary(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the kube directory: %w", err)
	}
	k, err := kubeStart(ctx, dir, etcdBin, apiBin)
	if errors.Is(err, errKubePortClash) {
		k, err = kubeStart(ctx, dir, etcdBin, apiBin)
	}
	return k, err
}

// kubeStart makes one attempt at starting etcd and kube-apiserver and preparing the cluster.
func kubeStart(ctx context.Context, dir, etcdBin, apiBin string) (k *Kube, err error) {
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	tokens, err := kubeWriteAuth(dir)
	if err != nil {
		return nil, err
	}
	k = &Kube{
		Dir:              dir,
		AdminKubeconfig:  filepath.Join(dir, "admin.kubeconfig"),
		ViewerKubeconfig: filepath.Join(dir, "viewer.kubeconfig"),
	}
	defer func() {
		if err != nil {
			k.Close()
			k = nil
		}
	}()
	start := time.Now()
	etcd, etcdURL, err := kubeStartEtcd(ctx, etcdBin, dir, ports[0], ports[1])
	if err != nil {
		return k, kubeMarkClash(err, etcd)
	}
	k.etcd = etcd
	k.startup.etcd = time.Since(start)
	apiserver, url, err := kubeStartAPIServer(ctx, apiBin, dir, etcdURL, ports[2], tokens.admin)
	if err != nil {
		return k, kubeMarkClash(err, apiserver)
	}
	k.apiserver, k.URL = apiserver, url
	k.startup.apiserver = time.Since(start) - k.startup.etcd
	defer func() { k.startup.total = time.Since(start) }()
	k.Admin = kubeRESTConfig(url, tokens.admin)
	if err := kubeWriteKubeconfig(k.AdminKubeconfig, url, kubeAdminUser, tokens.admin); err != nil {
		return k, err
	}
	if err := kubeWriteKubeconfig(k.ViewerKubeconfig, url, kubeViewerUser, tokens.viewer); err != nil {
		return k, err
	}
	if k.kube, err = kubernetes.NewForConfig(k.Admin); err != nil {
		return k, fmt.Errorf("creating the admin client: %w", err)
	}
	if k.dynamic, err = dynamic.NewForConfig(k.Admin); err != nil {
		return k, fmt.Errorf("creating the admin dynamic client: %w", err)
	}
	if err := k.waitNamespace(ctx, metav1.NamespaceSystem); err != nil {
		return k, err
	}
	if err := kubeCreateViewerRBAC(ctx, k.kube); err != nil {
		return k, err
	}
	return k, k.installVPCCRDs(ctx)
}

// kubeMarkClash wraps err with errKubePortClash when the log of p, a process that failed to
// start, says that its port was taken.
func kubeMarkClash(err error, p *proc) error {
	if p != nil && p.portClash() {
		return fmt.Errorf("%w: %w", errKubePortClash, err)
	}
	return err
}

// waitNamespace waits until the API server has created the namespace name.
func (k *Kube) waitNamespace(ctx context.Context, name string) error {
	return kubePoll(ctx, 30*time.Second, func(ctx context.Context) error {
		_, err := k.kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		return err
	}, fmt.Sprintf("waiting for namespace %s", name))
}

// Close stops kube-apiserver, then etcd, killing their process groups. It is safe to call
// more than once.
func (k *Kube) Close() error {
	if k == nil {
		return nil
	}
	var errs []error
	for _, p := range []*proc{k.apiserver, k.etcd} {
		if p != nil {
			errs = append(errs, p.stop())
		}
	}
	return errors.Join(errs...)
}

// kubePoll calls f every 100 ms until it returns nil or timeout passes; what names the wait
// in the error, which carries f's last error.
func kubePoll(ctx context.Context, timeout time.Duration, f func(context.Context) error, what string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		err := f(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: gave up after %s: %w", what, timeout, err)
		case <-tick.C:
		}
	}
}

// Memory returns the resident memory of etcd and of kube-apiserver now and at their peak so
// far (VmRSS and VmHWM of /proc/PID/status), in bytes.
func (k *Kube) Memory() (etcd, apiserver ProcMemory, err error) {
	if etcd, err = k.etcd.memory(); err != nil {
		return etcd, apiserver, err
	}
	apiserver, err = k.apiserver.memory()
	return etcd, apiserver, err
}
