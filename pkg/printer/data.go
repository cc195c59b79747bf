package printer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// writeData writes r as JSON (two-space indent) or YAML with the same keys. JSON is streamed
// node by node, so a report of thousands of nodes is never held twice in memory. Every string
// is kept whole; the control characters in it are escaped (see escapeControls).
func writeData(w io.Writer, r diagnose.Report, f Format) error {
	r = publicReport(r)
	if f == YAML {
		r.Nodes = publicNodes(r.Nodes)
		var buf bytes.Buffer
		if err := encodeJSON(&buf, r, "", "  "); err != nil {
			return err
		}
		y, err := yaml.JSONToYAML(buf.Bytes())
		if err != nil {
			return fmt.Errorf("converting the report to YAML: %w", err)
		}
		if _, err := w.Write(y); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		return nil
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := streamJSON(bw, r); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// nodesKey is the top-level nodes field of an indented report whose node list is empty.
const nodesKey = "\n  \"nodes\": []"

// streamJSON writes r as encodeJSON would, but encodes the node list a batch of nodes at a
// time, the batches on every core while they are written in order: at 100,000 nodes encoding
// is seconds of CPU, and the run has nothing else to do by then. At most a few batches are
// held at once.
func streamJSON(w io.Writer, r diagnose.Report) error {
	nodes := r.Nodes
	r.Nodes = []diagnose.NodeReport{}
	var skeleton bytes.Buffer
	if err := encodeJSON(&skeleton, r, "", "  "); err != nil {
		return err
	}
	head, tail, ok := bytes.Cut(skeleton.Bytes(), []byte(nodesKey))
	if !ok || len(nodes) == 0 {
		_, err := w.Write(skeleton.Bytes())
		return writeErr(err)
	}
	if _, err := io.WriteString(w, string(head)+"\n  \"nodes\": [\n    "); err != nil {
		return writeErr(err)
	}
	if err := streamNodes(w, nodes); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n  ]"+string(tail))
	return writeErr(err)
}

// jsonBatch is how many nodes one batch of streamNodes encodes: about a MB of JSON.
const jsonBatch = 256

// jsonNodeBytes is about how much indented JSON one node's report takes (3.7 KiB on average at
// 100,000 nodes of the scale benchmark).
const jsonNodeBytes = 4 << 10

// nodeBatch is one batch of nodes being encoded: done is closed once out (or err) is set.
type nodeBatch struct {
	from, to int
	out      bytes.Buffer
	err      error
	done     chan struct{}
}

// streamNodes writes nodes as the items of the report's node list, each indented as
// encodeJSON indents it there (appendIndented, over each node's compact JSON), separated by
// commas: batches are encoded by one worker per core
// (each with one encoder and buffer for all its nodes: a buffer and an encoder's indentation
// buffer of their own for each node were over a GB of garbage at 100,000 nodes) and written in
// order as each is done.
func streamNodes(w io.Writer, nodes []diagnose.NodeReport) error {
	workers := min(runtime.GOMAXPROCS(0), (len(nodes)+jsonBatch-1)/jsonBatch)
	work := make(chan *nodeBatch)
	order := make(chan *nodeBatch, 2*workers) // batches handed out, in order: bounds those held
	// At most held batches are made; once they are, the next waits for one written, whose
	// buffer it reuses (a new buffer for each batch grown to a MB was 40 MB of garbage at
	// 100,000 nodes).
	held := 2*workers + 2
	free := make(chan *nodeBatch, held)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(work)
		defer close(order)
		made := 0
		for from := 0; from < len(nodes); from += jsonBatch {
			var b *nodeBatch
			if made < held {
				made++
				b = &nodeBatch{}
				// About 4 KiB of JSON a node: grown once, not by doubling.
				b.out.Grow(min(jsonBatch, len(nodes)-from) * jsonNodeBytes)
			} else {
				select {
				case b = <-free:
					b.out.Reset()
				case <-stop:
					return
				}
			}
			b.from, b.to, b.done = from, min(from+jsonBatch, len(nodes)), make(chan struct{})
			select {
			case order <- b:
			case <-stop:
				return
			}
			select {
			case work <- b:
			case <-stop:
				return
			}
		}
	}()
	for range workers {
		go func() {
			var node bytes.Buffer
			var indented []byte
			enc := newJSONEncoder(&node, "", "") // compact: appendIndented indents it
			// The node being encoded, passed by pointer: a NodeReport passed by value is copied
			// to the heap on every call (54 MB at 100,000 nodes).
			var cur diagnose.NodeReport
			for b := range work {
				for i := b.from; i < b.to && b.err == nil; i++ {
					node.Reset()
					cur = publicNode(nodes[i])
					if err := enc.Encode(emptyLists(&cur)); err != nil {
						b.err = fmt.Errorf("encoding the report as JSON: %w", err)
						break
					}
					indented = appendIndented(indented[:0], bytes.TrimSuffix(node.Bytes(), []byte("\n")), "    ", "  ")
					b.out.Write(escapeControls(indented))
					if i < len(nodes)-1 {
						b.out.WriteString(",\n    ")
					}
				}
				close(b.done)
			}
		}()
	}
	for b := range order {
		<-b.done
		if b.err != nil {
			return b.err
		}
		if _, err := w.Write(b.out.Bytes()); err != nil {
			return writeErr(err)
		}
		free <- b // room for every batch made
	}
	return nil
}

// encodeJSON writes v indented, without HTML escaping, with escapeControls applied, followed
// by a newline.
func encodeJSON(w io.Writer, v any, prefix, indent string) error {
	var buf bytes.Buffer
	if err := newJSONEncoder(&buf, prefix, indent).Encode(emptyLists(v)); err != nil {
		return fmt.Errorf("encoding the report as JSON: %w", err)
	}
	_, err := w.Write(escapeControls(buf.Bytes()))
	return writeErr(err)
}

// newJSONEncoder returns an encoder of JSON without HTML escaping, indented with prefix and
// indent (compact when both are empty); what it writes still needs escapeControls.
func newJSONEncoder(w io.Writer, prefix, indent string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent(prefix, indent)
	enc.SetEscapeHTML(false)
	return enc
}

// escapeControls rewrites, in JSON that encoding/json wrote, the characters it leaves raw that
// a terminal interprets or YAML's reader refuses: DEL, the C1 controls (U+0080 to U+009F, of
// which U+009B starts a CSI sequence) and the non-characters U+FFFE and U+FFFF, each as its
// \u escape. The C0 controls encoding/json escapes itself. Such characters only occur inside
// strings, where a \u escape means the same character, so the data does not change; JSON
// without them is returned as it is.
func escapeControls(j []byte) []byte {
	// DEL is the byte 0x7f, the C1 controls start with 0xc2 and U+FFFE and U+FFFF with 0xef
	// in UTF-8: text with none of these bytes has nothing to escape, which three byte searches
	// tell faster than decoding it.
	if bytes.IndexByte(j, 0x7f) < 0 && bytes.IndexByte(j, 0xc2) < 0 && bytes.IndexByte(j, 0xef) < 0 {
		return j
	}
	if !bytes.ContainsFunc(j, needsJSONEscape) {
		return j
	}
	out := make([]byte, 0, len(j)+64)
	for i := 0; i < len(j); {
		r, size := utf8.DecodeRune(j[i:])
		if needsJSONEscape(r) && size > 0 && !(r == utf8.RuneError && size == 1) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, j[i:i+size]...)
		}
		i += size
	}
	return out
}

// needsJSONEscape reports whether escapeControls escapes r.
func needsJSONEscape(r rune) bool {
	return r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0xfffe || r == 0xffff
}

func writeErr(err error) error {
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// publicReport returns a copy of r shaped for the public schema: kind and apiVersion set,
// the time in UTC, and empty lists and maps instead of null so consumers can always iterate.
func publicReport(r diagnose.Report) diagnose.Report {
	if r.Kind == "" {
		r.Kind = diagnose.ReportKind
	}
	if r.APIVersion == "" {
		r.APIVersion = diagnose.ReportAPIVersion
	}
	r.Taken = r.Taken.UTC()
	if r.Summary.Findings == nil {
		r.Summary.Findings = map[string]int{}
	}
	if r.Summary.Statuses == nil {
		r.Summary.Listed, r.Summary.Statuses = r.Summary.Total(), r.Summary.ByStatus()
	}
	r.Findings = nonNil(r.Findings)
	r.Subnets = nonNil(r.Subnets)
	r.Gaps = nonNil(r.Gaps)
	return r
}

// publicNodes returns a copy of nodes shaped as publicNode shapes each, empty for none.
func publicNodes(nodes []diagnose.NodeReport) []diagnose.NodeReport {
	out := make([]diagnose.NodeReport, len(nodes))
	for i := range nodes {
		out[i] = publicNode(nodes[i])
	}
	return out
}

// publicNode returns n with its lists empty instead of nil, as the report's contract has them.
// JSON encodes each node so as it is written (streamNodes), rather than from a copy of every
// node (about 44 MB at 100,000 nodes).
func publicNode(n diagnose.NodeReport) diagnose.NodeReport {
	n.Addresses = nonNil(n.Addresses)
	n.ENIs = nonNil(n.ENIs)
	n.Findings = nonNil(n.Findings)
	return n
}

// nonNil returns s, or an empty slice when s is nil.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// writeObject writes v, one object of the report such as a NodeClaim, as JSON (two-space
// indent) or YAML with the same keys, its strings escaped as writeData does.
func writeObject(w io.Writer, v any, f Format) error {
	var buf bytes.Buffer
	if err := encodeJSON(&buf, v, "", "  "); err != nil {
		return err
	}
	out := buf.Bytes()
	if f == YAML {
		y, err := yaml.JSONToYAML(out)
		if err != nil {
			return fmt.Errorf("converting the report to YAML: %w", err)
		}
		out = y
	}
	_, err := w.Write(out)
	return writeErr(err)
}
