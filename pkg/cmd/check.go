package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diff"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/version"
)

const checkExample = `  # Check every node; exit 1 if any finding is critical
  %[1]s check

  # Check two nodes, and fail on warnings as well
  %[1]s check ip-10-0-1-69.us-west-2.compute.internal ip-10-0-16-33.us-west-2.compute.internal --fail-on warning

  # Check one NodePool's nodes, with remedies
  %[1]s check --nodepool general -o wide

  # Only the subnet checks, as JSON for a pipeline
  %[1]s check --only subnet-ip-exhaustion,subnet-not-selected -o json

  # What matters now: criticals and warnings only (the summary line still counts every finding)
  %[1]s check --min-severity warning

  # A JUnit report for CI, failing on warnings; SARIF for code scanning
  %[1]s check -o junit --fail-on warning > karpnet-junit.xml
  %[1]s check -o sarif > karpnet.sarif

  # Several clusters in one run, grouped by cluster
  %[1]s check --contexts prod-use1,prod-usw2,staging`

// checkOptions are the flags of `check`.
type checkOptions struct {
	*commonOptions

	selector  string
	nodePool  string
	nodeClass string
	output    string
	failOn    string
	only      []string
	skip      []string
	// minSeverity is --min-severity: the findings listed; floor is what complete made of it.
	minSeverity string
	floor       diagnose.Severity
	watch       time.Duration
	// allowUnreachable lets a run over several clusters exit on the findings alone when some
	// (not all) of them could not be read.
	allowUnreachable bool

	// Set by complete.
	sel     selection
	format  printer.Format
	failure failOn
	every   time.Duration
	// staleSaid is set once -v has said which checks were verified against older versions than
	// the cluster runs: a watch says it once.
	staleSaid bool
}

func newCmdCheck(common *commonOptions) *cobra.Command {
	o := &checkOptions{commonOptions: common, output: "table", failOn: "critical", minSeverity: "info"}
	cmd := &cobra.Command{
		Use:   "check [NODE...]",
		Short: "Flag misconfigured node networking, with stable finding IDs and exit codes",
		Long: `check joins every node (or the chosen ones) with EC2 and Karpenter, runs the networking
checks and prints the findings worst first, then a summary line.

Exit codes: 0 no finding at or above --fail-on; 1 findings at or above it; 2 usage error;
3 could not collect at all (API server unreachable or unauthenticated, nodes forbidden or
failing, snapshot unreadable). With --contexts or --all-contexts the code covers every
cluster: 3 when any of them cannot be read at all (the report of the others is printed first), unless
--allow-unreachable makes such a cluster a data-unavailable warning (3 then only when none
can be read).

--watch 30s collects again on that interval (at least 15s) until interrupted: the first
report in full, then after each collection what changed since the one before, as diff
prints it (with -o json or yaml, every report whole, one document each). A collection that
fails is reported on standard error and retried at the next interval. An interrupted watch
exits 130.`,
		Example: fmt.Sprintf(checkExample, "kubectl karpnet"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(args); err != nil {
				return err
			}
			return o.run(c.Context())
		},
	}
	// Words for a check, which check answers in "did you mean".
	cmd.SuggestFor = []string{"diagnose", "doctor", "lint", "scan", "verify"}
	f := cmd.Flags()
	f.StringVarP(&o.selector, "selector", "l", o.selector, "label selector over nodes (e.g. -l karpenter.sh/capacity-type=spot)")
	f.StringVar(&o.nodePool, "nodepool", o.nodePool, "only nodes of this Karpenter NodePool")
	f.StringVar(&o.nodeClass, "nodeclass", o.nodeClass, "only nodes of this EC2NodeClass (or EKS Auto Mode NodeClass)")
	f.StringVarP(&o.output, "output", "o", o.output, "output format: table, wide, json, yaml, junit (JUnit XML) or sarif (SARIF 2.1.0)")
	f.StringVar(&o.failOn, "fail-on", o.failOn, "exit 1 when a finding is at or above this severity: critical, warning, info or never")
	f.StringSliceVar(&o.only, "only", o.only, "run only these check IDs (comma-separated)")
	f.StringSliceVar(&o.skip, "skip", o.skip, "skip these check IDs (comma-separated)")
	f.StringVar(&o.minSeverity, "min-severity", o.minSeverity, "list only findings at or above this severity, in every format: critical, warning or info (the summary still counts every finding; --fail-on judges every finding)")
	f.BoolVar(&o.allowUnreachable, "allow-unreachable", o.allowUnreachable,
		"with --contexts or --all-contexts, a cluster that cannot be read is a data-unavailable warning instead of exit 3 (exit 3 still when none can be read)")
	addWatchFlag(f, &o.watch)
	registerCheckCompletion(cmd, o)
	registerFlagCompletion(cmd, "min-severity", valueCompletion(
		diagnose.Critical.String(), diagnose.Warning.String(), diagnose.Info.String()))
	return cmd
}

// complete turns flags into typed values; it does no I/O.
func (o *checkOptions) complete(args []string) error {
	o.multiOK = true
	if err := o.validate(); err != nil {
		return err
	}
	var err error
	if o.format, err = printer.ParseFormat(o.output, printer.CheckFormats()...); err != nil {
		return usageErrorf("-o/--output: %v", err)
	}
	o.machineOutput = o.format != printer.Table && o.format != printer.Wide
	if o.failure, err = parseFailOn(o.failOn); err != nil {
		return err
	}
	if o.floor, err = parseMinSeverity(o.minSeverity); err != nil {
		return err
	}
	if len(o.only) > 0 && len(o.skip) > 0 {
		return usageErrorf("--only and --skip cannot be used together: choose one")
	}
	for flag, ids := range map[string][]string{"--only": o.only, "--skip": o.skip} {
		if err := checkIDsError(flag, ids); err != nil {
			return err
		}
	}
	var raisedFrom time.Duration
	if o.every, raisedFrom, err = watchInterval(o.watch); err != nil {
		return err
	}
	if o.every > 0 && (o.format == printer.JUnit || o.format == printer.SARIF) {
		return usageErrorf("--watch prints a report after each collection: use it with table, wide, json or yaml, not %s", o.format)
	}
	if o.every > 0 {
		fmt.Fprintln(o.ErrOut, watchNote(o.every, raisedFrom))
	}
	o.sel, err = newSelection(args, o.selector, o.nodePool, o.nodeClass)
	o.sel.hints = o.hints()
	return err
}

// run collects, analyses, prints and decides the exit code; with --watch it goes on.
func (o *checkOptions) run(ctx context.Context) error {
	report, err := o.collect(ctx)
	if err != nil {
		return err
	}
	err = printer.PrintCheck(o.Out, listed(report, o.floor), o.format, o.styles(), o.ci())
	switch {
	case readerLeft(o.Out, err):
		// The reader had what it wanted (| head): the exit code is still the report's, so a
		// pipeline that checks it fails on the findings it did not read, and a watch ends.
	case err != nil:
		return outputError("report", err)
	case o.every > 0:
		return o.watchFrom(ctx, report)
	}
	if err := o.unreadClusters(report); err != nil {
		return err
	}
	if o.failed(report) {
		return errFindings
	}
	return nil
}

// unreadClusters is the error (exit 3) of a report over several clusters of which some could
// not be read at all, nil when every one was read or --allow-unreachable is set: a gate over
// several clusters does not pass on one it never read. The report is printed before it.
func (o *checkOptions) unreadClusters(r diagnose.Report) error {
	if o.allowUnreachable {
		return nil
	}
	var unread []string
	for _, c := range r.Clusters {
		if c.Status == diagnose.StatusUnreachable {
			unread = append(unread, fmt.Sprintf("%s (%s)", printableLine(c.Context), printableLine(c.Gap)))
		}
	}
	if len(unread) == 0 {
		return nil
	}
	what := "context"
	if len(unread) > 1 {
		what = "contexts"
	}
	return collectError(fmt.Errorf("%d of %d clusters could not be read: %s %s; the report covers the others "+
		"(pass --allow-unreachable to exit on their findings alone)", len(unread), len(r.Clusters), what, strings.Join(unread, "; ")))
}

// collect reads the cluster (or the snapshot) and analyses it.
func (o *checkOptions) collect(ctx context.Context) (diagnose.Report, error) {
	snap, err := o.load(ctx, o.sel.scope())
	if err != nil {
		return diagnose.Report{}, err
	}
	o.printNotes(snap)
	if !o.staleSaid {
		o.staleSaid = true
		o.printStale(snap, diagnose.SelectedChecks(o.only, o.skip))
	}
	r, err := o.sel.analyze(snap, o.only, o.skip)
	// The notes the analysis added (a CiliumNode's first-interface-index out of range), as
	// printNotes says the snapshot's.
	for _, n := range r.AnalysisNotes {
		fmt.Fprintf(o.ErrOut, "note: %s\n", printableLine(n))
	}
	return r, err
}

// watchFrom collects every o.every after the report prev until ctx ends, printing what
// changed since the collection before (or, for JSON and YAML, each report whole). A collection
// that fails is said on standard error and tried again at the next interval; the watch only
// ends by interruption, with ExitInterrupted.
func (o *checkOptions) watchFrom(ctx context.Context, prev diagnose.Report) error {
	st := o.styles()
	shown := 1 // the collection prev is
	for n := 2; ; n++ {
		if !o.sleep(ctx, o.every) {
			return errWatchEnded
		}
		next, err := o.collect(ctx)
		switch {
		case ctx.Err() != nil:
			return errWatchEnded
		case err != nil:
			fmt.Fprintf(o.ErrOut, "watch: collection %d failed, trying again in %s: %s\n", n, o.every, printableLine(err.Error()))
			continue
		}
		if o.format == printer.JSON || o.format == printer.YAML {
			err = printer.PrintReport(o.Out, listed(next, o.floor), o.format, st)
		} else {
			d := diff.Compare(listed(prev, o.floor), listed(next, o.floor),
				diff.Side{Source: fmt.Sprintf("collection %d", shown)}, diff.Side{Source: fmt.Sprintf("collection %d", n)})
			fmt.Fprintln(o.Out)
			err = printer.PrintDiff(o.Out, d, printer.Table, st)
		}
		if err != nil {
			return outputError("report", err)
		}
		prev, shown = next, n
	}
}

// ci is what the JUnit and SARIF formats need: the --fail-on threshold the exit code uses,
// the checks that ran and karpnet's version.
func (o *checkOptions) ci() printer.CI {
	return printer.CI{
		FailOn: o.failure.threshold, Never: o.failure.never,
		Checks: diagnose.SelectedChecks(o.only, o.skip), Version: version.Version,
	}
}

// failed reports whether any finding is at or above --fail-on.
func (o *checkOptions) failed(r diagnose.Report) bool {
	return o.failure.reached(func(threshold diagnose.Severity) []diagnose.Finding {
		var at []diagnose.Finding
		for _, f := range r.Findings {
			if f.Severity >= threshold {
				at = append(at, f)
			}
		}
		return at
	})
}
