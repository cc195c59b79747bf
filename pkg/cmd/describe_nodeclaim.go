package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

const describeNodeClaimExample = `  # Why a NodeClaim has no Node: its conditions, instance, subnet's way out, events and findings
  %[1]s describe nodeclaim batch-szxd6

  # The same as JSON
  %[1]s describe nodeclaim batch-szxd6 -o json`

// describeNodeClaimOptions are the flags of `describe nodeclaim`.
type describeNodeClaimOptions struct {
	*commonOptions

	output string

	name   string
	format printer.Format
}

func newCmdDescribeNodeClaim(common *commonOptions) *cobra.Command {
	o := &describeNodeClaimOptions{commonOptions: common}
	cmd := &cobra.Command{
		Use:     "nodeclaim NAME",
		Aliases: kinds.Get(kinds.NodeClaim).Words(),
		Short:   "Show why a NodeClaim has no Node: conditions, instance, the subnet's way out, events and findings",
		Example: fmt.Sprintf(describeNodeClaimExample, "kubectl karpnet"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(args); err != nil {
				return err
			}
			return o.run(c.Context())
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", o.output, "output format: json or yaml (default: the text sheet)")
	registerDescribeNodeClaimCompletion(cmd, o)
	return cmd
}

func (o *describeNodeClaimOptions) complete(args []string) error {
	if err := o.validate(); err != nil {
		return err
	}
	switch {
	case len(args) == 0:
		return usageErrorf("name a NodeClaim: %s", o.hints().list("NodeClaims", "list them with kubectl get nodeclaims"))
	case len(args) > 1:
		return usageErrorf("name one NodeClaim, not %d: describe them one at a time, or see them all with %s check", len(args), o.hints().karpnet())
	}
	o.name = args[0]
	o.format = printer.Table
	o.machineOutput = o.output != ""
	if o.output != "" {
		f, err := printer.ParseFormat(o.output)
		if err != nil || (f != printer.JSON && f != printer.YAML) {
			return usageErrorf("-o/--output %q: use json or yaml, or leave it out for the text sheet", o.output)
		}
		o.format = f
	}
	return nil
}

// run reads every node, since a NodeClaim has no Node only when none of them answers to it.
func (o *describeNodeClaimOptions) run(ctx context.Context) error {
	snap, err := o.load(ctx, collect.Scope{})
	if err != nil {
		return err
	}
	o.printNotes(snap)
	report := diagnose.Analyze(snap, diagnose.Options{})
	for _, c := range report.NodeClaims {
		if c.Name == o.name {
			if err := printer.PrintNodeClaim(o.Out, c, report.Taken, o.format, o.styles()); err != nil {
				return outputError("NodeClaim sheet", err)
			}
			return nil
		}
	}
	return o.notDescribed(snap, report)
}

// notDescribed says why the NodeClaim has no sheet: it has a Node, whose sheet describes it;
// it was not found; or its Node could not be looked for.
func (o *describeNodeClaimOptions) notDescribed(snap *snapshot.Snapshot, report diagnose.Report) error {
	var claim *snapshot.NodeClaim
	for i := range snap.NodeClaims {
		if snap.NodeClaims[i].Name == o.name {
			claim = &snap.NodeClaims[i]
		}
	}
	switch {
	case claim == nil && snap.Unavailable(snapshot.SourceNodeClaims):
		return collectError(fmt.Errorf("nodeclaim %q: the NodeClaims could not be read; kubectl karpnet check names the missing permission", o.name))
	case claim == nil:
		next := o.hints().list("NodeClaims", "list NodeClaims with kubectl get nodeclaims")
		names := make([]string, len(snap.NodeClaims))
		for i := range snap.NodeClaims {
			names[i] = snap.NodeClaims[i].Name
		}
		if hint := didYouMean(suggestions(o.name, names)); hint != "" {
			next = printableLine(hint)
		}
		return usageErrorf("nodeclaim %q not found: %s", printableLine(o.name), next)
	}
	for _, n := range report.Nodes {
		id := n.Identity
		if id.NodeClaim == o.name || claim.NodeName != "" && id.Node == claim.NodeName ||
			claim.ProviderID != "" && id.ProviderID == claim.ProviderID {
			return usageErrorf("nodeclaim %q has Node %s, whose sheet shows its networking: run %s describe node %s",
				o.name, printableLine(id.Node), o.hints().karpnet(), printableLine(id.Node))
		}
	}
	return collectError(fmt.Errorf("nodeclaim %q: whether it has a Node is unknown, the Nodes could not be read; "+
		"kubectl karpnet check names the missing permission", o.name))
}
