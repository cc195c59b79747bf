package collect

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/karpnet/kubectl-karpnet/internal/oneline"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeError is an error with its own message that wraps a sentinel and a cause.
type kubeError struct {
	msg  string
	errs []error
}

func (e *kubeError) Error() string   { return e.msg }
func (e *kubeError) Unwrap() []error { return e.errs }

// kubeAnswerError is an answer of the API server that is not the Kubernetes object asked for
// (what: "node list", "nodeclaims list"; "" for any object): an HTML page from a proxy or
// captive portal, broken or cut JSON. status and contentType are the HTTP answer's, 0 and ""
// when unknown.
type kubeAnswerError struct {
	what        string
	status      int
	contentType string
	err         error
}

func (e *kubeAnswerError) Error() string {
	var answer []string
	if e.status != 0 {
		answer = append(answer, fmt.Sprintf("HTTP %d", e.status))
	}
	if e.contentType != "" {
		answer = append(answer, oneline.Text(e.contentType, 60))
	}
	how := ""
	if len(answer) > 0 {
		how = " (" + strings.Join(answer, ", ") + ")"
	}
	what := e.what
	if what == "" {
		what = "object"
	}
	return fmt.Sprintf("the API server answered%s with something that is not a Kubernetes %s: %s", how, what, oneline.Text(e.err.Error(), 200))
}

func (e *kubeAnswerError) Unwrap() error { return e.err }

// kubeProxyRemedy is what to check when the API server's answer is not Kubernetes'.
const kubeProxyRemedy = "check the server URL of --context/--kubeconfig and any proxy in front of the API server (HTTPS_PROXY)"

// kubeFail records err, met while reading source with verb on resource after the nodes, as a
// Gap in s, or returns the error that ends collection: credentials refused, a cancelled run.
// A source that is forbidden, fails, answers something that is not Kubernetes, does not
// answer within --request-timeout, stops answering or pages without end is a Gap: the nodes
// were read, so the report can still be made.
func (c *Collector) kubeFail(s *snapshot.Snapshot, source, verb, resource string, err error) error {
	gap := func(reason, remedy string) error {
		s.Gaps = append(s.Gaps, snapshot.Gap{Source: source, Reason: reason, Remedy: remedy})
		return nil
	}
	var paging *kubePagingError
	var answer *kubeAnswerError
	var tooLong *kubeTooLongError
	var status apierrors.APIStatus
	switch {
	case apierrors.IsUnauthorized(err):
		return kubeCredentialsRefused(err)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("reading %s: %w", source, err)
	case apierrors.IsForbidden(err):
		return gap("forbidden", fmt.Sprintf("grant %s on %s (see the ClusterRole in docs/permissions.md)", verb, resource))
	case errors.As(err, &paging):
		s.Gaps = append(s.Gaps, kubePagingGap(source, verb, resource, paging))
		return nil
	case errors.As(err, &tooLong):
		return gap(tooLong.Error(), fmt.Sprintf("check what fills %s (objects written in a loop, a proxy between karpnet and the "+
			"API server): karpnet stops reading there rather than hold it all", resource))
	case errors.As(err, &answer):
		return gap(answer.Error(), kubeProxyRemedy)
	case errors.As(err, &status):
		return gap(kubeReason(err), fmt.Sprintf("retry later; the API server answered %s %s: %s", verb, resource, oneline.Text(err.Error(), 300)))
	case kubeIsTimeout(err):
		return gap("timeout: no answer in time ("+oneline.Text(kubeCause(err).Error(), 200)+")",
			fmt.Sprintf("retry, or raise --request-timeout: the API server was slow to answer %s %s", verb, resource))
	case kubeIsTransport(err):
		return gap("no answer: "+oneline.Text(kubeCause(err).Error(), 200),
			fmt.Sprintf("retry; the API server stopped answering %s %s after the nodes were read", verb, resource))
	}
	return gap((&kubeAnswerError{err: err}).Error(), kubeProxyRemedy)
}

// kubeNodesFail returns the error that ends collection for err, met while reading the nodes
// with verb (what names the nodes asked for): without nodes there is no report, so every
// failure ends the run, each saying what to do. An answer that is not nodes is known as such
// only through Collector.REST (kubeDo); any other error is taken for an unreachable server.
func (c *Collector) kubeNodesFail(verb, what string, err error) error {
	fail := func(format string, args ...any) error {
		return &kubeError{msg: fmt.Sprintf("cannot %s %s: ", verb, what) + fmt.Sprintf(format, args...),
			errs: []error{ErrNodesUnreadable, err}}
	}
	var answer *kubeAnswerError
	var status apierrors.APIStatus
	switch {
	case apierrors.IsUnauthorized(err):
		return kubeCredentialsRefused(err)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("reading nodes: %w", err)
	case apierrors.IsForbidden(err):
		grant := "get/list"
		if verb == "get" {
			grant = "get"
		}
		return fail("forbidden (%s): grant %s on nodes (see the ClusterRole in docs/permissions.md)", oneline.Text(err.Error(), 200), grant)
	case errors.As(err, &answer):
		return fail("%s: %s", answer.Error(), kubeProxyRemedy)
	case errors.As(err, &status):
		code := status.Status().Code
		if code >= 500 {
			return fail("the API server failed (HTTP %d %s: %s): retry later, or check the API server's health",
				code, kubeReason(err), oneline.Text(err.Error(), 200))
		}
		return fail("the API server answered HTTP %d %s (%s): check --context/--kubeconfig", code, kubeReason(err), oneline.Text(err.Error(), 200))
	}
	// A timeout, a lost connection, or an error without an answer.
	return c.kubeUnreachable(err)
}

// kubeCredentialsRefused is the error for credentials the API server refused.
func kubeCredentialsRefused(err error) error {
	return &kubeError{
		msg:  fmt.Sprintf("the API server refused the credentials: %s: log in again or check --user", oneline.Text(err.Error(), 200)),
		errs: []error{ErrAPIServer, err},
	}
}

// kubeIsTimeout reports whether err is a request that got no answer in time.
func kubeIsTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &t) && t.Timeout())
}

// kubeIsTransport reports whether err is a failure to reach the API server or to read its
// answer, rather than an answer.
func kubeIsTransport(err error) bool {
	var uerr *url.Error
	var nerr net.Error
	return errors.As(err, &uerr) || errors.As(err, &nerr) || strings.Contains(err.Error(), "when reading response body")
}

// kubeCause returns the cause of a *url.Error, else err.
func kubeCause(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return uerr.Err
	}
	return err
}

// kubeUnreachable builds the error for an API server that did not answer at all.
func (c *Collector) kubeUnreachable(err error) error {
	where, cause := c.Cluster, err
	var uerr *url.Error
	if errors.As(err, &uerr) {
		cause = uerr.Err
		if u, perr := url.Parse(uerr.URL); perr == nil && u.Host != "" {
			where = u.Scheme + "://" + u.Host
		}
	}
	if where == "" {
		where = "the configured address"
	}
	return &kubeError{
		msg:  fmt.Sprintf("cannot reach the API server at %s: %s: check --context/--kubeconfig", where, oneline.Text(cause.Error(), 200)),
		errs: []error{ErrAPIServer, err},
	}
}

// kubePagingGap is the Gap of a list of resource whose pages did not end; what was read is kept.
func kubePagingGap(source, verb, resource string, err *kubePagingError) snapshot.Gap {
	return snapshot.Gap{
		Source: source,
		Reason: err.Error(),
		Remedy: fmt.Sprintf("retry; if the %s %s pages still do not end, check the API server and any proxy in front of it "+
			"(what was read is kept)", verb, resource),
	}
}

// kubeReason returns a short reason for an API status error.
func kubeReason(err error) string {
	if r := apierrors.ReasonForError(err); r != "" {
		return string(r)
	}
	return "error"
}
