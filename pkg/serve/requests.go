package serve

import (
	"context"
	"maps"
	"net/http"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go/middleware"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// Requests counts the requests collections make: EC2 by action, each attempt of the SDK's retry
// loop once (as EC2 counts them against the request budget), and Kubernetes by verb and resource.
// It is safe for concurrent use.
type Requests struct {
	mu   sync.Mutex
	ec2  map[string]int
	kube map[kubeRequest]int
}

// kubeRequest names a Kubernetes request: verb (get, list) and resource (nodes, nodeclaims).
type kubeRequest struct{ verb, resource string }

// NewRequests returns an empty count.
func NewRequests() *Requests {
	return &Requests{ec2: map[string]int{}, kube: map[kubeRequest]int{}}
}

func (r *Requests) addEC2(action string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ec2[action]++
}

func (r *Requests) addKube(k kubeRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kube[k]++
}

// EC2 returns the EC2 requests counted so far, by action.
func (r *Requests) EC2() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.ec2)
}

// Kube returns the Kubernetes requests counted so far, by "verb resource" ("list nodes").
func (r *Requests) Kube() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.kube))
	for k, n := range r.kube {
		out[k.verb+" "+k.resource] = n
	}
	return out
}

// totals returns the number of EC2 and of Kubernetes requests counted so far.
func (r *Requests) totals() (ec2Total, kubeTotal int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.ec2 {
		ec2Total += n
	}
	for _, n := range r.kube {
		kubeTotal += n
	}
	return ec2Total, kubeTotal
}

// WrapEC2 returns api with every call counted. The count is taken inside the SDK's retry loop,
// so a retried call counts each attempt; a client that ignores the per-call options (a test
// fake) is not counted.
func (r *Requests) WrapEC2(api collect.EC2API) collect.EC2API {
	if api == nil {
		return nil
	}
	return &countingEC2{api: api, count: r.ec2Option}
}

// ec2Option adds the counting middleware to one call's stack.
func (r *Requests) ec2Option(o *ec2.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("karpnetCountRequest",
			func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
				middleware.DeserializeOutput, middleware.Metadata, error,
			) {
				r.addEC2(middleware.GetOperationName(ctx))
				return next.HandleDeserialize(ctx, in)
			}), middleware.After)
	})
}

// WrapTransport returns rt with every request counted by verb and resource; it fits
// rest.Config.Wrap.
func (r *Requests) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		r.addKube(kubeRequestOf(req.Method, req.URL.Path))
		return rt.RoundTrip(req)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// KubeRequestName names a request to the API server by verb and resource, as
// karpnet_kubernetes_requests_total labels it: "list nodes", "get daemonsets".
func KubeRequestName(method, path string) string {
	k := kubeRequestOf(method, path)
	return k.verb + " " + k.resource
}

// kubeRequestOf names a request to the API server: GET /api/v1/nodes is list nodes,
// GET /apis/karpenter.sh/v1/nodeclaims/x get nodeclaims, GET
// /apis/apps/v1/namespaces/kube-system/daemonsets/aws-node get daemonsets; POST is create.
// Paths outside /api and /apis (discovery, /version) and other methods are "other", so the
// labels stay bounded.
func kubeRequestOf(method, path string) kubeRequest {
	verb, ok := map[string]string{http.MethodGet: "get", http.MethodPost: "create", http.MethodPut: "update",
		http.MethodPatch: "patch", http.MethodDelete: "delete"}[method]
	if !ok {
		verb = "other"
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return kubeRequest{verb: verb, resource: "other"}
	}
	if parts[0] == "namespaces" && len(parts) >= 3 {
		parts = parts[2:]
	}
	if len(parts) == 1 && method == http.MethodGet {
		verb = "list"
	}
	return kubeRequest{verb: verb, resource: parts[0]}
}
