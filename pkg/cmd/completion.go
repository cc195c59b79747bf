package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// completionBinary is the program the printed scripts complete: the plugin binary run
// directly. kubectl completes "kubectl karpnet ..." itself, through kubectl_complete-karpnet.
const completionBinary = "kubectl-karpnet"

const completionLong = `completion prints a shell script that completes karpnet's commands and flags, node names,
NodePool and EC2NodeClass names, check IDs for --only and --skip, and -o values. Names are
read from the cluster (a node or NodePool list, with a short timeout), from --snapshot FILE,
or from the demo; completion never calls EC2.

"kubectl karpnet <TAB>" needs kubectl 1.26 or later, with kubectl's own completion loaded
(kubectl completion bash|zsh|fish|powershell): kubectl then runs kubectl_complete-karpnet
from PATH. Put that script, shipped in the release archive, next to kubectl-karpnet and make
it executable; with krew, into ${KREW_ROOT:-$HOME/.krew}/bin.

The script this command prints completes kubectl-karpnet when it is run directly.`

const completionExample = `  # Complete "kubectl karpnet ..." (kubectl 1.26+), with the plugin installed by krew
  install -m 0755 kubectl_complete-karpnet "${KREW_ROOT:-$HOME/.krew}/bin/"

  # bash: in this shell, then in every new one
  source <(%[1]s completion bash)
  %[1]s completion bash > ~/.local/share/bash-completion/completions/kubectl-karpnet

  # zsh
  source <(%[1]s completion zsh)

  # fish
  %[1]s completion fish > ~/.config/fish/completions/kubectl-karpnet.fish

  # PowerShell
  %[1]s completion powershell | Out-String | Invoke-Expression`

// completionShells are the shells `completion` prints scripts for.
func completionShells() []string { return []string{"bash", "zsh", "fish", "powershell"} }

// newCmdCompletion returns `completion SHELL`, which replaces cobra's default command so that
// its help and scripts name kubectl karpnet and kubectl-karpnet rather than "karpnet".
func newCmdCompletion(common *commonOptions) *cobra.Command {
	var noDescriptions bool
	cmd := &cobra.Command{
		Use:       "completion bash|zsh|fish|powershell",
		Short:     "Print a shell completion script for kubectl karpnet",
		Long:      completionLong,
		Example:   fmt.Sprintf(completionExample, "kubectl karpnet"),
		ValidArgs: completionShells(),
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(_ *cobra.Command, args []string) error {
			return writeCompletionScript(common.Out, args[0], !noDescriptions)
		},
	}
	cmd.Flags().BoolVar(&noDescriptions, "no-descriptions", false, "leave descriptions out of the completions")
	return cmd
}

// writeCompletionScript writes cobra's completion script for shell. The scripts ask the
// binary itself (kubectl-karpnet __complete ...) for every completion, so they do not depend
// on the command tree of the command that generates them.
func writeCompletionScript(w io.Writer, shell string, descriptions bool) error {
	gen := &cobra.Command{Use: completionBinary}
	var err error
	switch shell {
	case "bash":
		err = gen.GenBashCompletionV2(w, descriptions)
	case "zsh":
		if descriptions {
			err = gen.GenZshCompletion(w)
		} else {
			err = gen.GenZshCompletionNoDesc(w)
		}
	case "fish":
		err = gen.GenFishCompletion(w, descriptions)
	case "powershell":
		if descriptions {
			err = gen.GenPowerShellCompletionWithDesc(w)
		} else {
			err = gen.GenPowerShellCompletion(w)
		}
	default:
		return usageErrorf("no completion for shell %q: use one of %s", shell, strings.Join(completionShells(), ", "))
	}
	if err != nil {
		return outputError(shell+" completion script", err)
	}
	return nil
}

// registerCheckCompletion completes check's node arguments and flag values.
func registerCheckCompletion(cmd *cobra.Command, o *checkOptions) {
	cmd.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return o.completeNodes(c, args, toComplete, o.selector, o.nodePool, o.nodeClass)
	}
	formats := printer.CheckFormats()
	outputs := make([]string, len(formats))
	for i, f := range formats {
		outputs[i] = f.String()
	}
	registerFlagCompletion(cmd, "output", valueCompletion(outputs...))
	registerFlagCompletion(cmd, "fail-on", valueCompletion(
		diagnose.Critical.String(), diagnose.Warning.String(), diagnose.Info.String(), "never"))
	registerFlagCompletion(cmd, "nodepool", o.completeNodePools)
	registerFlagCompletion(cmd, "nodeclass", o.completeNodeClasses)
	registerFlagCompletion(cmd, "only", checkIDCompletion(&o.only))
	registerFlagCompletion(cmd, "skip", checkIDCompletion(&o.skip))
	registerFlagCompletion(cmd, "selector", cobra.NoFileCompletions)
}

// registerDescribeCompletion completes describe node's arguments and flag values. Names and
// -l exclude each other, so no name is offered once -l is set.
func registerDescribeCompletion(cmd *cobra.Command, o *describeOptions) {
	cmd.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if o.selector != "" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return o.completeNodes(c, args, toComplete, "", "", "")
	}
	registerFlagCompletion(cmd, "output", valueCompletion(string(printer.JSON), string(printer.YAML)))
	registerFlagCompletion(cmd, "selector", cobra.NoFileCompletions)
}

// registerDescribeNodeClaimCompletion completes describe nodeclaim's one NodeClaim name and
// its -o values.
func registerDescribeNodeClaimCompletion(cmd *cobra.Command, o *describeNodeClaimOptions) {
	cmd.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return o.completeNodeClaims(c, toComplete)
	}
	registerFlagCompletion(cmd, "output", valueCompletion(string(printer.JSON), string(printer.YAML)))
}

// registerMaxPodsCompletion completes max-pods' flag values. Instance types are not
// completed: listing them would take EC2 calls.
func registerMaxPodsCompletion(cmd *cobra.Command) {
	cmd.ValidArgsFunction = cobra.NoFileCompletions
	registerFlagCompletion(cmd, "output", valueCompletion("table", "json"))
	registerFlagCompletion(cmd, "reserved-enis", cobra.NoFileCompletions)
	registerFlagCompletion(cmd, "efa-only", cobra.NoFileCompletions)
}

// registerVersionCompletion completes version's -o values.
func registerVersionCompletion(cmd *cobra.Command) *cobra.Command {
	registerFlagCompletion(cmd, "output", valueCompletion("json", "yaml"))
	return cmd
}

// registerCommonCompletion completes the flags every command shares; cmd must define them.
func (o *commonOptions) registerCommonCompletion(cmd *cobra.Command) {
	modes := style.ColorModes()
	colors := make([]string, len(modes))
	for i, m := range modes {
		colors[i] = string(m)
	}
	registerFlagCompletion(cmd, "color", valueCompletion(colors...))
	for flag, f := range o.kubeconfigCompletions() {
		registerFlagCompletion(cmd, flag, f)
	}
	registerFlagCompletion(cmd, "region", cobra.NoFileCompletions)
	registerFlagCompletion(cmd, "cluster-name", cobra.NoFileCompletions)
	registerFlagCompletion(cmd, "profile", cobra.NoFileCompletions)
	if err := cmd.MarkPersistentFlagFilename("snapshot", "json", "gz"); err != nil {
		panic(fmt.Sprintf("registering completion of --snapshot: %v", err))
	}
}

// registerFlagCompletion registers f for cmd's flag name. It panics when the flag does not
// exist or already has a function, a programming error every completion test would show.
func registerFlagCompletion(cmd *cobra.Command, name string, f cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(name, f); err != nil {
		panic(fmt.Sprintf("registering completion of --%s on %s: %v", name, cmd.Name(), err))
	}
}

// valueCompletion completes a flag with a fixed set of values.
func valueCompletion(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return withPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// checkIDCompletion completes a comma-separated list of check IDs: the part after the last
// comma, leaving out IDs already listed there or in earlier uses of the flag (given). Each
// completion carries the check's title as its description and no trailing space, so another
// comma can follow.
func checkIDCompletion(given *[]string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		listed, partial := "", toComplete
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			listed, partial = toComplete[:i+1], toComplete[i+1:]
		}
		used := append(strings.Split(listed, ","), *given...)
		var out []string
		for _, c := range diagnose.Checks() {
			if strings.HasPrefix(c.ID, partial) && !slices.Contains(used, c.ID) {
				out = append(out, cobra.CompletionWithDesc(listed+c.ID, c.Title))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// withPrefix returns the values that start with prefix, in their order.
func withPrefix(values []string, prefix string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}
