// Package answerrec lets karpnet read a Kubernetes API answer's body itself, into a buffer it
// reuses, and still have the answer decoded, or refused, exactly as client-go's Request.Do
// would. Request.Stream gives the body only: Wrap records the status and headers of the
// answers to requests that ask for them (WithAnswer). Request.Do reads every answer into a new
// buffer, grown as it reads (at 100,000 nodes, 900 MB of garbage, the most of any part of a
// collection): a ReplayClient's requests are answered with an answer read already (WithReplay),
// which client-go then decodes as it decodes any other.
//
// It holds no state of its own: a ReplayClient belongs to whoever reads the answers.
package answerrec

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// Wrap wraps the transport of a Kubernetes client so that a request whose context carries an
// *Answer (WithAnswer) has the status and headers of its answer recorded there. Requests
// without one pass as they are. Install it with rest.Config.Wrap before the clients are made.
func Wrap(rt http.RoundTripper) http.RoundTripper { return recorder{rt} }

type recorder struct{ rt http.RoundTripper }

// Without WrappedRoundTripper client-go cannot cancel a timed-out request through the
// recorder, and logs a warning for each.
var _ utilnet.RoundTripperWrapper = recorder{}

// WrappedRoundTripper lets client-go reach the transport beneath, to cancel a request.
func (r recorder) WrappedRoundTripper() http.RoundTripper { return r.rt }

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rt.RoundTrip(req)
	if a, ok := req.Context().Value(answerKey{}).(*Answer); ok && resp != nil {
		a.Status, a.Header = resp.StatusCode, resp.Header.Clone()
	}
	return resp, err
}

// answerKey carries an *Answer in a request's context.
type answerKey struct{}

// Answer is the status and headers of the last answer to a request (a retried request's
// last): Status 0 when the transport does not record (Wrap is not installed).
type Answer struct {
	Status int
	Header http.Header
}

// WithAnswer returns ctx asking that the status and headers of the answer to a request made
// with it be recorded in a.
func WithAnswer(ctx context.Context, a *Answer) context.Context {
	return context.WithValue(ctx, answerKey{}, a)
}

// ReplayClient is a client of core/v1 whose every request is answered with the answer in its
// context (WithReplay): client-go then decodes, or refuses, an answer read already exactly as
// Request.Do would have, errors and all. Its zero value is ready; the client is made at the
// first Get and kept.
type ReplayClient struct {
	once   sync.Once
	client rest.Interface
	err    error
}

// Get returns the client, made at the first call.
func (r *ReplayClient) Get() (rest.Interface, error) {
	r.once.Do(func() {
		core, err := corev1client.NewForConfig(&rest.Config{Host: "http://karpnet.invalid", QPS: -1, Transport: replayTransport{}})
		if err != nil {
			r.err = err
			return
		}
		r.client = core.RESTClient()
	})
	return r.client, r.err
}

// replayKey carries the *Replay a request of a ReplayClient is answered with.
type replayKey struct{}

// Replay is an answer read already: its status and headers, its body, and the error that
// ended reading it, if any (the body is then what was read before it).
type Replay struct {
	Status int
	Header http.Header
	Body   []byte
	Err    error
}

// WithReplay returns ctx with which a request of a ReplayClient is answered with r.
func WithReplay(ctx context.Context, r *Replay) context.Context {
	return context.WithValue(ctx, replayKey{}, r)
}

type replayTransport struct{}

func (replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r, _ := req.Context().Value(replayKey{}).(*Replay)
	if r == nil {
		return nil, io.ErrUnexpectedEOF
	}
	body := io.MultiReader(bytes.NewReader(r.Body), errReader{r.Err})
	return &http.Response{StatusCode: r.Status, Header: r.Header, Body: io.NopCloser(body), Request: req}, nil
}

// errReader reads as err, or as the end when err is nil.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}
