// Package sdkhttp adapts the HTTP side of the AWS SDK: the client, so that a fast endpoint
// does not cost retried requests (ReadOnlyBodies), and the answers of EC2's query protocol,
// which are checked to be EC2's XML, of bounded length, before the SDK decodes them
// (QueryAnswers).
package sdkhttp

import (
	"io"
	"net/http"
)

// Doer is the HTTP client the AWS SDK calls (the Do method of its HTTPClient options).
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// ReadOnlyBodies returns a client that sends each request through next with its body reduced
// to Read and Close. When an endpoint answers before net/http's write loop has finished with
// the body (common on loopback and other very fast paths), the SDK closes the body; the
// SDK's body then answers io.EOF to WriteTo, which makes net/http drop the connection while
// the answer is being read ("use of closed network connection"), and the SDK retries a call
// that had succeeded. Without WriteTo a closed body simply ends.
func ReadOnlyBodies(next Doer) Doer { return readOnlyBodies{next: next} }

type readOnlyBodies struct{ next Doer }

type readOnlyBody struct{ io.ReadCloser }

// Do sends r with its body reduced to Read and Close.
func (c readOnlyBodies) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = readOnlyBody{r.Body}
	}
	return c.next.Do(r)
}
