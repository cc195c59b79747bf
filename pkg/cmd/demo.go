package cmd

import (
	"github.com/spf13/cobra"
)

func newCmdDemo(common *commonOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run check or describe over an embedded demo cluster (no cluster or AWS access needed)",
		Long: `demo runs karpnet over a snapshot of a realistic cluster that ships inside the binary:
a general NodePool over three zones, an EFA NodePool in a cluster placement group with
efa-only interfaces, custom networking with ENIConfigs and prefix delegation, and a few
deliberate faults among mostly healthy nodes. Without a subcommand it opens the terminal UI
(on a terminal; elsewhere use demo check).`,
		Example: `  kubectl karpnet demo
  kubectl karpnet demo check -o wide
  kubectl karpnet demo describe node ip-10-0-64-138.us-west-2.compute.internal
  kubectl karpnet demo mcp`,
		Args: subcommandArgs,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			common.demo = true
			return nil
		},
	}
	tuiCmd := newCmdTUI(common)
	cmd.RunE = tuiCmd.RunE
	cmd.Flags().AddFlag(tuiCmd.Flags().Lookup("watch"))
	cmd.AddCommand(newCmdCheck(common), newCmdDescribe(common), newCmdServe(common), newCmdMCP(common), tuiCmd)
	return cmd
}
