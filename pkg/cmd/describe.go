package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

const describeExample = `  # One node's networking sheet
  %[1]s describe node ip-10-0-50-20.us-west-2.compute.internal

  # Every spot node, as YAML
  %[1]s describe node -l karpenter.sh/capacity-type=spot -o yaml`

// describeOptions are the flags of `describe node`.
type describeOptions struct {
	*commonOptions

	selector string
	output   string

	sel    selection
	format printer.Format
}

func newCmdDescribe(common *commonOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "describe",
		Short: "Show the whole networking picture of nodes and of NodeClaims without a Node",
		Args:  subcommandArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	// kubectl's verbs for showing one object, which describe answers in "did you mean".
	cmd.SuggestFor = []string{"get", "show", "inspect", "view"}
	cmd.AddCommand(newCmdDescribeNode(common), newCmdDescribeNodeClaim(common))
	for _, k := range []subjectKind{subnetKind(), nodeClassKind(), nodePoolKind(), placementGroupKind(), eniKind()} {
		cmd.AddCommand(newCmdDescribeSubject(common, k))
	}
	return cmd
}

func newCmdDescribeNode(common *commonOptions) *cobra.Command {
	o := &describeOptions{commonOptions: common}
	cmd := &cobra.Command{
		Use:     "node NAME... | -l SELECTOR",
		Aliases: kinds.Get(kinds.Node).Words(),
		Short:   "Show one node's identity, addresses, subnet, security groups, ENIs, pod capacity, EFA, placement and findings",
		Example: fmt.Sprintf(describeExample, "kubectl karpnet"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(args); err != nil {
				return err
			}
			return o.run(c.Context())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.selector, "selector", "l", o.selector, "label selector over nodes, instead of names")
	f.StringVarP(&o.output, "output", "o", o.output, "output format: json or yaml (default: the text sheet)")
	registerDescribeCompletion(cmd, o)
	return cmd
}

func (o *describeOptions) complete(args []string) error {
	o.multiOK = true
	if err := o.validate(); err != nil {
		return err
	}
	switch {
	case len(args) == 0 && o.selector == "":
		return usageErrorf("name at least one node, or pass -l SELECTOR: %s", o.hints().list("nodes", "list nodes with kubectl get nodes"))
	case len(args) > 0 && o.selector != "":
		return usageErrorf("pass node names or -l SELECTOR, not both")
	}
	o.format = printer.Table
	o.machineOutput = o.output != ""
	if o.output != "" {
		f, err := printer.ParseFormat(o.output)
		if err != nil || (f != printer.JSON && f != printer.YAML) {
			return usageErrorf("-o/--output %q: use json or yaml, or leave it out for the text sheet", o.output)
		}
		o.format = f
	}
	var err error
	o.sel, err = newSelection(args, o.selector, "", "")
	o.sel.hints = o.hints()
	return err
}

func (o *describeOptions) run(ctx context.Context) error {
	snap, err := o.load(ctx, o.sel.scope())
	if err != nil {
		return err
	}
	o.printNotes(snap)
	report, err := o.sel.analyze(snap, nil, nil)
	if err != nil {
		return err
	}
	o.printUnreachable(report)
	if len(report.Nodes) == 0 {
		return usageErrorf("no node matches %q: %s", o.selector, o.hints().list("nodes", "list nodes with kubectl get nodes --show-labels"))
	}
	if err := printer.PrintNodes(o.Out, report, o.format, o.styles()); err != nil {
		return outputError("node sheet", err)
	}
	return nil
}
