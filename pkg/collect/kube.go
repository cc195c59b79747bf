package collect

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"golang.org/x/sync/errgroup"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ErrAPIServer marks an error that ended a collection because the Kubernetes API server could
// not be reached or refused the credentials. The command maps it to exit code 3.
var ErrAPIServer = errors.New("kubernetes API server unavailable")

// ErrNodeNotFound marks an error for a node named on the command line that does not exist.
var ErrNodeNotFound = errors.New("node not found")

// kubeDefaultPageSize is the list page size when Collector.PageSize is 0.
const kubeDefaultPageSize = 500

// collectKube reads nodes, Karpenter objects, ENIConfigs, the aws-node DaemonSet and pod
// sandbox failures into s. Only an API server that cannot be used is an error; any other
// failure becomes a Gap. ec2, when set, gets every page of nodes as it arrives and is told
// when the nodes are complete (or will not come), so instances are described meanwhile.
func (c *Collector) collectKube(ctx context.Context, s *snapshot.Snapshot, scope Scope, ec2 *ec2Read) error {
	var err error
	if c.Kube == nil || c.Dynamic == nil {
		err = errors.New("reading kubernetes: no client configured: check --context/--kubeconfig")
	} else if ec2 != nil {
		err = c.kubeNodes(ctx, s, scope, ec2.addNodes)
	} else {
		err = c.kubeNodes(ctx, s, scope, nil)
	}
	if ec2 != nil {
		ec2.nodesDone(s)
	}
	if err != nil {
		return err
	}
	return c.kubeAfterNodes(ctx, s, scope)
}

// kubeAfterNodes reads what depends on the nodes: the rest of Kubernetes.
func (c *Collector) kubeAfterNodes(ctx context.Context, s *snapshot.Snapshot, scope Scope) error {
	// The rest depends only on the nodes: read it concurrently, each group into its own part,
	// then merge the parts in a fixed order so the snapshot stays deterministic.
	groups := [][]func(context.Context, *snapshot.Snapshot, Scope) error{
		{c.kubeKarpenter},
		// Whether a missing ENIConfig CRD matters, and whether CNINodes are read, depends on aws-node.
		{c.kubeAWSNode, c.kubeENIConfigs, c.kubeCNINodes},
		{c.kubeSandboxFailures},
	}
	parts := make([]*snapshot.Snapshot, len(groups))
	g, gctx := errgroup.WithContext(ctx)
	for i, steps := range groups {
		parts[i] = &snapshot.Snapshot{Nodes: s.Nodes}
		g.Go(func() error {
			for _, step := range steps {
				if err := step(gctx, parts[i], scope); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, p := range parts {
		s.NodeClaims = append(s.NodeClaims, p.NodeClaims...)
		s.NodePools = append(s.NodePools, p.NodePools...)
		s.NodeClasses = append(s.NodeClasses, p.NodeClasses...)
		s.ENIConfigs = append(s.ENIConfigs, p.ENIConfigs...)
		s.CNINodes = append(s.CNINodes, p.CNINodes...)
		s.SandboxFailures = append(s.SandboxFailures, p.SandboxFailures...)
		s.Gaps = append(s.Gaps, p.Gaps...)
		if p.AWSNode != nil {
			s.AWSNode = p.AWSNode
		}
	}
	return nil
}

// kubePageSize returns the list limit to use.
func (c *Collector) kubePageSize() int64 {
	if c.PageSize > 0 {
		return c.PageSize
	}
	return kubeDefaultPageSize
}

// kubeError is an error with its own message that wraps a sentinel and a cause.
type kubeError struct {
	msg  string
	errs []error
}

func (e *kubeError) Error() string   { return e.msg }
func (e *kubeError) Unwrap() []error { return e.errs }

// kubeFail records err, met while reading source with verb on resource, as a Gap in s, or
// returns the error that ends collection (API server unreachable, credentials refused,
// context cancelled).
func (c *Collector) kubeFail(s *snapshot.Snapshot, source, verb, resource string, err error) error {
	switch {
	case apierrors.IsForbidden(err):
		s.Gaps = append(s.Gaps, snapshot.Gap{
			Source: source,
			Reason: "forbidden",
			Remedy: fmt.Sprintf("grant %s on %s (see the ClusterRole in the README)", verb, resource),
		})
		return nil
	case apierrors.IsUnauthorized(err):
		return &kubeError{
			msg:  fmt.Sprintf("the API server refused the credentials: %v: log in again or check --user", err),
			errs: []error{ErrAPIServer, err},
		}
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("reading %s: %w", source, err)
	}
	var paging *kubePagingError
	if errors.As(err, &paging) {
		s.Gaps = append(s.Gaps, kubePagingGap(source, verb, resource, paging))
		return nil
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s.Gaps = append(s.Gaps, snapshot.Gap{
			Source: source,
			Reason: kubeReason(err),
			Remedy: fmt.Sprintf("retry later; the API server answered %s %s: %v", verb, resource, err),
		})
		return nil
	}
	return c.kubeUnreachable(err)
}

// kubeUnreachable builds the error for an API server that did not answer at all.
func (c *Collector) kubeUnreachable(err error) error {
	where, cause := c.Cluster, err
	var uerr *url.Error
	if errors.As(err, &uerr) {
		cause = uerr.Err
		if u, perr := url.Parse(uerr.URL); perr == nil && u.Host != "" {
			where = u.Scheme + "://" + u.Host
		}
	}
	if where == "" {
		where = "the configured address"
	}
	return &kubeError{
		msg:  fmt.Sprintf("cannot reach the API server at %s: %v: check --context/--kubeconfig", where, cause),
		errs: []error{ErrAPIServer, err},
	}
}

// kubePagingGap is the Gap of a list of resource whose pages did not end; what was read is kept.
func kubePagingGap(source, verb, resource string, err *kubePagingError) snapshot.Gap {
	return snapshot.Gap{
		Source: source,
		Reason: err.Error(),
		Remedy: fmt.Sprintf("retry; if the %s %s pages still do not end, check the API server and any proxy in front of it "+
			"(what was read is kept)", verb, resource),
	}
}

// kubeReason returns a short reason for an API status error.
func kubeReason(err error) string {
	if r := apierrors.ReasonForError(err); r != "" {
		return string(r)
	}
	return "error"
}
