package kubestream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

// countedBuffers are Buffers that count the buffers handed out and not given back.
type countedBuffers struct {
	out     map[*bytes.Buffer]bool
	longest int
}

func newCountedBuffers() *countedBuffers { return &countedBuffers{out: map[*bytes.Buffer]bool{}} }

func (c *countedBuffers) Get() *bytes.Buffer {
	b := new(bytes.Buffer)
	c.out[b] = true
	return b
}

func (c *countedBuffers) Put(b *bytes.Buffer) {
	if !c.out[b] {
		panic("a buffer given back twice, or not handed out")
	}
	delete(c.out, b)
}

func (c *countedBuffers) Read(n int) { c.longest = max(c.longest, n) }

// streamAll reads body with StreamNodeList a byte at a time, in pages of batch, and
// returns the pages' items and whether more was said of each. Every buffer handed out is
// given back: the pages' by the visit, the others by StreamNodeList, whatever the answer.
func streamAll(body []byte, batch int) ([][]byte, []bool, error) {
	var items [][]byte
	var more []bool
	bufs := newCountedBuffers()
	_, err := StreamNodeList(bufio.NewReaderSize(iotest.OneByteReader(bytes.NewReader(body)), 16), batch, bufs, func(p *NodePage) error {
		for _, it := range p.Items {
			items = append(items, bytes.Clone(it))
		}
		more = append(more, p.More)
		bufs.Put(p.Buf)
		return nil
	})
	if len(bufs.out) != 0 {
		panic(fmt.Sprintf("%d buffers not given back", len(bufs.out)))
	}
	return items, more, err
}

// protoNodeList encodes a NodeList of the named nodes as the API server answers in protobuf,
// with cont as its continue token.
func protoNodeList(t testing.TB, cont string, names ...string) []byte {
	t.Helper()
	list := &corev1.NodeList{ListMeta: metav1.ListMeta{Continue: cont, ResourceVersion: "42"}}
	for _, name := range names {
		list.Items = append(list.Items, corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"topology.kubernetes.io/zone": "us-west-2a", "karpenter.sh/nodepool": "default"}},
			Spec:       corev1.NodeSpec{ProviderID: "aws:///us-west-2a/i-0" + strings.Repeat("1", 16)},
			Status: corev1.NodeStatus{
				Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.1.10"}},
				Images:    []corev1.ContainerImage{{Names: []string{"public.ecr.aws/eks/pause:3.10"}, SizeBytes: 300000}},
			},
		})
	}
	enc := scheme.Codecs.EncoderForVersion(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), corev1.SchemeGroupVersion)
	body, err := runtime.Encode(enc, list)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// wholeNodeList decodes a protobuf NodeList answer whole, as the API machinery's protobuf
// serializer does: the envelope and the list by their generated decoders. It is what the
// streamed read is held to.
func wholeNodeList(body []byte) (*corev1.NodeList, error) {
	if !bytes.HasPrefix(body, []byte(ProtobufPrefix)) {
		return nil, errors.New("no protobuf prefix")
	}
	var unknown runtime.Unknown
	if err := unknown.Unmarshal(body[len([]byte(ProtobufPrefix)):]); err != nil {
		return nil, err
	}
	if unknown.Kind != "NodeList" || unknown.ContentEncoding != "" || unknown.Raw == nil {
		return nil, fmt.Errorf("not a NodeList: %q, encoding %q", unknown.Kind, unknown.ContentEncoding)
	}
	list := &corev1.NodeList{}
	return list, list.Unmarshal(unknown.Raw)
}

// sameNodes reports how the streamed items differ from the whole decode's nodes, "" when
// each item decodes to the node in its place.
func sameNodes(items [][]byte, whole *corev1.NodeList) string {
	if len(items) != len(whole.Items) {
		return fmt.Sprintf("%d nodes streamed, %d in the whole decode", len(items), len(whole.Items))
	}
	for i, b := range items {
		var n corev1.Node
		if err := n.Unmarshal(b); err != nil {
			return fmt.Sprintf("node %d streamed does not decode: %v", i, err)
		}
		if !reflect.DeepEqual(&n, &whole.Items[i]) {
			return fmt.Sprintf("node %d streamed decodes to %s, the whole decode has %s", i, n.Name, whole.Items[i].Name)
		}
	}
	return ""
}

// TestStreamNodeListInPages reads a protobuf NodeList as it comes, a byte at a time, in pages
// of three: the nodes are the whole decode's, in order, the pages are of three, three and one,
// and only the last says no more follow.
func TestStreamNodeListInPages(t *testing.T) {
	body := protoNodeList(t, "", "a", "b", "c", "d", "e", "f", "g")
	whole, err := wholeNodeList(body)
	if err != nil {
		t.Fatal(err)
	}
	items, more, err := streamAll(body, 3)
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameNodes(items, whole); diff != "" {
		t.Error(diff)
	}
	if fmt.Sprint(more) != "[true true false]" {
		t.Errorf("pages said more: %v, want [true true false]", more)
	}
	empty, more, err := streamAll(protoNodeList(t, ""), 3)
	if err != nil || len(empty) != 0 || fmt.Sprint(more) != "[false]" {
		t.Errorf("an empty list: %d nodes, pages %v, %v; want one empty last page", len(empty), more, err)
	}
}

// TestStreamNodeListRefusesBrokenAnswers cuts an answer at every byte and breaks its prefix,
// its kind and its lengths: each is an answer error (or, cut past the list, the whole list),
// a length the answer does not hold makes no room for it, and an answer that stops coming
// fails as Request.Do fails.
func TestStreamNodeListRefusesBrokenAnswers(t *testing.T) {
	body := protoNodeList(t, "", "a", "b")
	for cut := range len(body) {
		items, _, err := streamAll(body[:cut], 0)
		var answer *AnswerError
		if err == nil && len(items) != 2 {
			t.Errorf("cut at %d of %d: %d nodes and no error", cut, len(body), len(items))
		}
		if err != nil && !errors.As(err, &answer) {
			t.Errorf("cut at %d: %v, want an answer error", cut, err)
		}
	}
	if _, _, err := streamAll(append([]byte("k9s\x00"), body[4:]...), 0); err == nil || !strings.Contains(err.Error(), "without the Kubernetes protobuf prefix") {
		t.Errorf("an answer without the protobuf prefix: %v", err)
	}
	pod, err := runtime.Encode(scheme.Codecs.EncoderForVersion(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), corev1.SchemeGroupVersion), &corev1.PodList{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := streamAll(pod, 0); err == nil || !strings.Contains(err.Error(), `"PodList" where a NodeList was asked for`) {
		t.Errorf("a PodList: got %v, want it refused", err)
	}
	// An envelope whose object claims a terabyte, and an item that claims one inside it.
	huge := []byte(ProtobufPrefix)
	huge = protowire.AppendTag(huge, 1, protowire.BytesType)
	huge = protowire.AppendBytes(huge, []byte("\x12\x08NodeList"))
	huge = protowire.AppendTag(huge, 2, protowire.BytesType)
	huge = protowire.AppendVarint(huge, 1<<40)
	huge = protowire.AppendTag(huge, 2, protowire.BytesType)
	huge = protowire.AppendVarint(huge, 1<<39)
	huge = append(huge, "a few bytes"...)
	if _, _, err := streamAll(huge, 0); err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("lengths past the answer: %v, want an answer cut short", err)
	}
	broken := io.MultiReader(bytes.NewReader(body[:len(body)/2]), iotest.ErrReader(errors.New("connection reset by peer")))
	_, err = StreamNodeList(bufio.NewReader(broken), 0, nil, func(*NodePage) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "unexpected error when reading response body. Please retry. Original error: connection reset by peer") {
		t.Errorf("an answer that stops coming: %v, want Request.Do's words", err)
	}
	var answer *AnswerError
	if errors.As(err, &answer) {
		t.Errorf("an answer that stops coming is an answer error: %v", err)
	}
}

// FuzzStreamNodeList holds the streamed read to the whole decode on any bytes: never a panic,
// and an answer the stream takes is one whose envelope and list metadata the whole decode
// takes, with nodes each of which decodes to the whole decode's node in its place (or, when
// a node's bytes are broken, the whole decode fails on that node too).
func FuzzStreamNodeList(f *testing.F) {
	f.Add(protoNodeList(f, "next", "a", "b", "c"))
	f.Add(protoNodeList(f, ""))
	f.Fuzz(func(t *testing.T, body []byte) {
		items, _, err := streamAll(body, 2)
		if err != nil {
			return
		}
		whole, werr := wholeNodeList(body)
		if werr != nil {
			for _, b := range items {
				if (&corev1.Node{}).Unmarshal(b) != nil {
					return // the whole decode fails on a node's bytes, which the stream does not decode
				}
			}
			t.Fatalf("streamed %d nodes that decode; the whole decode refuses the answer: %v", len(items), werr)
		}
		if diff := sameNodes(items, whole); diff != "" {
			t.Fatal(diff)
		}
	})
}
