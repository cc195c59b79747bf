package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// subjectKind is one kind of subject `describe` has a sheet for besides nodes and NodeClaims:
// how its command is named and documented, how its names are completed, and how its sheets
// are built and printed.
type subjectKind struct {
	use, short, example string
	// kind is the kind in the table of kinds, whose plural and aliases the command also
	// answers to; also are other kinds it describes (a NodeClass's EC2NodeClass).
	kind kinds.Kind
	also []kinds.Kind
	// names reads the kind's names for completion from a snapshot or the live cluster; nil
	// live means they are completed only from the demo and --snapshot FILE.
	names nameSource
	// describe builds the sheets of names and returns what prints them, or fails with the error
	// for the first one that has none; h names the commands its errors suggest. describeWith
	// makes it from a builder and a printer of the same sheet type.
	describe func(c *cobra.Command, h hints, snap *snapshot.Snapshot, x *diagnose.Index, r diagnose.Report, names []string) (sheetPrinter, error)
}

// what names the kind in messages: subnet, NodeClass, NodePool, placement group, ENI.
func (k subjectKind) what() string { return k.kind.Object }

// aliases are the other words of the command: the kind's plural and aliases, and the names,
// plurals and aliases of the kinds it also describes.
func (k subjectKind) aliases() []string {
	out := k.kind.Words()
	for _, o := range k.also {
		out = append(append(out, o.Name), o.Words()...)
	}
	return out
}

// sheetPrinter writes sheets already built in format f.
type sheetPrinter func(w io.Writer, f printer.Format, st *style.Styles) error

// describeWith pairs a builder of sheets of type S with the printer of that type, so the
// compiler checks that each kind prints the sheets it builds.
func describeWith[S any](build func(c *cobra.Command, h hints, snap *snapshot.Snapshot, x *diagnose.Index, r diagnose.Report, names []string) ([]S, error),
	print func(w io.Writer, sheets []S, f printer.Format, st *style.Styles) error,
) func(*cobra.Command, hints, *snapshot.Snapshot, *diagnose.Index, diagnose.Report, []string) (sheetPrinter, error) {
	return func(c *cobra.Command, h hints, snap *snapshot.Snapshot, x *diagnose.Index, r diagnose.Report, names []string) (sheetPrinter, error) {
		sheets, err := build(c, h, snap, x, r, names)
		if err != nil {
			return nil, err
		}
		return func(w io.Writer, f printer.Format, st *style.Styles) error { return print(w, sheets, f, st) }, nil
	}
}

// describeSubjectOptions are the flags of `describe subnet|nodeclass|nodepool|placementgroup`.
type describeSubjectOptions struct {
	*commonOptions

	output string

	kind   subjectKind
	names  []string
	format printer.Format
}

func newCmdDescribeSubject(common *commonOptions, kind subjectKind) *cobra.Command {
	o := &describeSubjectOptions{commonOptions: common, kind: kind}
	cmd := &cobra.Command{
		Use:     kind.use,
		Aliases: kind.aliases(),
		Short:   kind.short,
		Example: fmt.Sprintf(kind.example, "kubectl karpnet"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(args); err != nil {
				return err
			}
			return o.run(c)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", o.output, "output format: json or yaml (default: the text sheet)")
	cmd.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		names, directive := o.completeNames(c, toComplete, kind.names)
		var out []string
		for _, n := range names {
			if !containsString(args, n) {
				out = append(out, n)
			}
		}
		return out, directive
	}
	registerFlagCompletion(cmd, "output", valueCompletion(string(printer.JSON), string(printer.YAML)))
	return cmd
}

func (o *describeSubjectOptions) complete(args []string) error {
	if err := o.validate(); err != nil {
		return err
	}
	if len(args) == 0 {
		return usageErrorf("name at least one %s: %s", o.kind.what(), o.kind.lister(o.hints()))
	}
	o.names = args
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

// run reads the whole cluster, since a subject's sheet lists every node and NodeClaim that uses it.
func (o *describeSubjectOptions) run(c *cobra.Command) error {
	ctx := c.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	snap, err := o.load(ctx, collect.Scope{})
	if err != nil {
		return err
	}
	o.printNotes(snap)
	print, err := o.kind.describe(c, o.hints(), snap, diagnose.NewIndex(snap), diagnose.Analyze(snap, diagnose.Options{}), o.names)
	if err != nil {
		return err
	}
	if err := print(o.Out, o.format, o.styles()); err != nil {
		return outputError(o.kind.what()+" sheet", err)
	}
	return nil
}

// lister is the hint of a kind's errors: the command that lists its names.
func (k subjectKind) lister(h hints) string {
	switch k.kind.Name {
	case kinds.Subnet:
		return h.list("subnets", "list them with aws ec2 describe-subnets, or see the ones karpnet reads with kubectl karpnet check -o json")
	case kinds.NodeClass:
		return h.list("EC2NodeClasses and NodeClasses", "list them with kubectl get ec2nodeclasses (kubectl get nodeclasses on EKS Auto Mode)")
	case kinds.NodePool:
		return h.list("NodePools", "list them with kubectl get nodepools")
	case kinds.ENI:
		return h.list("ENIs", "karpnet reads an ENI on its own where prefixes are carved or when it is left available; "+
			"see them with kubectl karpnet check -o json (networkInterfaces in --save-snapshot), or list them with aws ec2 describe-network-interfaces")
	}
	return h.list("placement groups", "list them with aws ec2 describe-placement-groups")
}

// notFound is the error for a name of kind k that the snapshot does not hold: a usage error,
// or a collection error when the source that would hold it could not be read.
func (k subjectKind) notFound(h hints, snap *snapshot.Snapshot, name string, sources ...string) error {
	for _, s := range sources {
		if snap.Unavailable(s) {
			return collectError(fmt.Errorf("%s %q: %s could not be read; kubectl karpnet check names the missing permission",
				strings.ToLower(k.what()), printableLine(name), s))
		}
	}
	if hint := k.otherKind(h, snap, name); hint != "" {
		return usageErrorf("%s %q not found: %s", strings.ToLower(k.what()), printableLine(name), printableLine(hint))
	}
	if k.names.offline != nil {
		if hint := didYouMean(suggestions(name, k.names.offline(snap))); hint != "" {
			return usageErrorf("%s %q not found: %s", strings.ToLower(k.what()), printableLine(name), printableLine(hint))
		}
	}
	return usageErrorf("%s %q not found: %s", strings.ToLower(k.what()), printableLine(name), k.lister(h))
}

// containsString reports whether s holds v.
func containsString(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

// otherKind is the hint for a name written as a reference to a subject of another kind:
// "did you mean ec2nodeclass/default?" for nodeclass/default when only the EC2NodeClass exists,
// or, for nodepool ec2nodeclass/default, the describe command of the kind the reference names;
// "" when name is no reference or one of k's own kind.
func (k subjectKind) otherKind(h hints, snap *snapshot.Snapshot, name string) string {
	named, rest := kinds.Arg(name)
	switch {
	case named.Name == "" || rest == "":
		return ""
	case kinds.IsClass(named.Name) && k.kind.Subject == kinds.NodeClass:
		other := kinds.EC2NodeClass
		if named.Name == kinds.EC2NodeClass {
			other = kinds.NodeClass
		}
		for i := range snap.NodeClasses {
			c := &snap.NodeClasses[i]
			if c.Name == rest && c.AutoMode() == (other == kinds.NodeClass) {
				return didYouMean([]string{kinds.Ref(other, rest)})
			}
		}
		return ""
	case named.Subject == k.kind.Subject:
		return ""
	}
	word := named.Name
	if kinds.IsClass(word) {
		word = kinds.NodeClass
	}
	if !named.Sheet && word != kinds.Node && word != kinds.NodeClaim {
		return fmt.Sprintf("%s names %s, which has no sheet of its own: %s check -o json lists the findings on it", name, article(named.Object), h.karpnet())
	}
	return fmt.Sprintf("%s names %s: run %s describe %s %s", name, article(named.Object), h.karpnet(), word, rest)
}

// article puts "a" or "an" before what, by its first letter: an EC2NodeClass, a NodePool.
func article(what string) string {
	if what != "" && strings.ContainsRune("aeiouAEIOU", rune(what[0])) {
		return "an " + what
	}
	return "a " + what
}
