package collect

import (
	"bytes"
	"io"
	"net/http"
	"sync"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// RecordKubeAnswers wraps the transport of a Kubernetes client so that a request whose
// context carries a *kubeAnswerRecord has the status and headers of its answer recorded
// there. The node list is read with Request.Stream, which gives the body only, into a buffer
// karpnet reuses: Request.Do reads every page into a new buffer, grown as it reads (at 100,000
// nodes, 900 MB of garbage, the most of any part of a collection). Requests without a record
// pass as they are. Install it with rest.Config.Wrap before the clients are made.
func RecordKubeAnswers(rt http.RoundTripper) http.RoundTripper { return kubeAnswerRecorder{rt} }

type kubeAnswerRecorder struct{ rt http.RoundTripper }

// Without WrappedRoundTripper client-go cannot cancel a timed-out request through the
// recorder, and logs a warning for each.
var _ utilnet.RoundTripperWrapper = kubeAnswerRecorder{}

// WrappedRoundTripper lets client-go reach the transport beneath, to cancel a request.
func (r kubeAnswerRecorder) WrappedRoundTripper() http.RoundTripper { return r.rt }

func (r kubeAnswerRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rt.RoundTrip(req)
	if rec, ok := req.Context().Value(kubeAnswerKey{}).(*kubeAnswerRecord); ok && resp != nil {
		rec.status, rec.header = resp.StatusCode, resp.Header.Clone()
	}
	return resp, err
}

// kubeAnswerKey carries a *kubeAnswerRecord in a request's context.
type kubeAnswerKey struct{}

// kubeAnswerRecord is the status and headers of the last answer to a request (a retried
// request's last): status 0 when the transport does not record (RecordKubeAnswers is not
// installed).
type kubeAnswerRecord struct {
	status int
	header http.Header
}

// kubeReplayClient makes, once, a client of core/v1 whose every request is answered with the
// answer in its context (kubeReplayKey): client-go then decodes, or refuses, an answer karpnet
// has already read exactly as Request.Do would have, errors and all. Each Collector has its
// own (Collector.replay).
type kubeReplayClient struct {
	once   sync.Once
	client rest.Interface
	err    error
}

// get returns the client, made at the first call.
func (r *kubeReplayClient) get() (rest.Interface, error) {
	r.once.Do(func() {
		kube, err := kubernetes.NewForConfig(&rest.Config{Host: "http://karpnet.invalid", QPS: -1, Transport: kubeReplayTransport{}})
		if err != nil {
			r.err = err
			return
		}
		r.client = kube.CoreV1().RESTClient()
	})
	return r.client, r.err
}

// kubeReplayKey carries the *kubeReplay a request of a kubeReplayClient is answered with.
type kubeReplayKey struct{}

// kubeReplay is an answer read already: its status and headers, its body, and the error that
// ended reading it, if any.
type kubeReplay struct {
	status int
	header http.Header
	body   []byte
	err    error
}

type kubeReplayTransport struct{}

func (kubeReplayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r, _ := req.Context().Value(kubeReplayKey{}).(*kubeReplay)
	if r == nil {
		return nil, io.ErrUnexpectedEOF
	}
	body := io.MultiReader(bytes.NewReader(r.body), errReader{r.err})
	return &http.Response{StatusCode: r.status, Header: r.header, Body: io.NopCloser(body), Request: req}, nil
}

// kubeReadAnswer reads body into a buffer of pages, the caller's to put back.
func kubeReadAnswer(body io.ReadCloser, pages *answerBuffers) (*bytes.Buffer, error) {
	defer body.Close()
	buf := pages.Get()
	_, err := buf.ReadFrom(body)
	pages.Read(buf.Len())
	return buf, err
}
