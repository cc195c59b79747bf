package cmd

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// completionTimeout bounds the Kubernetes reads of one completion, so that a slow or
// unreachable API server costs a short pause rather than a hung shell.
const completionTimeout = 3 * time.Second

// completionPageSize is the page size of completion's Kubernetes lists.
const completionPageSize = 500

// nameSource reads one kind of name, from a snapshot (the demo or --snapshot FILE) or from the
// live cluster through the collector's Kubernetes clients.
type nameSource struct {
	offline func(*snapshot.Snapshot) []string
	live    func(context.Context, *collect.Collector) ([]string, error)
}

// completeNodes completes node names that start with toComplete, leaving out those already in
// args and nodes outside the selection flags.
func (o *commonOptions) completeNodes(c *cobra.Command, args []string, toComplete, selector, nodePool, nodeClass string) ([]string, cobra.ShellCompDirective) {
	sel, err := newSelection(nil, selector, nodePool, nodeClass)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	src := nameSource{
		offline: func(s *snapshot.Snapshot) []string {
			var names []string
			for i := range s.Nodes {
				if sel.matches(s.Nodes[i].Labels) {
					names = append(names, s.Nodes[i].Name)
				}
			}
			return names
		},
		live: func(ctx context.Context, col *collect.Collector) ([]string, error) {
			return pagedNames(ctx, func(ctx context.Context, opts metav1.ListOptions) ([]string, string, error) {
				opts.LabelSelector = sel.selector.String()
				list, err := col.Kube.CoreV1().Nodes().List(ctx, opts)
				if err != nil {
					return nil, "", err
				}
				names := make([]string, 0, len(list.Items))
				for i := range list.Items {
					if sel.matches(list.Items[i].Labels) {
						names = append(names, list.Items[i].Name)
					}
				}
				return names, list.Continue, nil
			})
		},
	}
	names, directive := o.completeNames(c, toComplete, src)
	return slices.DeleteFunc(names, func(n string) bool { return slices.Contains(args, n) }), directive
}

// completeNodePools completes NodePool names.
func (o *commonOptions) completeNodePools(c *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return o.completeNames(c, toComplete, nameSource{
		offline: func(s *snapshot.Snapshot) []string {
			names := make([]string, len(s.NodePools))
			for i, p := range s.NodePools {
				names[i] = p.Name
			}
			return names
		},
		live: func(ctx context.Context, col *collect.Collector) ([]string, error) {
			return customNames(ctx, col, snapshot.KarpenterGroup, "nodepools")
		},
	})
}

// completeNodeClaims completes NodeClaim names, with or without a Node.
func (o *commonOptions) completeNodeClaims(c *cobra.Command, toComplete string) ([]string, cobra.ShellCompDirective) {
	return o.completeNames(c, toComplete, nameSource{
		offline: func(s *snapshot.Snapshot) []string {
			names := make([]string, len(s.NodeClaims))
			for i, nc := range s.NodeClaims {
				names[i] = nc.Name
			}
			return names
		},
		live: func(ctx context.Context, col *collect.Collector) ([]string, error) {
			return customNames(ctx, col, snapshot.KarpenterGroup, "nodeclaims")
		},
	})
}

// completeNodeClasses completes EC2NodeClass and EKS Auto Mode NodeClass names.
func (o *commonOptions) completeNodeClasses(c *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return o.completeNames(c, toComplete, nameSource{
		offline: func(s *snapshot.Snapshot) []string {
			names := make([]string, len(s.NodeClasses))
			for i, nc := range s.NodeClasses {
				names[i] = nc.Name
			}
			return names
		},
		live: func(ctx context.Context, col *collect.Collector) ([]string, error) {
			names, err := customNames(ctx, col, snapshot.AWSGroup, "ec2nodeclasses")
			if err != nil {
				return nil, err
			}
			auto, err := autoNodeClassNames(ctx, col)
			return append(names, auto...), err
		},
	})
}

// completeNames reads src's names for c and returns those that start with toComplete, sorted.
// Any failure (no kubeconfig, API server unreachable or slow, unreadable snapshot) ends the
// completion quietly with ShellCompDirectiveError: the shell then offers nothing.
func (o *commonOptions) completeNames(c *cobra.Command, toComplete string, src nameSource) ([]string, cobra.ShellCompDirective) {
	names, err := o.readNames(c, src)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	slices.Sort(names)
	return withPrefix(slices.Compact(names), toComplete), cobra.ShellCompDirectiveNoFileComp
}

// readNames reads src from the demo under `demo`, from --snapshot FILE when given, else from
// the live cluster with completionTimeout.
func (o *commonOptions) readNames(c *cobra.Command, src nameSource) ([]string, error) {
	switch {
	case o.demo || underDemo(c):
		// --context chooses the demo cluster, as it does when the command runs.
		s, err := demo.SnapshotOf(o.configFlags.Context)
		if err != nil {
			return nil, err
		}
		return src.offline(s), nil
	case o.snapshotFile != "":
		s, err := readSnapshotFile(o.snapshotFile, o.snapshotMaxBytes)
		if err != nil {
			return nil, err
		}
		if s.Multi() {
			var names []string
			for i := range s.Clusters {
				names = append(names, src.offline(&s.Clusters[i])...)
			}
			slices.Sort(names)
			return slices.Compact(names), nil
		}
		return src.offline(s), nil
	}
	ctx := c.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, completionTimeout)
	defer cancel()
	col, err := o.newCollector(ctx, o)
	if err != nil {
		return nil, err
	}
	if col.Kube == nil || col.Dynamic == nil {
		return nil, errors.New("no Kubernetes client")
	}
	return src.live(ctx, col)
}

// underDemo reports whether c is the demo command or below it. The demo flag itself is set
// only when a command runs, which completion never does.
func underDemo(c *cobra.Command) bool {
	for p := c; p != nil && p.HasParent(); p = p.Parent() {
		if p.Name() == "demo" && !p.Parent().HasParent() {
			return true
		}
	}
	return false
}

// customNames lists the names of a Karpenter custom resource at the first served version.
func customNames(ctx context.Context, col *collect.Collector, group, resource string) ([]string, error) {
	for _, v := range []string{"v1", "v1beta1"} {
		names, err := resourceNames(ctx, col, schema.GroupVersionResource{Group: group, Version: v, Resource: resource})
		if apierrors.IsNotFound(err) {
			continue
		}
		return names, err
	}
	return nil, nil
}

// autoNodeClassNames lists the names of the EKS Auto Mode NodeClasses (eks.amazonaws.com/v1
// nodeclasses); a cluster without Auto Mode has no such CRD, which gives no names and no error.
func autoNodeClassNames(ctx context.Context, col *collect.Collector) ([]string, error) {
	gvr := schema.GroupVersionResource{Group: snapshot.AutoModeGroup, Version: "v1", Resource: "nodeclasses"}
	names, err := resourceNames(ctx, col, gvr)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return names, err
}

// resourceNames lists the names of one custom resource, page by page.
func resourceNames(ctx context.Context, col *collect.Collector, gvr schema.GroupVersionResource) ([]string, error) {
	return pagedNames(ctx, func(ctx context.Context, opts metav1.ListOptions) ([]string, string, error) {
		list, err := col.Dynamic.Resource(gvr).List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		names := make([]string, len(list.Items))
		for i := range list.Items {
			names[i] = list.Items[i].GetName()
		}
		return names, list.GetContinue(), nil
	})
}

// pagedNames calls list page by page and gathers the names.
func pagedNames(ctx context.Context, list func(context.Context, metav1.ListOptions) ([]string, string, error)) ([]string, error) {
	opts := metav1.ListOptions{Limit: completionPageSize}
	var names []string
	for {
		page, next, err := list(ctx, opts)
		if err != nil {
			return nil, err
		}
		names = append(names, page...)
		if next == "" {
			return names, nil
		}
		opts.Continue = next
	}
}

// kubeconfigCompletions completes --context, --cluster and --user, by flag name.
func (o *commonOptions) kubeconfigCompletions() map[string]cobra.CompletionFunc {
	return map[string]cobra.CompletionFunc{
		"context": o.completeContext(),
		"cluster": o.completeKubeconfig(kubeconfigClusters),
		"user":    o.completeKubeconfig(kubeconfigUsers),
	}
}

// completeContext completes --context: the kubeconfig's contexts, or the demo's under demo.
func (o *commonOptions) completeContext() cobra.CompletionFunc {
	fromKubeconfig := o.completeKubeconfig(kubeconfigContexts)
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if underDemo(c) {
			return withPrefix(demo.Contexts(), toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		return fromKubeconfig(c, args, toComplete)
	}
}

// completeKubeconfig completes a flag with names from the kubeconfig that --kubeconfig and
// KUBECONFIG choose.
func (o *commonOptions) completeKubeconfig(pick func(*clientcmdapi.Config) []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		raw, err := o.configFlags.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return withPrefix(pick(&raw), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// kubeconfigContexts, kubeconfigClusters and kubeconfigUsers return a kubeconfig's names, sorted.
func kubeconfigContexts(c *clientcmdapi.Config) []string { return slices.Sorted(maps.Keys(c.Contexts)) }

func kubeconfigClusters(c *clientcmdapi.Config) []string { return slices.Sorted(maps.Keys(c.Clusters)) }

func kubeconfigUsers(c *clientcmdapi.Config) []string { return slices.Sorted(maps.Keys(c.AuthInfos)) }
