package sdkhttp

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// recorder answers every request and keeps it.
type recorder struct{ got *http.Request }

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	r.got = req
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
}

// writerToBody is a request body that, like the SDK's, implements io.WriterTo.
type writerToBody struct{ *bytes.Reader }

func (writerToBody) Close() error { return nil }

func TestReadOnlyBodies(t *testing.T) {
	rec := &recorder{}
	req, err := http.NewRequest(http.MethodPost, "http://ec2.test/", writerToBody{bytes.NewReader([]byte("Action=DescribeInstances"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := req.Body.(io.WriterTo); !ok {
		t.Fatal("the test body does not implement io.WriterTo")
	}
	if _, err := ReadOnlyBodies(rec).Do(req); err != nil {
		t.Fatal(err)
	}
	if _, ok := rec.got.Body.(io.WriterTo); ok {
		t.Error("the body sent still implements io.WriterTo")
	}
	b, err := io.ReadAll(rec.got.Body)
	if err != nil || string(b) != "Action=DescribeInstances" {
		t.Errorf("body sent: got %q, %v; want the original body", b, err)
	}

	empty, _ := http.NewRequest(http.MethodGet, "http://ec2.test/", nil)
	if _, err := ReadOnlyBodies(rec).Do(empty); err != nil || rec.got.Body != nil {
		t.Errorf("a request without body: got body %v, error %v; want it left nil", rec.got.Body, err)
	}
}
