package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

const rootExample = `  # Try karpnet on the embedded demo cluster, no cluster or AWS access needed
  %[1]s demo check

  # Check every node of the current cluster; exit 1 on critical findings
  %[1]s check

  # Fail CI on warnings too, for one NodePool, as JSON
  %[1]s check --nodepool general --fail-on warning -o json

  # Show one node's whole networking picture
  %[1]s describe node ip-10-0-50-20.us-west-2.compute.internal

  # Save what was read, and diagnose it later without cluster or AWS access
  %[1]s check --save-snapshot cluster.json.gz
  %[1]s check --snapshot cluster.json.gz

  # What changed since then: findings new and resolved, node network facts
  %[1]s diff cluster.json.gz`

// NewCmdKarpnet returns the root command, `kubectl karpnet`.
func NewCmdKarpnet(streams genericiooptions.IOStreams) *cobra.Command {
	return newRootCmd(newCommonOptions(streams))
}

func newRootCmd(o *commonOptions) *cobra.Command {
	streams := o.IOStreams
	cmd := &cobra.Command{
		Use:   "karpnet",
		Short: "Networking diagnostics for Karpenter-provisioned EKS nodes",
		Long: `karpnet joins each node with its EC2 instance, subnet, security groups, ENIs, prefixes,
EFA interfaces, placement group and instance-type limits, and with its NodeClaim, NodePool,
EC2NodeClass (or EKS Auto Mode NodeClass), ENIConfig and VPC CNI settings, then flags what is
misconfigured.
It only reads: Kubernetes get/list, and EC2 Describe* and Get* calls.`,
		Example:       fmt.Sprintf(rootExample, "kubectl karpnet"),
		SilenceUsage:  true,
		SilenceErrors: true,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl karpnet"},
		Args:          subcommandArgs,
	}
	tuiCmd := newCmdTUI(o)
	cmd.RunE = tuiCmd.RunE
	cmd.Flags().AddFlag(tuiCmd.Flags().Lookup("watch"))
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	cmd.SetIn(streams.In)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if hint := flagSuggestion(c, err); hint != "" {
			return usageErrorf("%v: %s (see '%s --help')", err, hint, c.CommandPath())
		}
		return usageErrorf("%v: see '%s --help'", err, c.CommandPath())
	})
	o.addFlags(cmd)
	cmd.AddCommand(
		newCmdCheck(o),
		newCmdDescribe(o),
		newCmdDiff(o),
		newCmdDemo(o),
		newCmdMaxPods(o),
		newCmdExplain(o),
		newCmdServe(o),
		newCmdMCP(o),
		registerVersionCompletion(newCmdVersion(o)),
		tuiCmd,
		newCmdCompletion(o),
	)
	return cmd
}

// Execute runs karpnet with args and returns its exit code. Errors are printed once, to
// streams.ErrOut, as "error: ...".
func Execute(ctx context.Context, streams genericiooptions.IOStreams, args []string) int {
	o := newCommonOptions(streams)
	o.Out = outputFor(o.Out, o.isTerminal)
	return execute(ctx, o, args)
}

// execute runs the root command over o, which tests build with fake collectors.
func execute(ctx context.Context, o *commonOptions, args []string) int {
	streams := o.IOStreams
	cmd := newRootCmd(o)
	if args == nil {
		args = []string{} // cobra reads os.Args for nil; args are always the caller's
	}
	cmd.SetArgs(args)
	failed, err := cmd.ExecuteContextC(ctx)
	var coded *exitError
	switch {
	case err == nil || errors.Is(err, errFindings):
	case readerLeft(o.Out, err):
		// The reader had what it wanted (| head): nothing more to say, and nothing failed.
		return ExitOK
	case errors.As(err, &coded) && coded.err == nil:
		// The code says it all; what the command had to say was printed.
	case errors.As(err, &coded):
		fmt.Fprintf(streams.ErrOut, "error: %s\n", printableLine(err.Error()))
		if len(coded.list) > 0 {
			items := make([]string, len(coded.list))
			for i, v := range coded.list {
				items[i] = printableLine(v)
			}
			fmt.Fprintln(streams.ErrOut, strings.Join(wrapList(items, o.listWidth(streams.ErrOut)), "\n"))
		}
	default:
		// cobra's own parsing errors: unknown command or flag, wrong argument count.
		fmt.Fprintf(streams.ErrOut, "error: %s: see '%s --help'\n", printableLine(err.Error()), failed.CommandPath())
	}
	return exitCode(err)
}
