package answerrec

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// served is an answer of a test API server.
type served struct {
	status      int
	contentType string
	body        string
}

func serve(t *testing.T, a served) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", a.contentType)
		w.Header().Set("X-Karpnet-Test", "yes")
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func client(t *testing.T, url string, record bool) rest.Interface {
	t.Helper()
	cfg := &rest.Config{Host: url, QPS: -1}
	if record {
		cfg.Wrap(Wrap)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return kube.CoreV1().RESTClient()
}

// TestWrapRecordsTheAnswersAskedFor: a request streamed with an Answer in its context has its
// answer's status and headers recorded, through the wrapped transport only; one without
// passes as it is.
func TestWrapRecordsTheAnswersAskedFor(t *testing.T) {
	url := serve(t, served{http.StatusNonAuthoritativeInfo, "application/json", `{}`})
	for _, record := range []bool{true, false} {
		c := client(t, url, record)
		a := &Answer{}
		body, err := c.Get().AbsPath("/api/v1/nodes").Stream(WithAnswer(t.Context(), a))
		if err != nil {
			t.Fatal(err)
		}
		_ = body.Close()
		switch {
		case record && (a.Status != http.StatusNonAuthoritativeInfo || a.Header.Get("X-Karpnet-Test") != "yes"):
			t.Errorf("recorded %d %v, want 203 and the answer's headers", a.Status, a.Header)
		case !record && (a.Status != 0 || a.Header != nil):
			t.Errorf("without the wrapped transport recorded %d %v, want nothing", a.Status, a.Header)
		}
		if err := c.Get().AbsPath("/api/v1/nodes").Do(t.Context()).Error(); err != nil {
			t.Errorf("a request that asks for no record: %v", err)
		}
	}
}

// TestReplayDecodesAsRequestDo answers a ReplayClient's requests with what a server answered,
// read already: the node list, or the error, is the one Request.Do gives of the server's
// answer, and an answer whose reading failed fails with that error.
func TestReplayDecodesAsRequestDo(t *testing.T) {
	for name, a := range map[string]served{
		"node list":   {http.StatusOK, "application/json", `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"c"},"items":[{"metadata":{"name":"a"}}]}`},
		"HTML":        {http.StatusOK, "text/html", "<html>sign in</html>"},
		"broken JSON": {http.StatusOK, "application/json", `{"kind":"NodeList","items":[{"metadata":{"name":1}}]}`},
		"status":      {http.StatusForbidden, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","message":"nodes is forbidden","code":403}`},
		"HTML 500":    {http.StatusInternalServerError, "text/html", "<html>oops</html>"},
	} {
		t.Run(name, func(t *testing.T) {
			direct := &corev1.NodeList{}
			wantErr := client(t, serve(t, a), false).Get().AbsPath("/api/v1/nodes").Do(t.Context()).Into(direct)

			var rc ReplayClient
			replay, err := rc.Get()
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := rc.Get(); again != replay {
				t.Error("a second Get made another client")
			}
			answer := &Replay{Status: a.status, Header: http.Header{"Content-Type": {a.contentType}}, Body: []byte(a.body)}
			replayed := &corev1.NodeList{}
			err = replay.Get().AbsPath("/api/v1/nodes").Do(WithReplay(t.Context(), answer)).Into(replayed)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("replayed: %v; Request.Do: %v", err, wantErr)
			}
			if !reflect.DeepEqual(replayed, direct) {
				t.Errorf("replayed %+v, Request.Do %+v", replayed, direct)
			}
		})
	}

	var rc ReplayClient
	replay, err := rc.Get()
	if err != nil {
		t.Fatal(err)
	}
	cut := errors.New("connection reset")
	answer := &Replay{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"kind":"NodeList"`), Err: cut}
	if err := replay.Get().AbsPath("/api/v1/nodes").Do(WithReplay(t.Context(), answer)).Error(); err == nil || !strings.Contains(err.Error(), cut.Error()) {
		t.Errorf("an answer cut by %v replayed: %v, want that error", cut, err)
	}
}
