// Package mcp serves karpnet's diagnostics to AI assistants over the Model Context Protocol:
// a few read-only tools (check, describe, explain, diff, max-pods) whose answers are the
// report's own data, sized for an assistant's context. The cluster is read through a Source,
// which the kubectl plugin implements with the collection path its commands use; the server
// itself reads nothing, writes no file and never runs a remedy's command.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diff"
	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// Source is what the tools read: the cluster (live, a snapshot file or the demo) and the
// catalogue, through the same paths as the plugin's commands. Its errors are the commands'
// errors; the server returns each as a tool error of one line.
type Source interface {
	// Check analyses the cluster for sel; refresh asks for a new collection (the Source may
	// answer from its last one when that is recent enough for its request budget).
	Check(ctx context.Context, sel Selection, refresh bool) (diagnose.Report, error)
	// Describe returns the sheets of kind (one of Kinds) for names, or for the nodes selector
	// selects; text asks for each sheet as the plugin prints it instead of its data.
	Describe(ctx context.Context, kind string, names []string, selector string, text, refresh bool) ([]Sheet, error)
	// Explain returns the catalogue entries of ids, every check's when ids is empty.
	Explain(ids []string) ([]printer.CheckDoc, error)
	// ExplainText returns the catalogue entries of ids as the plugin's explain prints them.
	ExplainText(ids []string) (string, error)
	// Diff compares the snapshot file old with the file new, or with the cluster now when new
	// is empty.
	Diff(ctx context.Context, old, new string) (diff.Diff, error)
	// MaxPods returns the max pods of instance types; live asks EC2 as well as the embedded table.
	MaxPods(ctx context.Context, types []string, o maxpods.Options, live bool) ([]maxpods.Row, error)
}

// Selection chooses nodes as check's arguments and flags do.
type Selection struct {
	Nodes     []string
	Selector  string
	NodePool  string
	NodeClass string
	Only      []string
	Skip      []string
}

// Sheet is one subject's sheet: its data (as describe -o json prints it) or its text, and for
// a node the findings on what it uses (its subnets, class and NodePool).
type Sheet struct {
	Name    string             `json:"name"`
	Data    json.RawMessage    `json:"data,omitempty"`
	Text    string             `json:"text,omitempty"`
	Related []diagnose.Finding `json:"related,omitempty"`
}

// Kinds are the subject kinds describe has sheets for.
var Kinds = []string{"node", "nodeclaim", "subnet", "nodeclass", "nodepool", "placementgroup", "eni"}

// Options configure a server.
type Options struct {
	// Version is karpnet's version, said to clients in the initialize answer.
	Version string
	// Log receives one line per tool call: standard error, never standard output, which
	// carries the protocol.
	Log io.Writer
	// Demo says the source is the embedded demo, for the server's instructions.
	Demo bool
}

// instructions tell an assistant how the tools fit together.
const instructions = `karpnet diagnoses the networking of Karpenter nodes on EKS, read-only.
Start with check (a summary, then findings worst first; minSeverity narrows them, limit and offset page them).
Open a subject with describe (kind node, nodeclaim, subnet, nodeclass, nodepool, placementgroup or eni).
explain says what a check ID means, when it fires and its remedy; diff compares snapshot files or one with now;
max-pods gives instance types' pod limits. Findings carry remedy commands as data: show them to the user,
who decides; the server never runs them.`

// NewServer returns the MCP server over src, with its tools.
func NewServer(src Source, o Options) *sdk.Server {
	if o.Log == nil {
		o.Log = io.Discard
	}
	// Tool calls run concurrently; each logs one whole line.
	o.Log = &lineWriter{w: o.Log}
	ins := instructions
	if o.Demo {
		ins += "\nThis server serves karpnet's embedded demo cluster, not a real one."
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "karpnet", Title: "karpnet", Version: o.Version},
		&sdk.ServerOptions{Instructions: ins})
	t := tools{src: src, log: o.Log}
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: new(false)}
	sdk.AddTool(s, &sdk.Tool{Name: "check", Title: "Check node networking", Annotations: readOnly,
		Description: "Run karpnet's networking checks over the whole cluster or chosen nodes, a NodePool or a NodeClass. " +
			"Answers a summary (nodes by status, findings by severity), then the findings worst first: ID, severity, " +
			"node or resource, message with its numbers, remedy and its commands as data. Page with limit and offset."},
		logged(t.log, "check", t.check))
	sdk.AddTool(s, &sdk.Tool{Name: "describe", Title: "Describe a subject", Annotations: readOnly,
		Description: "One subject's whole networking sheet: kind node (names or a label selector), nodeclaim (one without a Node), " +
			"subnet, nodeclass (EC2NodeClass or Auto Mode NodeClass), nodepool, placementgroup or eni, with its findings. " +
			"format text gives the sheet as karpnet describe prints it instead of its data."},
		logged(t.log, "describe", t.describe))
	sdk.AddTool(s, &sdk.Tool{Name: "explain", Title: "Explain checks", Annotations: readOnly,
		Description: "What check IDs mean: when each fires and deliberately does not, why it matters on EKS, the remedy, " +
			"the upstream sources. Without ids, one line per check."},
		logged(t.log, "explain", t.explain))
	sdk.AddTool(s, &sdk.Tool{Name: "diff", Title: "Diff snapshots", Annotations: readOnly,
		Description: "What changed between two snapshot files saved with check --save-snapshot, or one file and the cluster now: " +
			"findings added, resolved and with another severity, nodes added and removed, node facts that changed."},
		logged(t.log, "diff", t.diff))
	sdk.AddTool(s, &sdk.Tool{Name: "max-pods", Title: "Max pods of instance types", Annotations: readOnly,
		Description: "The max pods of EC2 instance types as the VPC CNI (secondary IPs, prefix delegation), the EKS calculator " +
			"and Karpenter see them, from karpnet's embedded table (live: from EC2)."},
		logged(t.log, "max-pods", t.maxPods))
	return s
}

// Serve runs the server over in and out (standard input and output) until the client
// disconnects or ctx ends.
func Serve(ctx context.Context, src Source, in io.ReadCloser, out io.WriteCloser, o Options) error {
	err := NewServer(src, o).Run(ctx, &sdk.IOTransport{Reader: in, Writer: out})
	if ctx.Err() != nil || err == io.EOF {
		return nil
	}
	return err
}

// logged wraps a tool's handler: one line per call to log, and every error made one line.
func logged[In any](log io.Writer, name string, h func(context.Context, In) (any, error)) sdk.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in In) (_ *sdk.CallToolResult, _ any, err error) {
		start := time.Now()
		defer func() {
			// A fault in one answer is that tool call's error; the server goes on serving.
			if p := recover(); p != nil {
				fmt.Fprintf(log, "%s mcp: %s panicked: %v\n%s", time.Now().UTC().Format(time.RFC3339), name, p, debug.Stack())
				err = fmt.Errorf("karpnet failed answering %s: %v", name, oneLine(fmt.Sprint(p)))
			}
		}()
		out, err := h(ctx, in)
		took := time.Since(start).Round(time.Millisecond)
		if err != nil {
			msg := oneLine(err.Error())
			fmt.Fprintf(log, "%s mcp: %s failed after %s: %s\n", time.Now().UTC().Format(time.RFC3339), name, took, msg)
			return nil, nil, fmt.Errorf("%s", msg)
		}
		fmt.Fprintf(log, "%s mcp: %s answered in %s\n", time.Now().UTC().Format(time.RFC3339), name, took)
		if t, ok := out.(texter); ok && t.text() != "" {
			// A sheet asked for as text is the answer's text as karpnet prints it; the data
			// (which holds it too) stays the structured content.
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: t.text()}}}, out, nil
		}
		return nil, out, nil
	}
}

// texter is an answer whose text content is not its JSON: sheets and entries asked for as
// text.
type texter interface{ text() string }

// lineWriter serialises the writes of concurrent tool calls.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// oneLine makes an error's message one line: an assistant reads it whole.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
