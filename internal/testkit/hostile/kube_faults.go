package hostile

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// fault bends the answers to the requests under one path prefix. The zero fault, and a nil
// one, change nothing.
type fault struct {
	delay  time.Duration
	tokens Tokens
	// status, when set, answers a metav1.Status failure with this code.
	status int
	// raw, when set, is the whole answer.
	raw *rawAnswer
}

// rawAnswer is a fixed answer: status, content type and body.
type rawAnswer struct {
	status      int
	contentType string
	body        string
}

// Delay makes every answer to a path under prefix wait d first (a request given up stops
// the wait), as an API server or watch cache under load does.
func (k *Kube) Delay(prefix string, d time.Duration) { k.set(prefix, func(f *fault) { f.delay = d }) }

// Page makes every list under prefix answer with continue tokens bent by t.
func (k *Kube) Page(prefix string, t Tokens) { k.set(prefix, func(f *fault) { f.tokens = t }) }

// Fail makes every request under prefix answer a Status failure with code: 401
// Unauthorized, 403 Forbidden (naming the verb, resource and a service account, as RBAC does), 404
// NotFound, 429 TooManyRequests, 500 InternalError, 503 ServiceUnavailable, else BadRequest.
func (k *Kube) Fail(prefix string, code int) {
	k.set(prefix, func(f *fault) { f.status = code })
}

// Body makes every request under prefix get the raw answer body with status and content
// type: a captive portal's login page, a proxy's error page, broken JSON.
func (k *Kube) Body(prefix string, status int, contentType, body string) {
	k.set(prefix, func(f *fault) { f.raw = &rawAnswer{status: status, contentType: contentType, body: body} })
}

// Clear removes every fault.
func (k *Kube) Clear() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.faults = map[string]*fault{}
}

// set changes the fault of prefix with change.
func (k *Kube) set(prefix string, change func(*fault)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f := k.faults[prefix]
	if f == nil {
		f = &fault{}
		k.faults[prefix] = f
	}
	change(f)
}

// faultFor returns a copy of the fault of the longest prefix of p, or the zero fault. k.mu
// must be held.
func (k *Kube) faultFor(p string) *fault {
	best, found := "", false
	for prefix := range k.faults {
		if strings.HasPrefix(p, prefix) && (!found || len(prefix) > len(best)) {
			best, found = prefix, true
		}
	}
	if !found {
		return &fault{}
	}
	f := *k.faults[best]
	return &f
}

// wait sleeps the fault's delay; it reports false when the request was given up meanwhile.
func (f *fault) wait(r *http.Request) bool {
	if f.delay <= 0 {
		return true
	}
	t := time.NewTimer(f.delay)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-t.C:
		return true
	}
}

// answer writes the fault's own answer, if it has one, and reports whether it did.
func (f *fault) answer(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case f.raw != nil:
		w.Header().Set("Content-Type", f.raw.contentType)
		w.WriteHeader(f.raw.status)
		_, _ = w.Write([]byte(f.raw.body))
		return true
	case f.status != 0:
		reason, message := statusFor(f.status, r.URL.Path)
		writeStatus(w, f.status, reason, message)
		return true
	}
	return false
}

// resourceOf returns the resource a request path names and the verb RBAC would check: get for
// one object, list for a collection.
func resourceOf(p string) (resource, verb string) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return p, "get"
	}
	if len(parts) >= 2 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	switch len(parts) {
	case 0:
		return p, "get"
	case 1:
		return parts[0], "list"
	}
	return parts[0], "get"
}

// statusFor returns the reason and message an API server gives with code for a request path.
func statusFor(code int, p string) (reason, message string) {
	switch code {
	case http.StatusUnauthorized:
		return "Unauthorized", "Unauthorized"
	case http.StatusForbidden:
		resource, verb := resourceOf(p)
		return "Forbidden", fmt.Sprintf(`%s is forbidden: User "system:serviceaccount:ops:karpnet" cannot %s resource %q at the cluster scope`,
			resource, verb, resource)
	case http.StatusNotFound:
		return "NotFound", "the server could not find the requested resource"
	case http.StatusTooManyRequests:
		return "TooManyRequests", "too many requests, please try again later"
	case http.StatusInternalServerError:
		return "InternalError", "Internal error occurred: etcdserver: request timed out"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailable", "the server is currently unable to handle the request"
	}
	return "BadRequest", "bad request"
}
