package cmd

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/internal/budget"
	"github.com/karpnet/kubectl-karpnet/pkg/mcp"
	"github.com/karpnet/kubectl-karpnet/pkg/version"
)

const mcpExample = `  # Serve the current cluster to an assistant that starts this command (stdio)
  %[1]s mcp

  # Try it on the embedded demo cluster, no cluster or AWS access needed
  %[1]s demo mcp

  # A saved snapshot, or two clusters at once
  %[1]s mcp --snapshot cluster.json.gz
  %[1]s mcp --contexts prod-use1,prod-usw2`

// mcpOptions are the flags of `mcp`.
type mcpOptions struct {
	*commonOptions
	maxAge time.Duration
}

func newCmdMCP(common *commonOptions) *cobra.Command {
	o := &mcpOptions{commonOptions: common, maxAge: 5 * time.Minute}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve karpnet's checks to AI assistants over the Model Context Protocol (stdio, read-only)",
		Long: `mcp runs a Model Context Protocol server on standard input and output, for an AI assistant
(Claude, VS Code, any MCP client) that starts it. Its tools answer with the report's own data,
a summary first and a page at a time:

  check     the findings, worst first (nodes, selector, nodepool, nodeclass, minSeverity,
            only, skip, limit, offset)
  describe  the sheet of a node, nodeclaim, subnet, nodeclass, nodepool, placementgroup or eni
  explain   what check IDs mean, when they fire and their remedy
  diff      what changed between two snapshot files, or one and the cluster now
  max-pods  the max pods of instance types

It reads as check does: the same kubeconfig, --context and --contexts, RBAC (get and list) and
IAM (EC2 Describe* and Get*), request budget and pacing. A collection is reused for --max-age
(a tool's refresh argument reads again, at most every 15s); --snapshot and demo are read once.
It never runs a remedy's command and writes no file. Standard output carries the protocol; one
line per tool call goes to standard error.

See docs/mcp.md for registering it with Claude Desktop, Claude Code and VS Code.`,
		Example: fmt.Sprintf(mcpExample, "kubectl karpnet"),
		Args:    cobra.NoArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return o.run(c.Context()) },
	}
	cmd.Flags().DurationVar(&o.maxAge, "max-age", o.maxAge, "reuse a live collection this long before reading the cluster again (at least 15s)")
	registerFlagCompletion(cmd, "max-age", cobra.NoFileCompletions)
	return cmd
}

// run serves until the client closes standard input or the process is interrupted.
func (o *mcpOptions) run(ctx context.Context) error {
	o.multiOK = true
	if err := o.validate(); err != nil {
		return err
	}
	switch {
	case o.saveSnapshot != "":
		return usageErrorf("--save-snapshot does not apply to mcp: the server writes no file; save one with %s check --save-snapshot FILE", o.hints().karpnet())
	case o.maxAge < budget.Floor:
		return usageErrorf("--max-age %s is below %s: collections share EC2's request budget with Karpenter", o.maxAge, budget.Floor)
	}
	// Standard output is the protocol's: nothing else may write there. Standard error takes
	// the tool calls' lines and the collections' notes, which may come at once.
	out, errOut := o.Out, o.ErrOut
	o.Out, o.ErrOut = io.Discard, &syncWriter{w: errOut}
	defer func() { o.Out, o.ErrOut = out, errOut }()
	o.machineOutput = true
	what := "the current context"
	switch {
	case o.demo:
		what = "the embedded demo"
	case o.snapshotFile != "":
		what = "snapshot " + o.snapshotFile
	case o.multi():
		what = "several contexts"
	case o.configFlags.Context != "":
		what = "context " + o.configFlags.Context
	}
	fmt.Fprintf(o.ErrOut, "%s karpnet mcp: serving %s over stdio (tools: check, describe, explain, diff, max-pods)\n",
		time.Now().UTC().Format(time.RFC3339), what)
	src := &mcpSource{o: o.commonOptions, maxAge: o.maxAge}
	err := mcp.Serve(ctx, src, io.NopCloser(o.In), nopWriteCloser{out}, mcp.Options{Version: version.Get().Version, Log: o.ErrOut, Demo: o.demo})
	if err != nil && ctx.Err() == nil {
		return collectError(fmt.Errorf("mcp: %w", err))
	}
	return nil
}

// syncWriter serialises the writes of concurrent tool calls.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// nopWriteCloser is standard output for the transport, which closes what it writes to.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
