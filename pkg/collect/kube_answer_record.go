package collect

import (
	"bytes"
	"io"
	"net/http"

	"github.com/karpnet/kubectl-karpnet/internal/answerrec"
)

// RecordKubeAnswers wraps the transport of a Kubernetes client so that the node list, read
// with Request.Stream (which gives the body only) into a buffer the Collector reuses, has the
// status and headers of its answers recorded (answerrec.Wrap): Request.Do reads every page
// into a new buffer, grown as it reads (at 100,000 nodes, 900 MB of garbage, the most of any
// part of a collection). Other requests pass as they are. Install it with rest.Config.Wrap
// before the clients are made.
func RecordKubeAnswers(rt http.RoundTripper) http.RoundTripper { return answerrec.Wrap(rt) }

// kubeReadAnswer reads body into a buffer of pages, the caller's to put back.
func kubeReadAnswer(body io.ReadCloser, pages *answerBuffers) (*bytes.Buffer, error) {
	defer body.Close()
	buf := pages.Get()
	_, err := buf.ReadFrom(body)
	pages.Read(buf.Len())
	return buf, err
}
