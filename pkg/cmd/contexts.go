package cmd

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// maxClusters is how many clusters a run over several contexts collects at once.
const maxClusters = 4

// multiCommands names the commands that read several clusters, for the error of the others.
const multiCommands = "check, describe node and the terminal UI"

// addContextFlags adds --contexts and --all-contexts.
func (o *commonOptions) addContextFlags(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.StringSliceVar(&o.contexts, "contexts", o.contexts,
		fmt.Sprintf("read these kubeconfig contexts (comma-separated), %d at a time, and report by cluster", maxClusters))
	f.BoolVar(&o.allContexts, "all-contexts", o.allContexts, "read every context of the kubeconfig, and report by cluster")
	o.contextsFlag = f.Lookup("contexts")
	registerFlagCompletion(cmd, "contexts", o.completeContextList())
}

// multi reports whether the run reads several contexts.
func (o *commonOptions) multi() bool { return len(o.contexts) > 0 || o.allContexts }

// clusterFlags are kubectl's flags that name one cluster or user, which --contexts would
// apply to every context.
func (o *commonOptions) clusterFlags() map[string]*string {
	f := o.configFlags
	return map[string]*string{"--context": &f.Context, "--cluster": &f.ClusterName, "--user": &f.AuthInfoName,
		"--server": &f.APIServer, "--token": &f.BearerToken,
		"--client-certificate": &f.CertFile, "--client-key": &f.KeyFile, "--certificate-authority": &f.CAFile,
		"--tls-server-name": &f.TLSServerName}
}

// validateContexts checks --contexts and --all-contexts against the other flags, without I/O.
func (o *commonOptions) validateContexts() error {
	if o.contextsFlag != nil && o.contextsFlag.Changed && len(o.contexts) == 0 {
		// --contexts '' would otherwise read the current context alone, as if it were not given.
		return usageErrorf("--contexts names no context: give context names separated by commas, or leave it out for the current context")
	}
	if !o.multi() {
		return nil
	}
	switch {
	case len(o.contexts) > 0 && o.allContexts:
		return usageErrorf("--contexts and --all-contexts cannot be used together: choose one")
	case !o.multiOK:
		return usageErrorf("--contexts and --all-contexts work with %s: pass --context NAME to choose one cluster", multiCommands)
	case o.demo:
		return usageErrorf("--contexts and --all-contexts cannot be used with demo: drop them")
	case o.snapshotFile != "":
		return usageErrorf("--contexts and --all-contexts cannot be used with --snapshot: a snapshot of several clusters replays with --snapshot alone")
	}
	flags := o.clusterFlags()
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		if v := flags[name]; v != nil && *v != "" {
			return usageErrorf("%s cannot be used with --contexts or --all-contexts: each context names its own cluster and user", name)
		}
	}
	for _, c := range o.contexts {
		if strings.TrimSpace(c) == "" {
			return usageErrorf("--contexts has an empty name: give context names separated by commas")
		}
	}
	return nil
}

// contextNames returns the contexts to read: --contexts in the order given, without repeats,
// or every context of the kubeconfig by name. An unknown name is a usage error listing the
// known ones.
func (o *commonOptions) contextNames() ([]string, error) {
	raw, err := o.configFlags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, usageErrorf("reading the kubeconfig: %v: check --kubeconfig and KUBECONFIG", kubeconfigError(err))
	}
	known := kubeconfigContexts(&raw)
	if o.allContexts {
		if len(known) == 0 {
			return nil, usageErrorf("--all-contexts: the kubeconfig has no context: check --kubeconfig and KUBECONFIG")
		}
		return known, nil
	}
	var out, unknown []string
	for _, name := range o.contexts {
		name = strings.TrimSpace(name)
		switch {
		case slices.Contains(out, name):
		case slices.Contains(known, name):
			out = append(out, name)
		default:
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) > 0 {
		what := "context"
		if len(unknown) > 1 {
			what = "contexts"
		}
		return nil, usageErrorf("--contexts: unknown %s %s: the kubeconfig has %s", what, strings.Join(unknown, ", "),
			strings.Join(known, ", "))
	}
	return out, nil
}

// liveContextCollector builds the collector of one context of a run over several.
func liveContextCollector(ctx context.Context, o *commonOptions, name string, budget *collect.EC2Budget) (*collect.Collector, error) {
	return buildCollector(ctx, o, o.configFlags.forContext(name), budget)
}

// loadMulti collects every chosen context, maxClusters at a time, all sharing one EC2Budget.
// A context that cannot be read at all (kubeconfig broken, API server unreachable, nodes
// forbidden) is a member holding only a snapshot.SourceKubeAPI gap; only when every context
// is so does the run fail (exit 3). Named nodes absent from a cluster are absent, not an error.
func (o *commonOptions) loadMulti(ctx context.Context, scope collect.Scope) (*snapshot.Snapshot, error) {
	names, err := o.contextNames()
	if err != nil {
		return nil, err
	}
	scope.MissingOK = true
	budget := collect.NewEC2Budget()
	members := make([]snapshot.Snapshot, len(names))
	var g errgroup.Group
	g.SetLimit(maxClusters)
	for i, name := range names {
		g.Go(func() error {
			members[i] = o.collectContext(ctx, name, scope, budget)
			return nil
		})
	}
	_ = g.Wait() // each context reports through its member
	if ctx.Err() != nil {
		return nil, errInterrupted
	}
	var unreachable []string
	for _, m := range members {
		if reason := m.Unreachable(); reason != "" {
			unreachable = append(unreachable, m.Context+": "+reason)
		}
	}
	if len(unreachable) == len(members) {
		return nil, collectError(fmt.Errorf("no cluster could be read (%s)", strings.Join(unreachable, "; ")))
	}
	return snapshot.NewMulti(members), nil
}

// collectContext reads one context into a member snapshot.
func (o *commonOptions) collectContext(ctx context.Context, name string, scope collect.Scope, budget *collect.EC2Budget) snapshot.Snapshot {
	c, err := o.newContextCollector(ctx, o, name, budget)
	var s *snapshot.Snapshot
	if err == nil {
		s, err = c.Collect(ctx, scope)
	}
	if err != nil {
		u := snapshot.New(o.now().UTC())
		if c != nil {
			u.Cluster = c.Cluster
		}
		u.Gaps = []snapshot.Gap{{Source: snapshot.SourceKubeAPI, Reason: err.Error(),
			Remedy: fmt.Sprintf("check that context %s reaches its API server: kubectl --context %s get nodes", name, name)}}
		s = u
	}
	s.Context = name
	return *s
}

// completeContextList completes --contexts with the kubeconfig's context names: the part
// after the last comma, leaving out names already listed there or in earlier uses of the
// flag, with no trailing space so another comma can follow.
func (o *commonOptions) completeContextList() cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		raw, err := o.configFlags.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		listed, partial := "", toComplete
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			listed, partial = toComplete[:i+1], toComplete[i+1:]
		}
		used := append(strings.Split(listed, ","), o.contexts...)
		var out []string
		for _, name := range kubeconfigContexts(&raw) {
			if strings.HasPrefix(name, partial) && !slices.Contains(used, name) {
				out = append(out, listed+name)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}
