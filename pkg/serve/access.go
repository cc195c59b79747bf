package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// ReportAccess says who may read /report: it holds the whole report (node names, addresses,
// subnets, security groups), so it is off unless Open is set or a Token is given. /metrics,
// /healthz and /readyz are always open, as exporters' are.
type ReportAccess struct {
	// Open serves /report to anyone who reaches the port (--report).
	Open bool
	// Token, when set, serves /report only to requests with "Authorization: Bearer TOKEN"
	// (--report-token-file); it takes precedence over Open.
	Token string
}

// enabled reports whether /report is served at all.
func (a ReportAccess) enabled() bool { return a.Open || a.Token != "" }

// allowed reports whether r may read /report; with a token, the comparison takes the same
// time whatever the request carries.
func (a ReportAccess) allowed(r *http.Request) bool {
	if a.Token == "" {
		return a.Open
	}
	given, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	want, got := sha256.Sum256([]byte(a.Token)), sha256.Sum256([]byte(strings.TrimSpace(given)))
	return subtle.ConstantTimeCompare(want[:], got[:]) == 1
}

// guard answers 404 when /report is off and 401 without the token, else calls next.
func (a ReportAccess) guard(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !a.enabled():
			text(w, http.StatusNotFound, "/report is off: start serve with --report, or --report-token-file FILE to require a bearer token\n")
		case !a.allowed(r):
			w.Header().Set("WWW-Authenticate", `Bearer realm="karpnet"`)
			text(w, http.StatusUnauthorized, "/report needs the bearer token of --report-token-file: Authorization: Bearer TOKEN\n")
		default:
			next(w, r)
		}
	}
}
