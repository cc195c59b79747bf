package cmd

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
	"github.com/karpnet/kubectl-karpnet/pkg/tui"
)

// tuiOptions runs the full-screen browser over the report check would print.
type tuiOptions struct {
	*commonOptions
	// watch is the interval to re-collect on; zero never does.
	watch time.Duration
}

func newCmdTUI(common *commonOptions) *cobra.Command {
	o := &tuiOptions{commonOptions: common}
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "Browse every node's network in a full-screen terminal UI (the default without a subcommand)",
		Long: `tui opens a full-screen view of the nodes, worst first, with their subnets, ENIs, pod
capacity, EFA interfaces and placement groups; Enter drills into a node, f lists findings by
check, s lists subnets, / filters, r re-collects, ? shows every key. --watch 30s re-collects
on that interval (at least 15s); after each reload the findings new since the previous
collection are marked + and the resolved ones listed. It needs a terminal: for pipes and CI
use check.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return o.run(c.Context()) },
	}
	addWatchFlag(cmd.Flags(), &o.watch)
	return cmd
}

// run starts the TUI; the first load happens inside it, with a spinner.
func (o *tuiOptions) run(ctx context.Context) error {
	o.multiOK = true
	if err := o.validate(); err != nil {
		return err
	}
	every, raisedFrom, err := watchInterval(o.watch)
	if err != nil {
		return err
	}
	// plain is the command that prints the report as text, for pipes and CI.
	plain := o.hints().karpnet() + " check"
	if !o.isTerminal(o.Out) || !o.isTerminal(o.In) {
		return usageErrorf("the terminal UI needs a terminal: for text output run %s", plain)
	}
	mode, _ := style.ParseColorMode(o.color)
	st := style.New(style.Renderer(o.Out, style.Enabled(mode, o.Out, o.getenv)))
	title := "demo"
	if o.demo && o.configFlags.Context != "" {
		title = o.configFlags.Context
	}
	switch {
	case o.allContexts:
		title = "all contexts"
	case o.multi():
		title = strings.Join(o.contexts, ", ")
	case !o.demo:
		title = o.contextName()
	}
	o.tuiProgress = true
	var start atomic.Int64 // when the load in progress started, in Unix nanoseconds
	progress := func() string {
		if m := o.meter.Load(); m != nil {
			return progressLine(m.Progress(), time.Since(time.Unix(0, start.Load())))
		}
		return ""
	}
	// loaded is set once a load succeeds; failed holds the last load's error until one does.
	var (
		loaded atomic.Bool
		failed atomic.Pointer[error]
	)
	load := func(ctx context.Context) (tui.Loaded, error) {
		start.Store(time.Now().UnixNano())
		snap, err := o.load(ctx, collect.Scope{})
		if err != nil {
			failed.Store(&err)
			return tui.Loaded{}, err
		}
		loaded.Store(true)
		if snap.Multi() {
			// The sheets of subnets, classes, NodePools and placement groups are of one cluster.
			return tui.Loaded{Report: diagnose.AnalyzeAll(snap, diagnose.Options{})}, nil
		}
		return tui.Loaded{Report: diagnose.Analyze(snap, diagnose.Options{}), Index: diagnose.NewIndex(snap)}, nil
	}
	if err := tui.Run(ctx, load, tui.Options{In: o.In, Out: o.Out, Styles: st, Title: title, AltScreen: true, PlainCommand: plain,
		Watch: every, WatchNote: watchNote(every, raisedFrom), Progress: progress}); err != nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	if e := failed.Load(); e != nil && !loaded.Load() {
		// Nothing was ever shown: the run failed as check would (exit 3, or 2 for a usage
		// error such as an unknown context), with check's error on standard error.
		return fmt.Errorf("terminal UI: nothing could be loaded: %w", *e)
	}
	return nil
}

// contextName is the kubeconfig context the TUI shows in its header.
func (o *commonOptions) contextName() string {
	if o.configFlags.Context != "" {
		return o.configFlags.Context
	}
	if raw, err := o.configFlags.ToRawKubeConfigLoader().RawConfig(); err == nil {
		return raw.CurrentContext
	}
	return ""
}
