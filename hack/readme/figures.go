package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/karpnet/kubectl-karpnet/pkg/cmd"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
)

// A figure is a value in running prose that the generator writes from the code, between an
// inline pair of markers on one line:
//
//	it calls <!-- figure:ec2-actions -->11<!-- /figure --> EC2 actions
//
// The markers are HTML comments, so a rendered page shows the value alone.
var figureRX = regexp.MustCompile(`<!-- figure:([a-z0-9-]+) -->(.*?)<!-- /figure -->`)

// figureFuncs returns each figure's value; the demo serve figures start the demo's exporter,
// so they are computed once, and only for a page that names one.
var figureFuncs = map[string]func() (string, error){
	// The EC2 actions the collector can call: the methods of collect.EC2API, which
	// deploy/iam-policy.json allows (deploy's tests hold the two equal).
	"ec2-actions":          func() (string, error) { return strconv.Itoa(len(ec2Actions())), nil },
	"ec2-describe-actions": func() (string, error) { return strconv.Itoa(len(ec2Actions("Describe"))), nil },
	"ec2-get-actions":      func() (string, error) { return strconv.Itoa(len(ec2Actions("Get"))), nil },
	"ec2-get-action-list":  func() (string, error) { return codeList(ec2Actions("Get")), nil },
	// The subject kinds findings can name that have no sheet of their own.
	"kinds-without-sheet": func() (string, error) { return withoutSheet(), nil },
	// The sources karpnet reads, each a karpnet_gaps series when it cannot be read.
	"gap-sources": gapSources,
	// `demo serve`'s series, from its /metrics.
	"demo-nodes":                func() (string, error) { s, err := demoSeries(); return strconv.Itoa(s.nodes), err },
	"demo-series":               func() (string, error) { s, err := demoSeries(); return strconv.Itoa(s.total), err },
	"demo-series-node-metrics":  func() (string, error) { s, err := demoSeries(); return strconv.Itoa(s.withNodes), err },
	"demo-series-per-node":      func() (string, error) { s, err := demoSeries(); return strconv.Itoa(s.perNode), err },
	"demo-series-per-node-mean": func() (string, error) { s, err := demoSeries(); return s.perNodeMean(), err },
}

// renderFigures rewrites the value of every figure of file.
func renderFigures(file []byte) ([]byte, error) {
	var errs []string
	out := figureRX.ReplaceAllFunc(file, func(m []byte) []byte {
		name := string(figureRX.FindSubmatch(m)[1])
		f, ok := figureFuncs[name]
		if !ok {
			errs = append(errs, fmt.Sprintf("unknown figure %q: the figures are %s", name, strings.Join(slices.Sorted(mapKeys(figureFuncs)), ", ")))
			return m
		}
		v, err := f()
		if err != nil {
			errs = append(errs, fmt.Sprintf("figure %s: %v", name, err))
			return m
		}
		return []byte("<!-- figure:" + name + " -->" + v + "<!-- /figure -->")
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// ec2Actions returns the IAM names (ec2:Name) of collect.EC2API's methods whose names start
// with one of prefixes (all of them without one), sorted.
func ec2Actions(prefixes ...string) []string {
	api := reflect.TypeFor[collect.EC2API]()
	var out []string
	for i := range api.NumMethod() {
		name := api.Method(i).Name
		if len(prefixes) == 0 || slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			out = append(out, "ec2:"+name)
		}
	}
	slices.Sort(out)
	return out
}

// sourcesFile declares the sources karpnet reads, as the Source* constants of pkg/snapshot.
const sourcesFile = "pkg/snapshot/sources.go"

// figureRoot is the repository root, which gap-sources reads sourcesFile from.
var figureRoot = "."

// gapSources counts the Source* constants of sourcesFile: the values a gap's source takes.
func gapSources() (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(figureRoot, filepath.FromSlash(sourcesFile)), nil, 0)
	if err != nil {
		return "", err
	}
	n := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			for _, name := range spec.(*ast.ValueSpec).Names {
				if strings.HasPrefix(name.Name, "Source") {
					n++
				}
			}
		}
	}
	if n == 0 {
		return "", fmt.Errorf("%s declares no Source* constant", sourcesFile)
	}
	return strconv.Itoa(n), nil
}

// codeList lists words as code: `a`, `b` and `c`.
func codeList(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "`" + w + "`"
	}
	return andList(quoted)
}

func andList(words []string) string {
	switch len(words) {
	case 0:
		return "none"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// withoutSheet names, in prose and in the table's order, the kinds of subject that `describe`
// has no sheet of: not nodes and NodeClaims (sheets of their own), nor kinds.Kind.Sheet.
func withoutSheet() string {
	var names []string
	for _, k := range kinds.All() {
		if k.Sheet || k.Name == kinds.Node || k.Name == kinds.NodeClaim {
			continue
		}
		names = append(names, k.Object+"s")
	}
	return andList(names)
}

// servedSeries are the karpnet_ series `demo serve` exports, and those with --node-metrics.
type servedSeries struct {
	nodes, total, withNodes, perNode int
}

func (s servedSeries) perNodeMean() string {
	if s.nodes == 0 {
		return "0"
	}
	return strconv.FormatFloat(float64(s.perNode)/float64(s.nodes), 'f', 1, 64)
}

// perNodeFamilies are the families --node-metrics adds, one series or more per node.
var perNodeFamilies = []string{"karpnet_node_info", "karpnet_node_max_pods", "karpnet_node_pod_ip_capacity", "karpnet_node_findings"}

var demoSeries = sync.OnceValues(func() (servedSeries, error) {
	var s servedSeries
	plain, err := scrapeDemo()
	if err != nil {
		return s, err
	}
	withNodes, err := scrapeDemo("--node-metrics")
	if err != nil {
		return s, err
	}
	s.total = len(plain)
	s.withNodes = len(withNodes)
	for _, line := range plain {
		if strings.HasPrefix(line, "karpnet_nodes{") {
			v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			if err != nil {
				return s, fmt.Errorf("%q: %w", line, err)
			}
			s.nodes += int(v)
		}
	}
	for _, line := range withNodes {
		family, _, _ := strings.Cut(line, "{")
		if slices.Contains(perNodeFamilies, family) {
			s.perNode++
		}
	}
	return s, nil
})

// scrapeDemo runs `kubectl karpnet demo serve` in process with args on a free local port and
// returns the karpnet_ series lines of its /metrics once it is ready.
func scrapeDemo(args ...string) ([]string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	streams, _, _, errOut := genericiooptions.NewTestIOStreams()
	done := make(chan int, 1)
	go func() {
		done <- cmd.Execute(ctx, streams, append([]string{"demo", "serve", "--listen", addr}, args...))
	}()
	defer func() { cancel(); <-done }()
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case code := <-done:
			done <- code
			return nil, fmt.Errorf("demo serve %v exited %d: %s", args, code, errOut.String())
		default:
		}
		if resp, err := client.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("demo serve %v not ready after a minute: %s", args, errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var series []string
	for line := range strings.SplitSeq(string(body), "\n") {
		if strings.HasPrefix(line, "karpnet_") {
			series = append(series, line)
		}
	}
	return series, nil
}

// The marker of the sample report whose summary is the demo's: on the line before the opening
// fence of a json block, whose `  "summary": ` entry (up to the next top-level key) the
// generator rewrites.
const sampleSummary = "<!-- sample report: its summary is generated from the demo's by `make generate` -->"

// renderSampleSummary rewrites the summary entry of the json block after the sampleSummary
// marker with the demo's summary (`kubectl karpnet demo check -o json`).
func renderSampleSummary(file []byte) ([]byte, error) {
	lines := strings.Split(string(file), "\n")
	at := slices.Index(lines, sampleSummary)
	if at < 0 {
		return file, nil
	}
	if at+1 >= len(lines) || lines[at+1] != "```json" {
		return nil, fmt.Errorf("the line after %s must open a json block (```json)", sampleSummary)
	}
	begin, end := -1, -1
	for i := at + 2; i < len(lines) && lines[i] != "```"; i++ {
		switch {
		case begin < 0 && strings.HasPrefix(lines[i], `  "summary": `):
			begin = i
		case begin >= 0 && strings.HasPrefix(lines[i], `  "`):
			end = i
		}
		if end >= 0 {
			break
		}
	}
	if begin < 0 || end < 0 {
		return nil, fmt.Errorf("the json block after %s has no `  \"summary\": ` entry followed by another key", sampleSummary)
	}
	stdout, code := runDemo([]string{"demo", "check", "-o", "json"})
	if code > 1 {
		return nil, fmt.Errorf("demo check -o json exited %d", code)
	}
	var report struct{ Summary json.RawMessage }
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		return nil, fmt.Errorf("demo check -o json: %w", err)
	}
	summary, err := wrapObject(report.Summary, `  "summary": `, 118)
	if err != nil {
		return nil, err
	}
	out := slices.Concat(lines[:begin], summary, lines[end:])
	return []byte(strings.Join(out, "\n")), nil
}

// wrapObject prints a JSON object's members in their order, each on one line as a Go map
// would print sorted, packed into lines of at most width bytes after prefix, continuation lines
// indented under the first member, and a comma after the closing brace.
func wrapObject(raw json.RawMessage, prefix string, width int) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("the summary is not an object: %s", raw)
	}
	var members []member
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		members = append(members, member{spaced(key) + ": ", v})
	}
	indent := strings.Repeat(" ", len(prefix)+1)
	lines := []string{prefix + "{"}
	for i, m := range members {
		last := &lines[len(lines)-1]
		sep := ", "
		if i == 0 {
			sep = ""
		}
		text := m.key + spaced(m.value)
		if i > 0 && len(*last)+len(sep)+len(text)+1 > width {
			*last += ","
			lines = append(lines, indent)
			last, sep = &lines[len(lines)-1], ""
		}
		obj, isObj := m.value.(map[string]any)
		if !isObj || len(*last)+len(sep)+len(text)+1 <= width {
			*last += sep + text
			continue
		}
		// An object too long for a line of its own: its members packed under its brace.
		*last += sep + m.key + "{"
		inner := strings.Repeat(" ", len(*last))
		for j, k := range slices.Sorted(mapKeys(obj)) {
			last := &lines[len(lines)-1]
			part := spaced(k) + ": " + spaced(obj[k])
			switch {
			case j == 0:
				*last += part
			case len(*last)+2+len(part)+2 > width:
				*last += ","
				lines = append(lines, inner+part)
			default:
				*last += ", " + part
			}
		}
		lines[len(lines)-1] += "}"
	}
	lines[len(lines)-1] += "},"
	return lines, nil
}

// member is one member of a JSON object: its key as printed, with the colon, and its value.
type member struct {
	key   string
	value any
}

// spaced prints a JSON value with a space after every colon and comma, object keys sorted.
func spaced(v any) string {
	switch v := v.(type) {
	case map[string]any:
		parts := make([]string, 0, len(v))
		for _, k := range slices.Sorted(mapKeys(v)) {
			parts = append(parts, spaced(k)+": "+spaced(v[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = spaced(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
