package collect

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/karpnet/kubectl-karpnet/internal/answerrec"
	"github.com/karpnet/kubectl-karpnet/internal/kubestream"
)

// kubeNodePage is one page of the node list: its list metadata and its nodes, still encoded
// one by one when the API server answered in protobuf, decoded already otherwise (a JSON
// answer, the typed client of tests).
type kubeNodePage struct {
	meta  metav1.ListMeta
	items [][]byte // each node's protobuf, slices of the answer
	nodes []corev1.Node
	buf   *bytes.Buffer  // the answer items are slices of, from pool
	pool  *answerBuffers // the Collector's kubePages
	more  bool           // more pages of the same answer follow
	total int64          // how many nodes the list holds, as the API server said at its start; -1 if not
}

// release gives the page's answer back to its pool once its nodes are decoded (they hold
// copies of what they read).
func (p *kubeNodePage) release() {
	if p.buf != nil {
		p.items = nil
		p.pool.Put(p.buf)
		p.buf = nil
	}
}

// decode appends the page's nodes that keep accepts to out, each decoded in place, one at a
// time, without the fields kubestream.StripNode drops. out's room past its length must be zero
// (as make and append leave it): a node is decoded into it as it is, since writing a zero
// Node there first costs a write barrier on each of its pointers while the runtime collects
// (0.7 s of 100,000 nodes).
func (p *kubeNodePage) decode(out []corev1.Node, keep func(*corev1.Node) bool) ([]corev1.Node, error) {
	for _, b := range p.items {
		if len(out) < cap(out) {
			out = out[:len(out)+1]
		} else {
			out = append(out, corev1.Node{})
		}
		n := &out[len(out)-1]
		if err := kubestream.DecodeNode(n, b); err != nil {
			*n = corev1.Node{}
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

// kubeNodePages lists the nodes matching selector, passing each page to visit in order, each
// with how many nodes the API server said the list holds (total, -1 when it did not say).
//
// The list is asked for at resourceVersion "0", from the API server's watch cache, which
// answers it whole however many nodes there are (a limit is ignored there): at 100,000 nodes
// that is one answer of about 400 MB in 5 s instead of 200 consistent pages of 500 read from
// etcd in 20 s or more, and it spares etcd during an incident. The answer is read as it comes
// and handed on in pages of the page size, never held whole. A server that answers from etcd
// instead pages the list, and the pages after the first are read as before. Since the cache
// gives no count, a first request of one node says how many there are, so that how EC2 is read
// can be chosen at the first page.
//
// Pages wait to be visited while the next are read: at most two. A page that cannot be read,
// or a list whose pages do not end (*kubePagingError), ends it after the pages before it were
// visited.
func (c *Collector) kubeNodePages(ctx context.Context, selector string, visit func(*kubeNodePage) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	total := int64(-1)
	if c.REST != nil {
		probe, err := c.kubeNodePage(ctx, metav1.ListOptions{Limit: 1, LabelSelector: selector}, func(p *kubeNodePage) error {
			p.release()
			return nil
		})
		if err != nil {
			return err
		}
		if probe.RemainingItemCount != nil {
			total = *probe.RemainingItemCount + 1
		}
	}
	pages := make(chan *kubeNodePage, 1)
	listed := make(chan error, 1)
	go func() {
		defer close(pages)
		send := func(page *kubeNodePage) error {
			page.total = total
			select {
			case pages <- page:
				return nil
			case <-ctx.Done():
				page.release()
				return ctx.Err()
			}
		}
		opts := metav1.ListOptions{Limit: c.kubePageSize(), LabelSelector: selector, ResourceVersion: "0"}
		listed <- kubePaginate(opts, func(opts metav1.ListOptions) (string, error) {
			meta, err := c.kubeNodePage(ctx, opts, send)
			if err != nil {
				return "", err
			}
			return meta.Continue, nil
		})
	}()
	for page := range pages {
		err := visit(page)
		page.release()
		if err != nil {
			cancel()
			for page := range pages {
				page.release()
			}
			<-listed
			return err
		}
	}
	return <-listed
}

// kubeNodePage reads one answer of the node list, passing its nodes to emit in pages of at
// most the page size, and returns the answer's list metadata. A protobuf answer is read as it
// comes and split into its nodes without decoding them (kubestream.StreamNodeList); any other is read
// whole and decoded by client-go from the bytes read (Collector.replay), as Request.Do decodes
// it. Without RecordKubeAnswers on the transport the answer's content type is not known: it is
// taken for protobuf when it starts as protobuf does, and for JSON otherwise.
func (c *Collector) kubeNodePage(ctx context.Context, opts metav1.ListOptions, emit func(*kubeNodePage) error) (metav1.ListMeta, error) {
	if c.REST == nil {
		list, err := c.Kube.CoreV1().Nodes().List(ctx, opts)
		if err != nil {
			return metav1.ListMeta{}, err
		}
		return list.ListMeta, emit(&kubeNodePage{meta: list.ListMeta, nodes: list.Items})
	}
	request := func(client rest.Interface) *rest.Request {
		return client.Get().AbsPath("/api/v1/nodes").UseProtobufAsDefaultIfPreferred(true).
			VersionedParams(&opts, scheme.ParameterCodec).Timeout(0)
	}
	rec := &answerrec.Answer{}
	body, err := request(c.REST).Stream(answerrec.WithAnswer(ctx, rec))
	if err != nil {
		return metav1.ListMeta{}, err // as Request.Do fails: Stream turns an answer that is not 2xx into the same error
	}
	in := bufio.NewReaderSize(body, 64<<10)
	contentType := rec.Header.Get("Content-Type")
	protobuf := strings.HasPrefix(contentType, runtime.ContentTypeProtobuf)
	if rec.Status == 0 {
		// Not recorded: a 2xx answer (Stream took it), protobuf when it starts as one does and
		// else JSON, the API server's other encoding.
		rec.Status, rec.Header = http.StatusOK, http.Header{"Content-Type": {"application/json"}}
		start, _ := in.Peek(len(kubestream.ProtobufPrefix))
		protobuf = string(start) == kubestream.ProtobufPrefix
	}
	if protobuf {
		defer body.Close()
		meta, err := kubestream.StreamNodeList(in, int(opts.Limit), &c.kubePages, func(p *kubestream.NodePage) error {
			return emit(&kubeNodePage{meta: p.Meta, items: p.Items, buf: p.Buf, pool: &c.kubePages, more: p.More})
		})
		if answer := (*kubestream.AnswerError)(nil); errors.As(err, &answer) {
			err = &kubeAnswerError{what: "node list", status: rec.Status, contentType: contentType, err: answer.Err}
		}
		return meta, err
	}
	buf, rerr := kubeReadAnswer(struct {
		io.Reader
		io.Closer
	}{in, body}, &c.kubePages)
	defer c.kubePages.Put(buf)
	replay, err := c.replay.Get()
	if err != nil {
		return metav1.ListMeta{}, err
	}
	answer := &answerrec.Replay{Status: rec.Status, Header: rec.Header, Body: buf.Bytes(), Err: rerr}
	page, err := kubeNodePageOf(request(replay).Do(answerrec.WithReplay(ctx, answer)))
	if err != nil {
		return metav1.ListMeta{}, err
	}
	return page.meta, emit(page)
}

// kubeNodePageOf decodes the answer res of Request.Do to a page of the node list. Only answers
// that are not protobuf are read this way (kubeNodePage streams protobuf).
func kubeNodePageOf(res rest.Result) (*kubeNodePage, error) {
	list := &corev1.NodeList{}
	if err := kubeInto(res, "node list", list); err != nil {
		return nil, err
	}
	return &kubeNodePage{meta: list.ListMeta, nodes: list.Items}, nil
}
