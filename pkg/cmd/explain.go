package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

const explainExample = `  # What a check means, when it fires and does not, why it matters, what to do, and its sources
  %[1]s explain subnet-ip-exhaustion

  # Every check, one line each
  %[1]s explain --list

  # The whole catalogue as JSON, or as Markdown
  %[1]s explain -o json
  %[1]s explain -o markdown`

// explainOptions are the flags of `explain` and `checks`.
type explainOptions struct {
	*commonOptions
	list   bool
	output string

	// Set by complete.
	checks []diagnose.Check
	format printer.ExplainFormat
}

func newCmdExplain(common *commonOptions) *cobra.Command {
	o := &explainOptions{commonOptions: common}
	cmd := &cobra.Command{
		Use:     "explain [ID...]",
		Aliases: []string{"checks"},
		Short:   "Explain karpnet's checks: when each fires, when it does not, why, the remedy and the sources",
		Long: `explain prints the catalogue entry of each check named (every check when none is): its
severities and family, when it fires and what it deliberately does not fire on, why that matters on
EKS, the remedy, and the upstream code, issues and documents behind it. --list (or the alias
"checks") prints one line per check instead.

Exit codes: 0 printed; 2 usage error or unknown check ID.`,
		Example: fmt.Sprintf(explainExample, "kubectl karpnet"),
		RunE: func(c *cobra.Command, args []string) error {
			if c.CalledAs() == "checks" {
				o.list = true
			}
			if err := o.complete(args); err != nil {
				return err
			}
			return o.run()
		},
		ValidArgsFunction: explainIDCompletion,
	}
	f := cmd.Flags()
	f.BoolVar(&o.list, "list", false, "one line per check: ID, severities, family and title")
	f.StringVarP(&o.output, "output", "o", "", "output format: json, yaml or markdown (default text)")
	registerFlagCompletion(cmd, "output", valueCompletion(string(printer.ExplainJSON), string(printer.ExplainYAML), string(printer.ExplainMarkdown)))
	return cmd
}

// complete checks the flags and IDs; it does no I/O.
func (o *explainOptions) complete(args []string) error {
	if err := o.validate(); err != nil {
		return err
	}
	switch f := printer.ExplainFormat(o.output); f {
	case "", printer.ExplainText:
		o.format = printer.ExplainText
	case printer.ExplainJSON, printer.ExplainYAML, printer.ExplainMarkdown:
		o.format = f
	default:
		return usageErrorf("-o/--output %q: use json, yaml or markdown, or leave it out for text", o.output)
	}
	var err error
	o.checks, err = checksNamed(args)
	return err
}

// checksNamed returns the checks of ids, in their order, every check when there is none; an
// unknown ID is a usage error with "did you mean".
func checksNamed(ids []string) ([]diagnose.Check, error) {
	if err := checkIDsError("", ids); err != nil {
		return nil, err
	}
	checks := diagnose.Checks()
	if len(ids) == 0 {
		return checks, nil
	}
	byID := map[string]diagnose.Check{}
	for _, c := range checks {
		byID[c.ID] = c
	}
	out := make([]diagnose.Check, 0, len(ids))
	for _, id := range ids {
		out = append(out, byID[id])
	}
	return out, nil
}

// run prints the entries, or the list.
func (o *explainOptions) run() error {
	var err error
	switch {
	case o.list && o.format == printer.ExplainMarkdown:
		err = printer.CatalogueMarkdown(o.Out, o.checks)
	case o.list && o.format == printer.ExplainText:
		err = writeCheckList(o.Out, o.checks)
	default:
		err = printer.PrintExplain(o.Out, o.checks, o.format, o.styles())
	}
	if err != nil {
		return outputError("catalogue", err)
	}
	return nil
}

// writeCheckList prints one aligned line per check: ID, severities, family, title.
func writeCheckList(w io.Writer, checks []diagnose.Check) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tFAMILY\tTITLE")
	for _, c := range checks {
		var sev []string
		for _, s := range c.Severities() {
			sev = append(sev, s.String())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, strings.Join(sev, "/"), c.Family, c.Title)
	}
	return tw.Flush()
}

// explainIDCompletion completes check IDs not named yet, with their titles.
func explainIDCompletion(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, c := range diagnose.Checks() {
		if strings.HasPrefix(c.ID, toComplete) && !slices.Contains(args, c.ID) {
			out = append(out, cobra.CompletionWithDesc(c.ID, c.Title))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
