package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diff"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// liveSource names the live cluster as a side of a diff.
const liveSource = "live"

const diffExample = `  # What changed between two saved snapshots
  %[1]s diff before.json.gz after.json.gz

  # Did my fix work? Compare a snapshot with the cluster now; exit 1 on new criticals
  %[1]s check --save-snapshot before.json.gz
  %[1]s diff before.json.gz

  # The same as JSON, failing on new warnings too
  %[1]s diff before.json.gz after.json.gz -o json --fail-on warning`

// diffOptions are the flags and arguments of `diff`.
type diffOptions struct {
	*commonOptions

	output string
	failOn string

	// Set by complete.
	oldFile, newFile string
	format           printer.Format
	failure          failOn
}

func newCmdDiff(common *commonOptions) *cobra.Command {
	o := &diffOptions{commonOptions: common, failOn: "critical"}
	cmd := &cobra.Command{
		Use:   "diff OLD [NEW]",
		Short: "Show the findings and node network facts that changed between two snapshots, or a snapshot and the cluster now",
		Long: `diff analyses two snapshots saved with --save-snapshot (plain or gzip), or one snapshot and
the live cluster when NEW is left out, and prints what changed: findings new in NEW,
resolved and with another severity (a finding is its check ID, node and resource), nodes
added and removed, the networking facts of nodes in both that changed, and NodeClaims
without a Node that appeared or went.

` + factList() + `

Exit codes: 0 NEW has no finding at or above --fail-on that OLD did not have; 1 it has;
2 usage error, or a snapshot file that cannot be read; 3 the live cluster could not be read.`,
		Example: fmt.Sprintf(diffExample, "kubectl karpnet"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(args); err != nil {
				return err
			}
			return o.run(c.Context())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", o.output, "output format: json or yaml (default: text)")
	f.StringVar(&o.failOn, "fail-on", o.failOn, "exit 1 when NEW has a finding at or above this severity that OLD did not: critical, warning, info or never")
	registerDiffCompletion(cmd)
	return cmd
}

// factList names the node facts a diff compares, for the help text, in lines of at most 90
// columns.
func factList() string {
	var b strings.Builder
	line := "Node facts compared:"
	for _, n := range diff.NodeFactNames() {
		if len(line)+1+len(n)+1 > 90 {
			b.WriteString(line + "\n")
			line = " "
		}
		line += " " + n + ","
	}
	b.WriteString(strings.TrimSuffix(line, ",") + ".")
	return b.String()
}

// complete turns arguments and flags into typed values; it does no I/O.
func (o *diffOptions) complete(args []string) error {
	if err := o.validate(); err != nil {
		return err
	}
	switch {
	case len(args) == 0 || len(args) > 2:
		return usageErrorf("diff takes OLD and NEW snapshot files, or OLD alone to compare with the live cluster: got %d arguments", len(args))
	case o.snapshotFile != "":
		return usageErrorf("--snapshot does not apply to diff: name the snapshots as arguments, diff OLD NEW")
	case len(args) == 2 && o.saveSnapshot != "":
		return usageErrorf("--save-snapshot saves the live cluster: use it with diff OLD alone")
	case o.saveSnapshot != "" && o.saveSnapshot == args[0]:
		return usageErrorf("OLD and --save-snapshot name the same file: choose another output file")
	}
	o.oldFile = args[0]
	if len(args) == 2 {
		o.newFile = args[1]
	}
	o.format = printer.Table
	if o.output != "" {
		f, err := printer.ParseFormat(o.output)
		if err != nil || (f != printer.JSON && f != printer.YAML) {
			return usageErrorf("-o/--output %q: use json or yaml, or leave it out for text", o.output)
		}
		o.format = f
	}
	var err error
	o.failure, err = parseFailOn(o.failOn)
	return err
}

// run reads both sides, analyses them, prints the diff and decides the exit code. OLD is read
// first, so a bad file name fails before the live cluster is read, and analysed at once, so
// its snapshot is not held while NEW is read.
func (o *diffOptions) run(ctx context.Context) error {
	oldReport, err := o.analyzeFile(o.oldFile)
	if err != nil {
		return err
	}
	newSide := diff.Side{Source: liveSource}
	var newSnap *snapshot.Snapshot
	if o.newFile != "" {
		newSide.Source = o.newFile
		if newSnap, err = o.readSide(o.newFile); err != nil {
			return err
		}
	} else {
		if newSnap, err = o.load(ctx, collect.Scope{}); err != nil {
			return err
		}
		o.printNotes(newSnap)
	}
	d := diff.Compare(oldReport, diagnose.Analyze(newSnap, diagnose.Options{}), diff.Side{Source: o.oldFile}, newSide)
	if err := printer.PrintDiff(o.Out, d, o.format, o.styles()); err != nil {
		return outputError("diff", err)
	}
	if o.format != printer.Table {
		// Text shows them at its top; JSON and YAML carry them in warnings, for programs.
		for _, w := range d.Warnings {
			fmt.Fprintf(o.ErrOut, "warning: %s\n", printableLine(w))
		}
	}
	if o.failure.reached(d.Worsened) || o.failure.reached(d.Uncertain) {
		return errFindings
	}
	return nil
}

// analyzeFile reads and analyses one snapshot file; the snapshot is dropped once analysed.
func (o *diffOptions) analyzeFile(name string) (diagnose.Report, error) {
	s, err := o.readSide(name)
	if err != nil {
		return diagnose.Report{}, err
	}
	return diagnose.Analyze(s, diagnose.Options{}), nil
}

// readSide reads one snapshot file of the diff; a file that cannot be read is a usage error
// that names it.
func (o *diffOptions) readSide(name string) (*snapshot.Snapshot, error) {
	s, err := readSnapshotFile(name, o.snapshotMaxBytes)
	if err != nil {
		return nil, &exitError{code: ExitUsage, err: err}
	}
	if s.Multi() {
		return nil, usageErrorf("snapshot %s holds %d clusters: diff compares snapshots of one cluster", name, len(s.Clusters))
	}
	return s, nil
}

// registerDiffCompletion completes diff's two snapshot files and its flag values.
func registerDiffCompletion(cmd *cobra.Command) {
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) >= 2 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return []string{"json", "gz"}, cobra.ShellCompDirectiveFilterFileExt
	}
	registerFlagCompletion(cmd, "output", valueCompletion(string(printer.JSON), string(printer.YAML)))
	registerFlagCompletion(cmd, "fail-on", valueCompletion(
		diagnose.Critical.String(), diagnose.Warning.String(), diagnose.Info.String(), "never"))
}
