package hostile

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Kube is a Kubernetes API server over a fixed set of objects. Its methods are safe for
// concurrent use.
type Kube struct {
	mu sync.Mutex
	// collections maps a list path (/api/v1/nodes, /apis/GROUP/VERSION/PLURAL, and for
	// namespaced kinds also .../namespaces/NS/PLURAL) to its kind and objects.
	collections map[string]*collection
	faults      map[string]*fault
	requests    []Request
}

// collection is the objects of one kind under one list path, sorted by namespace and name.
type collection struct {
	apiVersion string
	kind       string
	objects    []map[string]any
}

// Request is one request the server received, recorded before any fault is applied.
type Request struct {
	Method string
	Path   string
	Query  string
}

// NewKube returns a server holding objects. Each kind is served under the plural of its kind
// (lower case, "s" or "es" added): Node at /api/v1/nodes, NodeClaim at
// /apis/karpenter.sh/v1/nodeclaims, a namespaced kind under /namespaces/NS/ as well. Nodes,
// events, pods and DaemonSets are served even when there are none, as every API server does
// (pods and DaemonSets in kube-system too).
func NewKube(objects ...unstructured.Unstructured) *Kube {
	k := &Kube{collections: map[string]*collection{}, faults: map[string]*fault{}}
	for _, builtin := range [][2]string{{"v1", "Node"}, {"v1", "Event"}, {"v1", "Pod"}, {"apps/v1", "DaemonSet"}} {
		k.collection(listPath(builtin[0], builtin[1], ""), builtin[0], builtin[1])
	}
	for _, builtin := range [][2]string{{"v1", "Pod"}, {"apps/v1", "DaemonSet"}} {
		k.collection(listPath(builtin[0], builtin[1], "kube-system"), builtin[0], builtin[1])
	}
	for i := range objects {
		k.add(objects[i].DeepCopy().Object)
	}
	for _, c := range k.collections {
		slices.SortFunc(c.objects, func(a, b map[string]any) int {
			return cmp.Or(strings.Compare(meta(a, "namespace"), meta(b, "namespace")), strings.Compare(meta(a, "name"), meta(b, "name")))
		})
	}
	return k
}

// Serve makes the server answer an empty list of kind at apiVersion, for a cluster-scoped
// custom resource whose CRD is installed but has no objects.
func (k *Kube) Serve(apiVersion, kind string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.collection(listPath(apiVersion, kind, ""), apiVersion, kind)
}

// Add serves obj as well, after the objects of its kind.
func (k *Kube) Add(obj map[string]any) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.add(obj)
}

// add files obj under its list paths.
func (k *Kube) add(obj map[string]any) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	ns := meta(obj, "namespace")
	c := k.collection(listPath(apiVersion, kind, ""), apiVersion, kind)
	c.objects = append(c.objects, obj)
	if ns != "" {
		c := k.collection(listPath(apiVersion, kind, ns), apiVersion, kind)
		c.objects = append(c.objects, obj)
	}
}

func (k *Kube) collection(p, apiVersion, kind string) *collection {
	c := k.collections[p]
	if c == nil {
		c = &collection{apiVersion: apiVersion, kind: kind}
		k.collections[p] = c
	}
	return c
}

// listPath returns where the objects of kind at apiVersion are listed, in namespace ns or in
// all namespaces ("").
func listPath(apiVersion, kind, ns string) string {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	root := "/apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		root = "/api/" + gv.Version
	}
	if ns != "" {
		root += "/namespaces/" + ns
	}
	return root + "/" + plural(kind)
}

// plural returns the resource name of kind: lower case, with "es" after an s, else "s".
func plural(kind string) string {
	p := strings.ToLower(kind)
	if strings.HasSuffix(p, "s") {
		return p + "es"
	}
	return p + "s"
}

// meta returns metadata.key of obj, or "".
func meta(obj map[string]any, key string) string {
	m, _ := obj["metadata"].(map[string]any)
	v, _ := m[key].(string)
	return v
}

// Start serves k on a loopback httptest server that tb closes at cleanup, and returns its URL.
func (k *Kube) Start(tb testing.TB) string {
	tb.Helper()
	ts := httptest.NewServer(k)
	tb.Cleanup(ts.Close)
	return ts.URL
}

// Kubeconfig starts k like Start and writes a kubeconfig for it into a directory tb removes at
// cleanup, with context "hostile" current; it returns the file's path and the server's URL.
func (k *Kube) Kubeconfig(tb testing.TB) (file, url string) {
	tb.Helper()
	url = k.Start(tb)
	file = filepath.Join(tb.TempDir(), "kubeconfig")
	if err := WriteKubeconfig(file, url); err != nil {
		tb.Fatal(err)
	}
	return file, url
}

// WriteKubeconfig writes a kubeconfig whose current context "hostile" points at server with a
// bearer token.
func WriteKubeconfig(file, server string) error {
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: hostile
  cluster:
    server: %s
contexts:
- name: hostile
  context:
    cluster: hostile
    user: karpnet
current-context: hostile
users:
- name: karpnet
  user:
    token: hostile-test-token
`, server)
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return nil
}

// Requests returns a copy of every request received, in arrival order.
func (k *Kube) Requests() []Request {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.requests)
}

// Count returns how many requests had a path starting with prefix.
func (k *Kube) Count(prefix string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, r := range k.requests {
		if strings.HasPrefix(r.Path, prefix) {
			n++
		}
	}
	return n
}

// ServeHTTP answers one request: a list, a get, or 404 for a path that holds nothing.
func (k *Kube) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	k.requests = append(k.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery})
	f := k.faultFor(r.URL.Path)
	k.mu.Unlock()
	if !f.wait(r) || f.answer(w, r) {
		return
	}
	if r.Method != http.MethodGet {
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "the server serves GET only")
		return
	}
	p := path.Clean(r.URL.Path)
	k.mu.Lock()
	c, isList := k.collections[p]
	var obj map[string]any
	if !isList {
		if parent := k.collections[path.Dir(p)]; parent != nil {
			c = parent
			i := slices.IndexFunc(parent.objects, func(o map[string]any) bool { return meta(o, "name") == path.Base(p) })
			if i >= 0 {
				obj = parent.objects[i]
			}
		}
	}
	k.mu.Unlock()
	switch {
	case isList:
		k.list(w, r, c, f)
	case obj != nil:
		writeJSON(w, http.StatusOK, obj)
	case c != nil:
		writeStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("%s %q not found", plural(c.kind), path.Base(p)))
	default:
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
	}
}

// writeJSON writes v as a JSON answer with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeStatus writes a metav1.Status failure.
func writeStatus(w http.ResponseWriter, code int, reason, message string) {
	writeJSON(w, code, map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code,
	})
}
