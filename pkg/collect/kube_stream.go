package collect

import (
	"context"
	"errors"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/internal/kubestream"
)

// kubeStreamList lists gvr with opts through Collector.REST and decodes the answer one object
// at a time (kubestream.DecodeListStream), passing each to visit, and returns the list's continue token. Objects are
// decoded exactly as the dynamic client decodes them, but the answer is never held whole:
// memory stays at one object however many thousands the list has. An object longer than
// kubeMaxObject ends the list as soon as it passes the bound, with a *kubeTooLongError.
func (c *Collector) kubeStreamList(ctx context.Context, gvr schema.GroupVersionResource, opts metav1.ListOptions, items kubestream.Items, visit func(*unstructured.Unstructured)) (string, error) {
	req := c.REST.Get().AbsPath("/apis", gvr.Group, gvr.Version, gvr.Resource).SetHeader("Accept", "application/json")
	if opts.Limit > 0 {
		req = req.Param("limit", strconv.FormatInt(opts.Limit, 10))
	}
	if opts.Continue != "" {
		req = req.Param("continue", opts.Continue)
	}
	if opts.ResourceVersion != "" {
		req = req.Param("resourceVersion", opts.ResourceVersion)
	}
	if items.MaxItem == 0 {
		items.MaxItem = kubeMaxObject
	}
	body, err := req.Stream(ctx)
	if err != nil {
		return "", err
	}
	defer body.Close()
	next, err := kubestream.DecodeListStream(body, items, visit)
	var long *kubestream.ValueTooLongError
	switch {
	case err == nil:
		return next, nil
	case errors.As(err, &long):
		return "", &kubeTooLongError{path: gvr.Resource, limit: int64(long.Limit), object: true}
	case kubeIsTimeout(err) || kubeIsTransport(err) || errors.Is(err, context.Canceled):
		return "", err // the answer stopped coming: a timeout, a lost connection
	}
	// The server answered, so a broken answer is a gap in what was read, not an unreachable
	// server.
	return "", &kubeAnswerError{what: gvr.Resource + " list", err: err}
}
