package collect

import (
	"context"
	"errors"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/karpnet/kubectl-karpnet/internal/answerrec"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Scope chooses which nodes to collect.
type Scope struct {
	// Names lists nodes to read by name; empty means every node matching Selector.
	Names []string
	// Selector is a label selector over nodes, in kubectl's syntax.
	Selector string
	// OrSelectors are further label selectors whose nodes are read too: a node is in scope when
	// Selector or any of them matches it.
	OrSelectors []string
	// MissingOK makes named nodes that do not exist absent rather than an error (ErrNodeNotFound):
	// a run over several clusters looks each name up in every cluster.
	MissingOK bool
}

// narrowed reports whether the scope reads some nodes rather than every node.
func (s Scope) narrowed() bool {
	return len(s.Names) > 0 || s.Selector != "" || len(s.OrSelectors) > 0
}

// Collector reads one Snapshot. Clients are given, never built here, so tests pass fakes.
type Collector struct {
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
	// REST, when set, is a client of the API server through which custom resource lists are
	// streamed and decoded one object at a time; nil reads them through Dynamic.
	REST rest.Interface
	// EC2 is nil when no AWS configuration could be loaded; EC2Gap then says why.
	EC2    EC2API
	EC2Gap *snapshot.Gap
	// Region is the AWS Region EC2 is read in; empty means "derive it from the nodes".
	Region string
	// ClusterName is the EKS cluster's name (--cluster-name); empty means "derive it from the
	// cluster tags of the nodes' instances, else take KubeconfigClusterName", the name the
	// kubeconfig's credential plugin names (ClusterNameFromExec).
	ClusterName           string
	KubeconfigClusterName string
	// Context and Cluster identify the cluster in the snapshot.
	Context string
	Cluster string
	// Now stamps the snapshot; nil means time.Now.
	Now func() time.Time
	// PageSize is the Kubernetes list page size (limit); 0 means 500.
	PageSize int64
	// RequestTimeout bounds each EC2 request, with its retries (kubectl's --request-timeout);
	// 0 means no bound.
	RequestTimeout time.Duration
	// Deadline bounds the whole collection (DefaultDeadline from the command line); 0 means no
	// bound. Past it the collection is canceled and, if it has not ended a second later (a
	// server that ignores cancellation), Collect returns a *DeadlineError without waiting.
	Deadline time.Duration
	// EC2Budget, when set, gates every EC2 request with those of the other clusters of the
	// run, by account and Region (EC2Budget); EC2Identity names the credentials (the AWS
	// profile, "" for the default chain) and EC2Account is their account when known before
	// the first request. The snapshot's Account is the account known or learnt.
	EC2Budget   *EC2Budget
	EC2Identity string
	EC2Account  string
	// Pacer paces the EC2 calls (a token bucket at half of EC2's Describe budget). EC2's
	// budget is per account and Region, so collections of clusters in one account and Region
	// share one Pacer; nil gives each collection a Pacer of its own.
	Pacer *Pacer
	// Meter, when set, counts what the collection does (nodes, instances, EC2 calls, paced
	// waits, the way the instances were read), for progress and -v.
	Meter *Meter

	// ec2Answers and kubePages are the buffers DescribeInstances answers and node list pages
	// are read into, reused across the pages of a collection and from one collection to the
	// next of this Collector (answerBuffers); replay decodes the node list pages that are not
	// protobuf. Each Collector has its own: nothing is shared with another's collections.
	// A Collector is used by pointer, never copied.
	ec2Answers, kubePages answerBuffers
	replay                answerrec.ReplayClient
}

// Collect reads the nodes, then the rest of Kubernetes and, at the same time, the nodes'
// instances from EC2, then the subnets, security groups, placement groups and instance types
// they use. It fails only when the API server cannot be reached or refuses the credentials;
// every other failure is a Gap in the snapshot. What a snapshot must not carry (aws-node env
// values karpnet does not read, a password in the cluster URL) is left out.
func (c *Collector) Collect(ctx context.Context, scope Scope) (*snapshot.Snapshot, error) {
	if c.Deadline <= 0 {
		return c.collect(ctx, scope)
	}
	dctx, cancel := context.WithTimeout(ctx, c.Deadline)
	defer cancel()
	type result struct {
		s   *snapshot.Snapshot
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := c.collect(dctx, scope)
		done <- result{s, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-dctx.Done():
		grace := time.NewTimer(deadlineGrace)
		defer grace.Stop()
		select {
		case r = <-done:
		case <-grace.C:
			r.err = dctx.Err()
		}
	}
	if r.err != nil && ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
		return nil, &DeadlineError{Deadline: c.Deadline, Err: r.err}
	}
	return r.s, r.err
}

// collect is Collect without its deadline.
func (c *Collector) collect(ctx context.Context, scope Scope) (*snapshot.Snapshot, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	s := snapshot.New(now().UTC())
	s.Context, s.Cluster, s.Region = c.Context, c.Cluster, c.Region
	// The instances depend only on the nodes: describe them page by page while the nodes and
	// the rest of Kubernetes are read.
	ctx, cancel := context.WithCancel(withInterner(ctx))
	defer cancel()
	ec2 := c.startEC2(ctx)
	ec2.scoped = kubeScoped(scope)
	if err := c.collectKube(ctx, s, scope, ec2); err != nil {
		cancel()
		ec2.waitInstances()
		return nil, err
	}
	ec2.finish(ctx, s)
	// What the run keeps, its snapshot reads back: numbers out of range, strings and lists
	// longer than a snapshot holds are left out or cut here, with a gap or a note, before any
	// check or save sees them.
	s.Bound()
	s.Redact()
	return s, nil
}
