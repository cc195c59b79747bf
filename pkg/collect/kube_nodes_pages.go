package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// kubeNodePage is one page of the node list: its list metadata and its nodes, still encoded
// one by one when the API server answered in protobuf, decoded already otherwise (a JSON
// answer, the typed client of tests).
type kubeNodePage struct {
	meta  metav1.ListMeta
	items [][]byte // each node's protobuf, slices of the answer
	nodes []corev1.Node
}

// decode appends the page's nodes that keep accepts to out, each decoded in place, one at a
// time, without the fields kubeStripNode drops.
func (p *kubeNodePage) decode(out []corev1.Node, keep func(*corev1.Node) bool) ([]corev1.Node, error) {
	for _, b := range p.items {
		out = append(out, corev1.Node{})
		n := &out[len(out)-1]
		if err := kubeDecodeNode(n, b); err != nil {
			return out[:len(out)-1], &kubeAnswerError{what: "node list", err: fmt.Errorf("decoding a node: %w", err)}
		}
		if !keep(n) {
			*n = corev1.Node{}
			out = out[:len(out)-1]
		}
	}
	for i := range p.nodes {
		if keep(&p.nodes[i]) {
			out = append(out, p.nodes[i])
		}
	}
	return out, nil
}

// kubeNodePages lists the nodes matching selector, passing each page to visit in order. Each
// page is requested as soon as the one before it has come in, while that one is decoded and
// visited: at 100,000 nodes the list is 200 pages, and the API server's time for one page
// overlaps karpnet's decoding of the last. At most two pages wait to be visited. A page that
// cannot be read, or a list whose pages do not end (*kubePagingError), ends it after the
// pages before it were visited.
func (c *Collector) kubeNodePages(ctx context.Context, selector string, visit func(*kubeNodePage) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan *kubeNodePage, 1)
	listed := make(chan error, 1)
	go func() {
		defer close(pages)
		listed <- kubePaginate(metav1.ListOptions{Limit: c.kubePageSize(), LabelSelector: selector}, func(opts metav1.ListOptions) (string, error) {
			page, err := c.kubeNodePage(ctx, opts)
			if err != nil {
				return "", err
			}
			select {
			case pages <- page:
			case <-ctx.Done():
				return "", ctx.Err()
			}
			return page.meta.Continue, nil
		})
	}()
	for page := range pages {
		if err := visit(page); err != nil {
			cancel()
			for range pages {
			}
			<-listed
			return err
		}
	}
	return <-listed
}

// kubeNodePage reads one page of the node list. A protobuf answer is split into its nodes
// without decoding them; any other answer is decoded whole, as kubeDo decodes answers.
func (c *Collector) kubeNodePage(ctx context.Context, opts metav1.ListOptions) (*kubeNodePage, error) {
	if c.REST == nil {
		list, err := c.Kube.CoreV1().Nodes().List(ctx, opts)
		if err != nil {
			return nil, err
		}
		return &kubeNodePage{meta: list.ListMeta, nodes: list.Items}, nil
	}
	req := c.REST.Get().AbsPath("/api/v1/nodes").UseProtobufAsDefaultIfPreferred(true).
		VersionedParams(&opts, scheme.ParameterCodec).Timeout(0)
	res := req.Do(ctx)
	var status int
	var contentType string
	res.StatusCode(&status).ContentType(&contentType)
	if body, err := res.Raw(); err == nil && strings.HasPrefix(contentType, runtime.ContentTypeProtobuf) {
		page, err := kubeSplitNodeList(body)
		if err != nil {
			return nil, &kubeAnswerError{what: "node list", status: status, contentType: contentType, err: err}
		}
		return page, nil
	}
	list := &corev1.NodeList{}
	if err := kubeInto(res, "node list", list); err != nil {
		return nil, err
	}
	return &kubeNodePage{meta: list.ListMeta, nodes: list.Items}, nil
}

// kubeProtobufMagic starts every protobuf answer of the API server, before the
// runtime.Unknown envelope that holds the object.
var kubeProtobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// kubeSplitNodeList reads a protobuf NodeList answer's envelope and list metadata and keeps
// each node's bytes (field 2 of the NodeList, one per node) to be decoded later.
func kubeSplitNodeList(body []byte) (*kubeNodePage, error) {
	if !bytes.HasPrefix(body, kubeProtobufMagic) {
		return nil, errors.New("a protobuf answer without the Kubernetes protobuf prefix")
	}
	var typeMeta runtime.TypeMeta
	var raw []byte
	err := kubeProtoFields(body[len(kubeProtobufMagic):], func(num protowire.Number, v []byte) error {
		switch num {
		case 1: // runtime.Unknown.typeMeta
			return typeMeta.Unmarshal(v)
		case 2: // runtime.Unknown.raw
			raw = v
		case 3: // runtime.Unknown.contentEncoding
			if len(v) > 0 {
				return fmt.Errorf("content encoding %q, which karpnet does not read", v)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, errors.New("a protobuf answer that holds no object")
	}
	if typeMeta.Kind != "NodeList" {
		return nil, fmt.Errorf("a %q where a NodeList was asked for", typeMeta.Kind)
	}
	page := &kubeNodePage{}
	err = kubeProtoFields(raw, func(num protowire.Number, v []byte) error {
		switch num {
		case 1: // NodeList.metadata
			return page.meta.Unmarshal(v)
		case 2: // NodeList.items
			page.items = append(page.items, v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return page, nil
}

// kubeProtoFields passes each length-delimited field of the protobuf message b to f, and
// skips the others.
func kubeProtoFields(b []byte, f func(protowire.Number, []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("malformed protobuf: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return fmt.Errorf("malformed protobuf: %w", protowire.ParseError(n))
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return fmt.Errorf("malformed protobuf: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if err := f(num, v); err != nil {
			return err
		}
	}
	return nil
}
