package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diff"
	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// bigSource is a cluster of 5,000 nodes, each with a warning and every tenth with a critical,
// whose messages are long: what an answer must not hand over whole.
type bigSource struct {
	panicOn string
}

func (b bigSource) Check(_ context.Context, sel Selection, _ bool) (diagnose.Report, error) {
	if b.panicOn == "check" {
		panic("a fault in the source")
	}
	var r diagnose.Report
	for i := range 5000 {
		node := fmt.Sprintf("node-%04d", i)
		r.Findings = append(r.Findings, diagnose.Finding{ID: "w", Severity: diagnose.Warning, Node: node,
			Message: strings.Repeat("m", 400), Subjects: []string{"node/" + node}})
		if i%10 == 0 {
			r.Findings = append(r.Findings, diagnose.Finding{ID: "c", Severity: diagnose.Critical, Node: node, Message: "c"})
		}
	}
	return r, nil
}

func (bigSource) Describe(_ context.Context, kind string, names []string, selector string, text, _ bool) ([]Sheet, error) {
	if selector == "" {
		out := make([]Sheet, len(names))
		for i, n := range names {
			out[i] = Sheet{Name: n, Data: json.RawMessage(`{}`)}
		}
		return out, nil
	}
	out := make([]Sheet, 50)
	for i := range out {
		out[i] = Sheet{Name: fmt.Sprintf("node-%04d", i), Data: json.RawMessage(`"` + strings.Repeat("t", 2000) + `"`)}
	}
	return out, nil
}

func (bigSource) Explain(ids []string) ([]printer.CheckDoc, error) {
	return printer.Docs(diagnose.Checks()), nil
}
func (bigSource) ExplainText(ids []string) (string, error) { return "", nil }

func (bigSource) Diff(context.Context, string, string) (diff.Diff, error) {
	var d diff.Diff
	for i := range 300 {
		d.Findings.Added = append(d.Findings.Added, diagnose.Finding{ID: "a", Node: fmt.Sprint(i)})
		d.Nodes.Added = append(d.Nodes.Added, fmt.Sprint(i))
	}
	return d, nil
}

func (bigSource) MaxPods(context.Context, []string, maxpods.Options, bool) ([]maxpods.Row, error) {
	return nil, nil
}

// connect serves src over in-memory transports and returns the SDK client's session.
func connect(t *testing.T, src Source) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	var log strings.Builder
	ss, err := NewServer(src, Options{Version: "test", Log: &log}).Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

func callText(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}

// TestLimitsOnALargeCluster: every answer over a large cluster is a page of tens of kilobytes,
// with the totals and the offset of the next page.
func TestLimitsOnALargeCluster(t *testing.T) {
	cs := connect(t, bigSource{})
	for _, c := range []struct {
		tool     string
		args     map[string]any
		returned int
		next     string
	}{
		{"check", nil, 20, `"nextOffset":20`},
		{"check", map[string]any{"limit": 100}, 100, `"nextOffset":100`},
		{"check", map[string]any{"minSeverity": "critical", "offset": 490}, 10, `"total":500,"offset":490,"returned":10}`},
		{"describe", map[string]any{"kind": "node", "selector": "a=b"}, 3, `"nextOffset":3`},
		{"describe", map[string]any{"kind": "node", "selector": "a=b", "limit": 20, "offset": 40}, 10, `"total":50,"offset":40,"returned":10}`},
		{"diff", map[string]any{"old": "x"}, 10, `call diff again with offset 10`},
	} {
		text, isErr := callText(t, cs, c.tool, c.args)
		if isErr {
			t.Fatalf("%s %v: %s", c.tool, c.args, text)
		}
		if len(text) > 64<<10 {
			t.Errorf("%s %v: %d bytes", c.tool, c.args, len(text))
		}
		if !strings.Contains(text, c.next) {
			t.Errorf("%s %v: no %s in %.300s", c.tool, c.args, c.next, text)
		}
		var got struct {
			Findings json.RawMessage `json:"findings"`
			Sheets   []any           `json:"sheets"`
		}
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatal(err)
		}
		n := len(got.Sheets)
		switch c.tool {
		case "check":
			var f []any
			_ = json.Unmarshal(got.Findings, &f)
			n = len(f)
		case "diff":
			var f struct{ Added []any }
			_ = json.Unmarshal(got.Findings, &f)
			n = len(f.Added)
		}
		if n != c.returned {
			t.Errorf("%s %v: %d items, want %d", c.tool, c.args, n, c.returned)
		}
	}
	// Named subjects are paged before they are described.
	text, _ := callText(t, cs, "describe", map[string]any{"kind": "subnet", "names": []string{"a", "b", "c", "d", "a"}, "limit": 2, "offset": 2})
	if !strings.Contains(text, `"total":4,"offset":2,"returned":2}`) || !strings.Contains(text, `"name":"c"`) || strings.Contains(text, `"name":"a"`) {
		t.Errorf("named page: %s", text)
	}
	// Past the last name, the page is empty: the source is not asked for no names (which
	// would be every node).
	text, _ = callText(t, cs, "describe", map[string]any{"kind": "node", "names": []string{"a"}, "offset": 5})
	if !strings.Contains(text, `"total":1,"offset":5,"returned":0}`) || !strings.Contains(text, `"sheets":[]`) {
		t.Errorf("page past the end: %s", text)
	}
}

// TestPanicIsAToolError: a fault in one answer is that call's error; the server goes on.
func TestPanicIsAToolError(t *testing.T) {
	cs := connect(t, bigSource{panicOn: "check"})
	text, isErr := callText(t, cs, "check", nil)
	if !isErr || !strings.HasPrefix(text, "karpnet failed answering check: ") || strings.Contains(text, "\n") {
		t.Errorf("panic: isError %v, %q", isErr, text)
	}
	if text, isErr := callText(t, cs, "explain", nil); isErr || !strings.Contains(text, `"list"`) {
		t.Errorf("after the panic: %v %.200s", isErr, text)
	}
}
