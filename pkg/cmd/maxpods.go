package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

const maxPodsExample = `  # Max pods of two instance types as the VPC CNI, the EKS calculator and Karpenter see them,
  # from karpnet's embedded table (no AWS access)
  %[1]s max-pods m5.large c6i.2xlarge

  # The same limits read from EC2 now
  %[1]s max-pods m5.large --live --region us-west-2

  # With prefix delegation on in the VPC CNI (ENABLE_PREFIX_DELEGATION=true)
  %[1]s max-pods m5.large --prefix-delegation

  # Custom networking, with Karpenter's RESERVED_ENIS=1
  %[1]s max-pods c6i.2xlarge --custom-networking --reserved-enis 1

  # Every figure as JSON
  %[1]s max-pods p5.48xlarge -o json`

// maxPodsOptions are the flags of `max-pods`.
type maxPodsOptions struct {
	*commonOptions

	density maxpods.Options
	output  string
	live    bool

	// Set by complete.
	types []string
}

func newCmdMaxPods(common *commonOptions) *cobra.Command {
	o := &maxPodsOptions{commonOptions: common, output: "table"}
	cmd := &cobra.Command{
		Use:   "max-pods TYPE...",
		Short: "Show the max pods of instance types: secondary IPs, prefix delegation and Karpenter's value",
		Long: `max-pods reads the network limits of instance types from the EC2 data embedded in karpnet
(DescribeInstanceTypes as of ` + maxpods.OfflineDate + `, every type of the VPC CNI's eni-max-pods.txt), or from
EC2 (DescribeInstanceTypes) with --live and for a type the table does not know, and prints, for
each: the ENIs of its default network card, IPv4 addresses per ENI, vCPUs, whether it is Nitro
("metal" for bare metal), and four max-pods values:

  SECONDARY-IP       ENIs x (IPv4 - 1) + 2, as in the VPC CNI's eni-max-pods.txt
  PREFIX-DELEGATION  ENIs x (IPv4 - 1) x 16 + 2, Nitro and bare metal only, capped at 110
                     (250 above 30 vCPUs) unless --max-allowed
  RECOMMENDED        the kubelet maxPods for the chosen VPC CNI mode, capped the same way
  KARPENTER          what Karpenter sets when kubelet.maxPods is unset; it ignores prefixes

--custom-networking and --pod-eni each take one ENI from the VPC CNI values; --reserved-enis
(Karpenter's RESERVED_ENIS) changes only KARPENTER; --efa-only changes both.

The lines under the table name the source and its date; -o json gives them in each object.

Exit codes: 0 printed; 2 usage error, unknown instance type or no AWS Region to ask EC2;
3 EC2 not readable.`,
		Example: fmt.Sprintf(maxPodsExample, "kubectl karpnet"),
		Args:    cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(args); err != nil {
				return err
			}
			return o.run(c.Context())
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.density.PrefixDelegation, "prefix-delegation", false, "the VPC CNI runs with ENABLE_PREFIX_DELEGATION=true")
	f.BoolVar(&o.density.CustomNetworking, "custom-networking", false, "the VPC CNI runs with AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true (one ENI fewer)")
	f.BoolVar(&o.density.PodENI, "pod-eni", false, "the VPC CNI runs with ENABLE_POD_ENI=true (the trunk ENI takes one)")
	f.Int32Var(&o.density.ReservedENIs, "reserved-enis", 0, "Karpenter's RESERVED_ENIS setting")
	f.Int32Var(&o.density.EFAOnly, "efa-only", 0, "efa-only interfaces on network card 0 (EC2NodeClass spec.networkInterfaces)")
	f.BoolVar(&o.density.MaxAllowed, "max-allowed", false, "do not cap at 110 (250 above 30 vCPUs)")
	f.StringVarP(&o.output, "output", "o", o.output, "output format: table or json")
	f.BoolVar(&o.live, "live", false, "ask EC2 (DescribeInstanceTypes) also for the types karpnet's embedded table knows")
	registerMaxPodsCompletion(cmd)
	return cmd
}

// complete checks the flags and arguments; it does no I/O.
func (o *maxPodsOptions) complete(args []string) error {
	if err := o.validate(); err != nil {
		return err
	}
	if o.snapshotFile != "" || o.saveSnapshot != "" || o.demo {
		return usageErrorf("max-pods reads instance types from EC2 only: drop --snapshot and --save-snapshot")
	}
	if o.output != "table" && o.output != "json" {
		return usageErrorf("-o/--output: unknown format %q: use table or json", o.output)
	}
	if o.density.ReservedENIs < 0 || o.density.EFAOnly < 0 {
		return usageErrorf("--reserved-enis and --efa-only cannot be negative: pass 0 or more")
	}
	o.types = nil
	for _, a := range args {
		if a = strings.TrimSpace(a); a != "" && !slices.Contains(o.types, a) {
			o.types = append(o.types, a)
		}
	}
	if len(o.types) == 0 {
		return usageErrorf("no instance type given: pass one or more, e.g. m5.large")
	}
	return nil
}

// run computes the max pods of the types, from the embedded table for the types it knows
// (unless --live) and from EC2 for the others, and prints them.
func (o *maxPodsOptions) run(ctx context.Context) error {
	rows, err := o.rows(ctx)
	if err != nil {
		return err
	}
	if o.output == "json" {
		if err := writeMaxPodsJSON(o.Out, rows); err != nil {
			return outputError("max pods", err)
		}
		return nil
	}
	if err := writeMaxPodsTable(o.Out, rows, o.density); err != nil {
		return outputError("max pods table", err)
	}
	return nil
}

// rows computes the max pods of the types, from the embedded table for the types it knows
// (unless --live) and from EC2 for the others.
func (o *maxPodsOptions) rows(ctx context.Context) ([]maxpods.Row, error) {
	rows := make([]maxpods.Row, len(o.types))
	var ask []string
	for i, name := range o.types {
		t, ok := maxpods.Offline(name)
		if o.live || !ok {
			ask = append(ask, name)
			continue
		}
		rows[i] = maxpods.For(&t, o.density)
		rows[i].Source, rows[i].SourceDate = maxpods.SourceEmbedded, maxpods.OfflineDate
	}
	if len(ask) > 0 {
		found, region, err := o.describe(ctx, ask)
		if err != nil {
			return nil, err
		}
		var unknown []string
		for i, name := range o.types {
			if rows[i].InstanceType != "" {
				continue
			}
			t, ok := found[name]
			if !ok {
				unknown = append(unknown, name)
				continue
			}
			rows[i] = maxpods.For(t, o.density)
			rows[i].Source, rows[i].Region = maxpods.SourceEC2, region
		}
		if len(unknown) > 0 {
			next := "check the spelling, or pass the --region where it is offered"
			if hint := typeSuggestions(unknown); hint != "" {
				next = hint + " (or pass the --region where it is offered)"
			}
			return nil, usageErrorf("EC2 does not know instance type %s in %s: %s", printableLine(strings.Join(unknown, ", ")), region, next)
		}
	}
	return rows, nil
}

// describe reads instance types from EC2 (DescribeInstanceTypes), by name, and says in which
// Region.
func (o *maxPodsOptions) describe(ctx context.Context, names []string) (map[string]*snapshot.InstanceType, string, error) {
	api, err := collect.LoadEC2(ctx, o.region, o.profile, o.sdkLog())
	if err != nil {
		return nil, "", collectError(err)
	}
	region := o.region
	if c, ok := api.(interface{ Options() ec2.Options }); ok && region == "" {
		region = c.Options().Region
	}
	if region == "" {
		if o.live {
			return nil, "", usageErrorf("no AWS Region configured: pass --region (or set AWS_REGION)")
		}
		next := "pass --region (or set AWS_REGION) to ask EC2, or check the spelling"
		if hint := typeSuggestions(names); hint != "" {
			next = hint + " (or pass --region, or set AWS_REGION, to ask EC2)"
		}
		return nil, "", usageErrorf("karpnet's table (%s) does not know instance type %s: %s", maxpods.OfflineDate,
			printableLine(strings.Join(names, ", ")), next)
	}
	found, err := collect.DescribeInstanceTypes(ctx, api, region, names)
	if err != nil {
		return nil, "", collectError(err)
	}
	byName := map[string]*snapshot.InstanceType{}
	for i := range found {
		byName[found[i].Name] = &found[i]
	}
	return byName, region, nil
}

// writeMaxPodsJSON prints rows as a JSON list.
func writeMaxPodsJSON(w io.Writer, rows []maxpods.Row) error {
	if rows == nil {
		rows = []maxpods.Row{}
	}
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding max pods: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// writeMaxPodsTable prints rows as an aligned table, then what RECOMMENDED and KARPENTER assume.
func writeMaxPodsTable(w io.Writer, rows []maxpods.Row, d maxpods.Options) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TYPE\tENIS\tIPV4/ENI\tVCPUS\tNITRO\tSECONDARY-IP\tPREFIX-DELEGATION\tRECOMMENDED\tKARPENTER")
	for _, r := range rows {
		nitro := "no"
		switch {
		case r.Nitro && r.BareMetal:
			nitro = "metal"
		case r.Nitro:
			nitro = "yes"
		}
		pd := "-"
		if r.PrefixDelegation != nil {
			pd = strconv.FormatInt(*r.PrefixDelegation, 10)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d\t%s\t%d\t%d\n",
			r.InstanceType, r.ENIs, r.IPv4PerENI, r.VCPUs, nitro, r.SecondaryIP, pd, r.Recommended, r.Karpenter)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", strings.Join(append(maxPodsLegend(d), maxPodsSources(rows)...), "\n"))
	return err
}

// maxPodsSources says where the rows' limits come from, one line a source, naming the types
// of each when they came from both.
func maxPodsSources(rows []maxpods.Row) []string {
	var embedded, live []string
	region := ""
	for _, r := range rows {
		if r.Source == maxpods.SourceEC2 {
			live, region = append(live, r.InstanceType), r.Region
		} else {
			embedded = append(embedded, r.InstanceType)
		}
	}
	var lines []string
	if len(embedded) > 0 {
		which := ""
		if len(live) > 0 {
			which = " for " + strings.Join(embedded, ", ")
		}
		lines = append(lines, fmt.Sprintf("Source%s: %s, as of %s; --live asks EC2", which, maxpods.OfflineSource, maxpods.OfflineDate))
	}
	if len(live) > 0 {
		which := ""
		if len(embedded) > 0 {
			which = " for " + strings.Join(live, ", ")
		}
		lines = append(lines, fmt.Sprintf("Source%s: EC2 DescribeInstanceTypes in %s", which, region))
	}
	return lines
}

// maxPodsLegend says what the RECOMMENDED and KARPENTER columns assume, in lines that fit
// 100 columns.
func maxPodsLegend(d maxpods.Options) []string {
	cni := "VPC CNI: secondary IPs"
	if d.PrefixDelegation {
		cni = "VPC CNI: prefix delegation (secondary IPs on other than Nitro)"
	}
	if d.CustomNetworking {
		cni += ", custom networking"
	}
	if d.PodENI {
		cni += ", a trunk ENI"
	}
	var efa string
	if d.EFAOnly > 0 {
		efa = fmt.Sprintf(", %d efa-only", d.EFAOnly)
		cni += efa + " on card 0"
	}
	limit := "capped at 110 (250 above 30 vCPUs)"
	if d.MaxAllowed {
		limit = "uncapped (--max-allowed)"
	}
	return []string{
		cni,
		"RECOMMENDED: kubelet maxPods for that VPC CNI, " + limit,
		fmt.Sprintf("KARPENTER: its value when kubelet.maxPods is unset (RESERVED_ENIS=%d%s); ignores prefixes",
			d.ReservedENIs, efa),
	}
}

// typeSuggestions is "did you mean m5.large?" for names the embedded table does not know, from
// the types it does ("m5.large for M5.LARGE, m5.xlarge for m5.xlarg" when there are several);
// "" when none is near. Instance type names are lower case, so a name in capitals is
// suggested in lower case.
func typeSuggestions(names []string) string {
	types, err := maxpods.OfflineTypes()
	if err != nil {
		return ""
	}
	known := slices.Collect(maps.Keys(types))
	var pairs []string
	var one []string
	for _, name := range names {
		s := suggestions(name, known)
		if _, ok := types[strings.ToLower(name)]; ok {
			s = []string{strings.ToLower(name)}
		}
		if len(s) == 0 {
			continue
		}
		one = s
		pairs = append(pairs, s[0]+" for "+name)
	}
	switch {
	case len(pairs) == 0:
		return ""
	case len(names) == 1:
		return printableLine(didYouMean(one))
	}
	return printableLine("did you mean " + strings.Join(pairs, ", ") + "?")
}
