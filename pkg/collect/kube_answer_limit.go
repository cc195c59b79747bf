package collect

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// kubeMaxAnswer is the most bytes karpnet reads of one Kubernetes answer, the same bound as
// one EC2 answer's (ec2MaxAnswer). The lists it bounds are filtered by the API server (events
// of one reason, policies, DaemonSets), of a few KiB an object: 64 MiB is tens of thousands
// of them. The lists of one object per node or NodeClaim (nodes, NodeClaims, CNINodes,
// CiliumNodes), which grow with the cluster, are not bounded by it: they are read one page
// or one object at a time (kubeNodes, kubeStreamList), each object at most kubeMaxObject.
const kubeMaxAnswer = ec2MaxAnswer

// LimitKubeAnswers wraps the transport of a Kubernetes client so that no answer but the lists
// of one object per node or NodeClaim is read past kubeMaxAnswer bytes: reading further fails with a
// *kubeTooLongError, which makes the read a gap that says so, instead of holding whatever the
// API server or a proxy sends. Install it with rest.Config.Wrap before the clients are made.
func LimitKubeAnswers(rt http.RoundTripper) http.RoundTripper {
	return kubeLimitAnswers(rt, kubeMaxAnswer)
}

func kubeLimitAnswers(rt http.RoundTripper, limit int64) http.RoundTripper {
	return &kubeAnswerLimit{rt: rt, limit: limit}
}

type kubeAnswerLimit struct {
	rt    http.RoundTripper
	limit int64
}

func (l *kubeAnswerLimit) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.rt.RoundTrip(req)
	if err != nil || resp.Body == nil || kubeUnboundedPath(req.URL.Path) {
		return resp, err
	}
	resp.Body = &kubeLimitedBody{body: resp.Body, left: l.limit, limit: l.limit, path: req.URL.Path}
	return resp, nil
}

// kubeUnboundedPath reports whether path is the node list or a list of NodeClaims, CNINodes or
// CiliumNodes, read a page or an object at a time.
func kubeUnboundedPath(path string) bool {
	if path == "/api/v1/nodes" {
		return true
	}
	if !strings.HasPrefix(path, "/apis/") {
		return false
	}
	for _, r := range []string{"/nodeclaims", "/cninodes", "/ciliumnodes"} {
		if strings.HasSuffix(path, r) {
			return true
		}
	}
	return false
}

// kubeLimitedBody reads an answer's body until limit bytes, then fails.
type kubeLimitedBody struct {
	body        io.ReadCloser
	left, limit int64
	path        string
}

func (b *kubeLimitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells an answer of exactly limit bytes from a longer one.
		var one [1]byte
		if n, _ := b.body.Read(one[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, &kubeTooLongError{path: b.path, limit: b.limit}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *kubeLimitedBody) Close() error { return b.body.Close() }

// kubeMaxObject is the most bytes of one object of a list read one object at a time
// (kubeStreamList): 3 MiB, the largest request body the API server accepts
// (k8s.io/apiserver pkg/server/config.go, MaxRequestBodyBytes, twice etcd's 1.5 MB), so no
// object written through it is longer. A CiliumNode of 128 ENIs is far below it.
const kubeMaxObject = 3 << 20

// kubeTooLongError is a Kubernetes answer longer than karpnet reads (path is the request's),
// or with object set an object of a list (path is the resource) longer than kubeMaxObject.
type kubeTooLongError struct {
	path   string
	limit  int64
	object bool
}

func (e *kubeTooLongError) Error() string {
	if e.object {
		return fmt.Sprintf("the API server's %s list holds an object longer than %d MiB, more than the API server "+
			"accepts in a request", e.path, e.limit>>20)
	}
	return fmt.Sprintf("the API server's answer to %s is longer than %d MiB, the most karpnet reads", e.path, e.limit>>20)
}
