package collect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/karpnet/kubectl-karpnet/internal/kubestream"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeNodes reads the nodes in scope: a GET per named node, otherwise a paginated LIST with
// the label selector. Heavy fields are dropped and nodes are sorted by name. onPage, when set,
// gets each page of nodes as it arrives (the named nodes as one page). Nodes that cannot be
// read end collection (kubeNodesFail); only pages that do not end are a Gap, with the nodes
// read until then.
//
// With each page onPage is told how many nodes the list holds after it: 0 on the last page,
// the API server's remainingItemCount when it gives one, else -1.
func (c *Collector) kubeNodes(ctx context.Context, s *snapshot.Snapshot, scope Scope, onPage func([]corev1.Node, int64)) error {
	var nodes []corev1.Node
	if len(scope.Names) > 0 {
		got, err := c.kubeGetNodes(ctx, scope.Names, scope.MissingOK)
		if err != nil {
			return err
		}
		nodes = got
		c.Meter.addNodes(len(nodes), int64(len(nodes)))
		if onPage != nil {
			onPage(nodes, 0) // the named nodes are one page
		}
	} else {
		seen := map[string]bool{}
		for _, selector := range append([]string{scope.Selector}, scope.OrSelectors...) {
			err := c.kubeNodePages(ctx, selector, func(list *kubeNodePage) error {
				if list.total > 0 && cap(nodes) == 0 {
					// Room for the nodes the first request counted, made once: grown by doubling,
					// 100,000 nodes (784 bytes each) were copied over and over, and each page
					// handed on kept the array it was cut from.
					nodes = make([]corev1.Node, 0, min(list.total, kubeNodesPresized))
				}
				start := len(nodes)
				var err error
				nodes, err = list.decode(nodes, func(n *corev1.Node) bool {
					if seen[n.Name] {
						return false
					}
					seen[n.Name] = true
					kubestream.StripNode(n) // node by node, so the heavy fields are garbage early
					internerOf(ctx).Node(n)
					return true
				})
				if err != nil {
					return err
				}
				page := nodes[start:len(nodes):len(nodes)]
				remaining := int64(-1)
				switch {
				case list.meta.Continue == "" && !list.more && selector == scope.Selector && len(scope.OrSelectors) == 0:
					remaining = 0
				case len(scope.OrSelectors) > 0:
				case list.total >= 0:
					// Said by the first request, for the list as it was then: at least one
					// more node while the list goes on.
					remaining = max(list.total-int64(len(seen)), 1)
				case list.meta.RemainingItemCount != nil && !list.more:
					remaining = *list.meta.RemainingItemCount
				}
				c.Meter.addNodes(len(page), int64(len(seen))+max(remaining, 0))
				if onPage != nil {
					onPage(page, remaining)
				}
				return nil
			})
			var paging *kubePagingError
			if errors.As(err, &paging) {
				// The pages would not end: keep the nodes read, and say the list is incomplete.
				s.Gaps = append(s.Gaps, kubePagingGap(snapshot.SourceNodes, "list", "nodes", paging))
				break
			}
			if err != nil {
				return c.kubeNodesFail("list", "nodes", err)
			}
		}
	}
	for i := range nodes {
		kubestream.StripNode(&nodes[i])
	}
	slices.SortFunc(nodes, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	s.Nodes = nodes
	return nil
}

// kubeNodesPresized is the most nodes room is made for up front: a count past it (a server's
// lie, or a cluster larger than any EKS allows) grows the list as it is read.
const kubeNodesPresized = 200_000

// kubeGetNodes reads each named node once. Names that do not exist end collection with an
// error wrapping ErrNodeNotFound; any other failure ends it with one wrapping
// ErrNodesUnreadable or ErrAPIServer.
func (c *Collector) kubeGetNodes(ctx context.Context, names []string, missingOK bool) ([]corev1.Node, error) {
	var nodes []corev1.Node
	var missing []string
	for _, name := range kubeUnique(names) {
		n, err := c.kubeGetNode(ctx, name)
		switch {
		case err == nil:
			internerOf(ctx).Node(n)
			nodes = append(nodes, *n)
		case apierrors.IsNotFound(err):
			missing = append(missing, name)
		default:
			return nil, c.kubeNodesFail("get", fmt.Sprintf("node %q", name), err)
		}
	}
	if len(missing) > 0 && !missingOK {
		return nil, kubeNodesNotFound(missing)
	}
	return nodes, nil
}

// kubeNodesNotFound builds the error for named nodes that do not exist.
func kubeNodesNotFound(missing []string) error {
	quoted := make([]string, len(missing))
	for i, m := range missing {
		quoted[i] = fmt.Sprintf("%q", m)
	}
	what := "node"
	if len(missing) > 1 {
		what = "nodes"
	}
	return &kubeError{
		msg:  fmt.Sprintf("%s %s not found: list nodes with kubectl get nodes", what, strings.Join(quoted, ", ")),
		errs: []error{ErrNodeNotFound},
	}
}

// kubeUnique returns names without empty strings or repeats, in first-seen order.
func kubeUnique(names []string) []string {
	seen := make(map[string]bool, len(names))
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
