package cmd

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeFlags are kubectl's flags that choose and reach a cluster (--kubeconfig, --context,
// --server, --token, --as, --request-timeout, ...), with kubectl's names and meanings, read
// through client-go's kubeconfig loading rules (KUBECONFIG, ~/.kube/config) as kubectl reads
// them.
//
// karpnet binds them itself rather than through cli-runtime's ConfigFlags: that package brings
// in kustomize and with it Go's plugin package, which makes the linker keep every exported
// function of every package (the whole EC2 API among them): the binary was twice the size and
// each run mapped about 50 MiB more of it.
type kubeFlags struct {
	KubeConfig       string
	CacheDir         string
	Context          string
	ClusterName      string
	AuthInfoName     string
	Namespace        string
	APIServer        string
	TLSServerName    string
	Insecure         bool
	CertFile         string
	KeyFile          string
	CAFile           string
	BearerToken      string
	Impersonate      string
	ImpersonateUID   string
	ImpersonateGroup []string
	ImpersonateExtra []string
	Timeout          string
	NoCompression    bool
	ProxyURL         string

	// WrapConfigFn, when set, changes the REST config ToRESTConfig returns.
	WrapConfigFn func(*rest.Config) *rest.Config

	loaderOnce sync.Once
	loader     clientcmd.ClientConfig
}

// defaultRequestTimeout bounds each Kubernetes and EC2 request when --request-timeout is not
// given (kubectl's own default is no bound): the largest answer karpnet reads, 100,000
// NodeClaims from the watch cache, takes about 20 s (docs/scale.md).
const defaultRequestTimeout = time.Minute

// newKubeFlags returns the flags with kubectl's defaults, but for the request timeout.
func newKubeFlags() *kubeFlags {
	return &kubeFlags{Timeout: defaultRequestTimeout.String()}
}

// AddFlags defines the flags on fs.
func (f *kubeFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.KubeConfig, "kubeconfig", f.KubeConfig, "path to the kubeconfig file (default: KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&f.CacheDir, "cache-dir", f.CacheDir, "accepted as kubectl accepts it; karpnet keeps no discovery cache")
	fs.StringVar(&f.Context, "context", f.Context, "the kubeconfig context to use")
	fs.StringVar(&f.ClusterName, "cluster", f.ClusterName, "the kubeconfig cluster to use")
	fs.StringVar(&f.AuthInfoName, "user", f.AuthInfoName, "the kubeconfig user to use")
	fs.StringVarP(&f.Namespace, "namespace", "n", f.Namespace, "the namespace of this request (karpnet reads cluster-wide objects and kube-system)")
	fs.StringVarP(&f.APIServer, "server", "s", f.APIServer, "address and port of the Kubernetes API server")
	fs.StringVar(&f.TLSServerName, "tls-server-name", f.TLSServerName, "server name to validate the API server's certificate against (default: the server's host name)")
	fs.BoolVar(&f.Insecure, "insecure-skip-tls-verify", f.Insecure, "do not verify the API server's certificate (the connection is then not secure)")
	fs.StringVar(&f.CertFile, "client-certificate", f.CertFile, "path to a client certificate file for TLS")
	fs.StringVar(&f.KeyFile, "client-key", f.KeyFile, "path to a client key file for TLS")
	fs.StringVar(&f.CAFile, "certificate-authority", f.CAFile, "path to a certificate authority file for the API server's certificate")
	fs.StringVar(&f.BearerToken, "token", f.BearerToken, "bearer token for the API server")
	fs.StringVar(&f.Impersonate, "as", f.Impersonate, "user or service account to impersonate")
	fs.StringVar(&f.ImpersonateUID, "as-uid", f.ImpersonateUID, "UID to impersonate")
	fs.StringArrayVar(&f.ImpersonateGroup, "as-group", f.ImpersonateGroup, "group to impersonate (repeat for several)")
	fs.StringArrayVar(&f.ImpersonateExtra, "as-user-extra", f.ImpersonateExtra, "user extra KEY=VALUE to impersonate (repeat for several)")
	fs.StringVar(&f.Timeout, "request-timeout", f.Timeout, "how long to wait for each Kubernetes or EC2 request before giving up (e.g. 1s, 2m; 0: no limit, and no deadline for the whole collection)")
	fs.BoolVar(&f.NoCompression, "disable-compression", f.NoCompression, "ask the API server for uncompressed answers")
	fs.StringVar(&f.ProxyURL, "proxy-url", f.ProxyURL, "proxy URL for requests to the API server")
}

// forContext returns the flags for one context of a run over several: the kubeconfig, cache,
// timeout, impersonation and transport flags as given, and the context.
func (f *kubeFlags) forContext(name string) *kubeFlags {
	return &kubeFlags{
		KubeConfig: f.KubeConfig, CacheDir: f.CacheDir, Timeout: f.Timeout, Insecure: f.Insecure,
		Impersonate: f.Impersonate, ImpersonateUID: f.ImpersonateUID, ImpersonateGroup: f.ImpersonateGroup,
		ImpersonateExtra: f.ImpersonateExtra, NoCompression: f.NoCompression, ProxyURL: f.ProxyURL,
		Namespace: f.Namespace, Context: name, WrapConfigFn: f.WrapConfigFn,
	}
}

// ToRESTConfig returns the REST config the kubeconfig and the flags give.
func (f *kubeFlags) ToRESTConfig() (*rest.Config, error) {
	c, err := f.ToRawKubeConfigLoader().ClientConfig()
	if err != nil {
		return nil, err
	}
	if f.WrapConfigFn != nil {
		return f.WrapConfigFn(c), nil
	}
	return c, nil
}

// ToRawKubeConfigLoader returns the kubeconfig loader of the flags, made once. As kubectl's,
// with no kubeconfig at all it gives the in-cluster config inside a pod, else
// http://localhost:8080.
func (f *kubeFlags) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	f.loaderOnce.Do(func() {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.DefaultClientConfig = &clientcmd.DefaultClientConfig
		rules.ExplicitPath = f.KubeConfig
		o := &clientcmd.ConfigOverrides{ClusterDefaults: clientcmd.ClusterDefaults}
		o.AuthInfo.ClientCertificate, o.AuthInfo.ClientKey = f.CertFile, f.KeyFile
		o.AuthInfo.Token = f.BearerToken
		o.AuthInfo.Impersonate, o.AuthInfo.ImpersonateUID = f.Impersonate, f.ImpersonateUID
		o.AuthInfo.ImpersonateGroups = f.ImpersonateGroup
		for _, kv := range f.ImpersonateExtra {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				continue
			}
			if o.AuthInfo.ImpersonateUserExtra == nil {
				o.AuthInfo.ImpersonateUserExtra = map[string][]string{}
			}
			o.AuthInfo.ImpersonateUserExtra[k] = append(o.AuthInfo.ImpersonateUserExtra[k], v)
		}
		o.ClusterInfo.Server, o.ClusterInfo.TLSServerName = f.APIServer, f.TLSServerName
		o.ClusterInfo.CertificateAuthority = f.CAFile
		o.ClusterInfo.InsecureSkipTLSVerify = f.Insecure
		o.ClusterInfo.DisableCompression = f.NoCompression
		o.ClusterInfo.ProxyURL = f.ProxyURL
		o.CurrentContext = f.Context
		o.Context.Cluster, o.Context.AuthInfo, o.Context.Namespace = f.ClusterName, f.AuthInfoName, f.Namespace
		o.Timeout = f.Timeout
		f.loader = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, o)
	})
	return f.loader
}

// duplicateName matches client-go's error for a kubeconfig that names a context, cluster or
// user twice, which goes on to print the whole list (users with their tokens).
var duplicateName = regexp.MustCompile(`error converting \*\[\]Named(\w+) into \*map\[string\]\*api\.\w+: duplicate name ("(?:[^"\\]|\\.)*") in list: \[.*\]`)

// kubeconfigError returns err as one short line: a name used twice is named, the list is not.
func kubeconfigError(err error) error {
	msg := err.Error()
	m := duplicateName.FindStringSubmatchIndex(msg)
	if m == nil {
		return err
	}
	kind := strings.ToLower(msg[m[2]:m[3]])
	if kind == "authinfo" {
		kind = "user"
	}
	name := msg[m[4]:m[5]]
	return fmt.Errorf("%sthe %s name %s is used twice: each %s needs a name of its own%s",
		msg[:m[0]], kind, name, kind, msg[m[1]:])
}
