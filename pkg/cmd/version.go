package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/pkg/version"
)

func newCmdVersion(common *commonOptions) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print karpnet's version, commit, build date and Go version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			info := version.Get()
			var err error
			switch output {
			case "":
				_, err = fmt.Fprintf(common.Out, "karpnet %s (commit %s, built %s, %s, %s)\n",
					info.Version, info.Commit, info.Date, info.GoVersion, info.Platform)
			case "json":
				b, _ := json.MarshalIndent(info, "", "  ")
				_, err = fmt.Fprintf(common.Out, "%s\n", b)
			case "yaml":
				b, _ := yaml.Marshal(info)
				_, err = fmt.Fprint(common.Out, string(b))
			default:
				return usageErrorf("-o/--output %q: use json or yaml, or leave it out", output)
			}
			if err != nil {
				return outputError("version", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json or yaml")
	return cmd
}
