package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

const checkExample = `  # Check every node; exit 1 if any finding is critical
  %[1]s check

  # Check two nodes, and fail on warnings as well
  %[1]s check ip-10-0-1-10.us-west-2.compute.internal ip-10-0-2-20.us-west-2.compute.internal --fail-on warning

  # Check one NodePool's nodes, with remedies
  %[1]s check --nodepool general -o wide

  # Only the subnet checks, as JSON for a pipeline
  %[1]s check --only subnet-ip-exhaustion,subnet-not-selected -o json

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

	// Set by complete.
	sel     selection
	format  printer.Format
	failure failOn
}

func newCmdCheck(common *commonOptions) *cobra.Command {
	o := &checkOptions{commonOptions: common, output: "table", failOn: "critical"}
	cmd := &cobra.Command{
		Use:   "check [NODE...]",
		Short: "Flag misconfigured node networking, with stable finding IDs and exit codes",
		Long: `check joins every node (or the chosen ones) with EC2 and Karpenter, runs the networking
checks and prints the findings worst first, then a summary line.

Exit codes: 0 no finding at or above --fail-on; 1 findings at or above it; 2 usage error;
3 could not collect at all (API server unreachable or unauthenticated, nodes forbidden or
failing, snapshot unreadable). With --contexts or --all-contexts the code covers every
cluster; one that cannot be read is a data-unavailable warning, and 3 means none could be.`,
		Example: fmt.Sprintf(checkExample, "kubectl karpnet"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(args); err != nil {
				return err
			}
			return o.run(c.Context())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.selector, "selector", "l", o.selector, "label selector over nodes (e.g. -l karpenter.sh/capacity-type=spot)")
	f.StringVar(&o.nodePool, "nodepool", o.nodePool, "only nodes of this Karpenter NodePool")
	f.StringVar(&o.nodeClass, "nodeclass", o.nodeClass, "only nodes of this EC2NodeClass (or EKS Auto Mode NodeClass)")
	f.StringVarP(&o.output, "output", "o", o.output, "output format: table, wide, json or yaml")
	f.StringVar(&o.failOn, "fail-on", o.failOn, "exit 1 when a finding is at or above this severity: critical, warning, info or never")
	f.StringSliceVar(&o.only, "only", o.only, "run only these check IDs (comma-separated)")
	f.StringSliceVar(&o.skip, "skip", o.skip, "skip these check IDs (comma-separated)")
	registerCheckCompletion(cmd, o)
	return cmd
}

// complete turns flags into typed values; it does no I/O.
func (o *checkOptions) complete(args []string) error {
	o.multiOK = true
	if err := o.validate(); err != nil {
		return err
	}
	var err error
	if o.format, err = printer.ParseFormat(o.output); err != nil {
		return usageErrorf("-o/--output: %v", err)
	}
	if o.failure, err = parseFailOn(o.failOn); err != nil {
		return err
	}
	if len(o.only) > 0 && len(o.skip) > 0 {
		return usageErrorf("--only and --skip cannot be used together: choose one")
	}
	for flag, ids := range map[string][]string{"--only": o.only, "--skip": o.skip} {
		if err := diagnose.ValidateCheckIDs(ids); err != nil {
			return usageErrorf("%s: %v", flag, err)
		}
	}
	o.sel, err = newSelection(args, o.selector, o.nodePool, o.nodeClass)
	return err
}

// run collects, analyses, prints and decides the exit code.
func (o *checkOptions) run(ctx context.Context) error {
	snap, err := o.load(ctx, o.sel.scope())
	if err != nil {
		return err
	}
	o.printNotes(snap)
	report, err := o.sel.analyze(snap, o.only, o.skip)
	if err != nil {
		return err
	}
	if err := printer.PrintReport(o.Out, report, o.format, o.styles()); err != nil {
		return outputError("report", err)
	}
	if o.failed(report) {
		return errFindings
	}
	return nil
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
