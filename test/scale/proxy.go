package scale

import (
	"encoding/pem"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/karpnet/kubectl-karpnet/pkg/serve"
)

// kubeCounter is a reverse proxy in front of the API server that counts the requests it
// forwards by verb and resource ("list nodes", "get nodeclaims"), named as serve names them.
type kubeCounter struct {
	server *httptest.Server

	mu     sync.Mutex
	counts map[string]int
}

// newKubeCounter starts a TLS proxy to the API server of cfg.
func newKubeCounter(cfg *rest.Config) (*kubeCounter, error) {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("parsing the API server address: %w", err)
	}
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the API server TLS configuration: %w", err)
	}
	k := &kubeCounter{counts: map[string]int{}}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
		},
		Transport: &http.Transport{TLSClientConfig: tlsConfig, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 64},
	}
	k.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.count(r)
		proxy.ServeHTTP(w, r)
	}))
	k.server.EnableHTTP2 = true
	k.server.StartTLS()
	return k, nil
}

// count records r under its verb and resource.
func (k *kubeCounter) count(r *http.Request) {
	key := serve.KubeRequestName(r.Method, r.URL.Path)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.counts[key]++
}

// take returns the counts since the last take and starts again from zero.
func (k *kubeCounter) take() map[string]int {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := maps.Clone(k.counts)
	clear(k.counts)
	return out
}

// close stops the proxy.
func (k *kubeCounter) close() { k.server.Close() }

// writeKubeconfig writes a kubeconfig that reaches the API server through the proxy with the
// bearer token of cfg.
func (k *kubeCounter) writeKubeconfig(path string, cfg *rest.Config) error {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: k.server.Certificate().Raw})
	c := clientcmdapi.NewConfig()
	c.Clusters["scale"] = &clientcmdapi.Cluster{Server: k.server.URL, CertificateAuthorityData: ca}
	c.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	c.Contexts["scale"] = &clientcmdapi.Context{Cluster: "scale", AuthInfo: "admin"}
	c.CurrentContext = "scale"
	if err := clientcmd.WriteToFile(*c, path); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return os.Chmod(path, 0o600)
}
