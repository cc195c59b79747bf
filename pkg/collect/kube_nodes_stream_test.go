package collect

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

// kubeStreamAll reads body with kubeStreamNodeList a byte at a time, in pages of batch, and
// returns the pages' items and whether more was said of each.
func kubeStreamAll(body []byte, batch int) ([][]byte, []bool, error) {
	var items [][]byte
	var more []bool
	_, err := kubeStreamNodeList(bufio.NewReaderSize(iotest.OneByteReader(bytes.NewReader(body)), 16), batch, func(p *kubeNodePage) error {
		for _, it := range p.items {
			items = append(items, bytes.Clone(it))
		}
		more = append(more, p.more)
		p.release()
		return nil
	})
	return items, more, err
}

// TestStreamNodeListInPages reads a protobuf NodeList as it comes, a byte at a time, in pages
// of three: the nodes are the ones kubeSplitNodeList finds in the whole answer, in order, the
// pages are of three, three and one, and only the last says no more follow.
func TestStreamNodeListInPages(t *testing.T) {
	body := kubeProtoNodeList(t, "", nil, "a", "b", "c", "d", "e", "f", "g")
	whole, err := kubeSplitNodeList(body)
	if err != nil {
		t.Fatal(err)
	}
	items, more, err := kubeStreamAll(body, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != len(whole.items) {
		t.Fatalf("%d nodes streamed, %d in the answer", len(items), len(whole.items))
	}
	for i := range items {
		if !bytes.Equal(items[i], whole.items[i]) {
			t.Errorf("node %d streamed differs from the answer's", i)
		}
	}
	if fmt.Sprint(more) != "[true true false]" {
		t.Errorf("pages said more: %v, want [true true false]", more)
	}
	empty, more, err := kubeStreamAll(kubeProtoNodeList(t, "", nil), 3)
	if err != nil || len(empty) != 0 || fmt.Sprint(more) != "[false]" {
		t.Errorf("an empty list: %d nodes, pages %v, %v; want one empty last page", len(empty), more, err)
	}
}

// TestStreamNodeListRefusesBrokenAnswers cuts an answer at every byte and breaks its prefix,
// its kind and its lengths: each is an answer error (or, cut past the list, the whole list),
// a length the answer does not hold makes no room for it, and an answer that stops coming
// fails as Request.Do fails.
func TestStreamNodeListRefusesBrokenAnswers(t *testing.T) {
	body := kubeProtoNodeList(t, "", nil, "a", "b")
	for cut := range len(body) {
		items, _, err := kubeStreamAll(body[:cut], 0)
		var answer *kubeAnswerError
		if err == nil && len(items) != 2 {
			t.Errorf("cut at %d of %d: %d nodes and no error", cut, len(body), len(items))
		}
		if err != nil && !errors.As(err, &answer) {
			t.Errorf("cut at %d: %v, want an answer error", cut, err)
		}
	}
	if _, _, err := kubeStreamAll(append([]byte("k9s\x00"), body[4:]...), 0); err == nil || !strings.Contains(err.Error(), "without the Kubernetes protobuf prefix") {
		t.Errorf("an answer without the protobuf prefix: %v", err)
	}
	pod, err := runtime.Encode(scheme.Codecs.EncoderForVersion(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), corev1.SchemeGroupVersion), &corev1.PodList{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := kubeStreamAll(pod, 0); err == nil || !strings.Contains(err.Error(), `"PodList" where a NodeList was asked for`) {
		t.Errorf("a PodList: got %v, want it refused", err)
	}
	// An envelope whose object claims a terabyte, and an item that claims one inside it.
	huge := append([]byte(nil), kubeProtobufMagic...)
	huge = protowire.AppendTag(huge, 1, protowire.BytesType)
	huge = protowire.AppendBytes(huge, []byte("\x12\x08NodeList"))
	huge = protowire.AppendTag(huge, 2, protowire.BytesType)
	huge = protowire.AppendVarint(huge, 1<<40)
	huge = protowire.AppendTag(huge, 2, protowire.BytesType)
	huge = protowire.AppendVarint(huge, 1<<39)
	huge = append(huge, "a few bytes"...)
	if _, _, err := kubeStreamAll(huge, 0); err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("lengths past the answer: %v, want an answer cut short", err)
	}
	broken := io.MultiReader(bytes.NewReader(body[:len(body)/2]), iotest.ErrReader(errors.New("connection reset by peer")))
	_, err = kubeStreamNodeList(bufio.NewReader(broken), 0, func(p *kubeNodePage) error { p.release(); return nil })
	if err == nil || !strings.Contains(err.Error(), "unexpected error when reading response body. Please retry. Original error: connection reset by peer") {
		t.Errorf("an answer that stops coming: %v, want Request.Do's words", err)
	}
	var answer *kubeAnswerError
	if errors.As(err, &answer) {
		t.Errorf("an answer that stops coming is an answer error: %v", err)
	}
}

// FuzzStreamNodeList holds the streamed read to the whole one on any bytes: never a panic,
// and an answer the stream takes is one kubeSplitNodeList takes, with the same nodes.
func FuzzStreamNodeList(f *testing.F) {
	f.Add(kubeProtoNodeList(f, "next", nil, "a", "b", "c"))
	f.Add(kubeProtoNodeList(f, "", nil))
	f.Fuzz(func(t *testing.T, body []byte) {
		items, _, err := kubeStreamAll(body, 2)
		if err != nil {
			return
		}
		whole, werr := kubeSplitNodeList(body)
		if werr != nil {
			t.Fatalf("streamed %d nodes; the whole read refuses it: %v", len(items), werr)
		}
		if len(items) != len(whole.items) {
			t.Fatalf("streamed %d nodes, the whole read %d", len(items), len(whole.items))
		}
		for i := range items {
			if !bytes.Equal(items[i], whole.items[i]) {
				t.Fatalf("node %d differs", i)
			}
		}
	})
}
