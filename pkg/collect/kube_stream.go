package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kubeStreamList lists gvr with opts through Collector.REST and decodes the answer one object
// at a time, passing each to visit, and returns the list's continue token. Objects are
// decoded exactly as the dynamic client decodes them, but the answer is never held whole:
// memory stays at one object however many thousands the list has.
func (c *Collector) kubeStreamList(ctx context.Context, gvr schema.GroupVersionResource, opts metav1.ListOptions, visit func(*unstructured.Unstructured)) (string, error) {
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
	body, err := req.Stream(ctx)
	if err != nil {
		return "", err
	}
	defer body.Close()
	next, err := kubeDecodeListStream(body, visit)
	switch {
	case err == nil:
		return next, nil
	case kubeIsTimeout(err) || kubeIsTransport(err) || errors.Is(err, context.Canceled):
		return "", err // the answer stopped coming: a timeout, a lost connection
	}
	// The server answered, so a broken answer is a gap in what was read, not an unreachable
	// server.
	return "", &kubeAnswerError{what: gvr.Resource + " list", err: err}
}

// kubeDecodeListStream reads a JSON list object from r, passing each of its items to visit, and
// returns metadata.continue.
func kubeDecodeListStream(r io.Reader, visit func(*unstructured.Unstructured)) (string, error) {
	dec := json.NewDecoder(r)
	if err := kubeExpectDelim(dec, '{'); err != nil {
		return "", err
	}
	var meta metav1.ListMeta
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch tok {
		case "items":
			if err := kubeDecodeItems(dec, visit); err != nil {
				return "", err
			}
		case "metadata":
			if err := dec.Decode(&meta); err != nil {
				return "", fmt.Errorf("decoding the list metadata: %w", err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return "", err
			}
		}
	}
	return meta.Continue, kubeExpectDelim(dec, '}')
}

// kubeDecodeItems reads a JSON array of objects (or null), passing each to visit.
func kubeDecodeItems(dec *json.Decoder, visit func(*unstructured.Unstructured)) error {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("items: got %v, want an array", tok)
	}
	var raw json.RawMessage
	for dec.More() {
		raw = raw[:0]
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return fmt.Errorf("decoding an item: %w", err)
		}
		visit(u)
	}
	return kubeExpectDelim(dec, ']')
}

// kubeExpectDelim reads the next token and fails unless it is want.
func kubeExpectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("the answer ended early, before %q", want)
		}
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("got %v, want %q", tok, want)
	}
	return nil
}
