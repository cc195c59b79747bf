package collect

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ErrAPIServer marks an error that ended a collection because the Kubernetes API server could
// not be reached or refused the credentials. The command maps it to exit code 3.
var ErrAPIServer = errors.New("kubernetes API server unavailable")

// ErrNodeNotFound marks an error for a node named on the command line that does not exist.
var ErrNodeNotFound = errors.New("node not found")

// ErrNodesUnreadable marks an error that ended a collection because the nodes could not be
// read at all (forbidden, a server error, an answer that is not a node list): a report of no
// node is no pass. The command maps it to exit code 3.
var ErrNodesUnreadable = errors.New("nodes could not be read")

// kubeDefaultPageSize is the list page size when Collector.PageSize is 0.
const kubeDefaultPageSize = 500

// collectKube reads nodes, Karpenter objects, ENIConfigs, the aws-node DaemonSet and pod
// sandbox failures into s. Only an API server that cannot be used is an error; any other
// failure becomes a Gap. ec2, when set, gets every page of nodes as it arrives and is told
// when the nodes are complete (or will not come), so instances are described meanwhile.
func (c *Collector) collectKube(ctx context.Context, s *snapshot.Snapshot, scope Scope, ec2 *ec2Read) error {
	var err error
	var ahead *kubeAhead
	if c.Kube != nil && c.Dynamic != nil && len(scope.Names) == 0 {
		ahead = c.kubeReadAhead(ctx)
		defer ahead.stop()
		if ec2 != nil {
			ec2.claimZones, ec2.classes = ahead.zones, ahead.classes
		}
	}
	if c.Kube == nil || c.Dynamic == nil {
		err = errors.New("reading kubernetes: no client configured: check --context/--kubeconfig")
	} else if ec2 != nil {
		err = c.kubeNodes(ctx, s, scope, ec2.addNodes)
	} else {
		err = c.kubeNodes(ctx, s, scope, nil)
	}
	if ec2 != nil {
		ec2.unlisted = err != nil
		ec2.nodesDone(s)
	}
	if err != nil {
		return err
	}
	return c.kubeAfterNodes(ctx, s, scope, ahead)
}

// kubeAhead are the lists read while the node pages come in, in a run that names no node:
// they do not depend on the nodes. The API server takes seconds to write 100,000 NodeClaims
// from its watch cache; the EC2NodeClasses are a few objects, which may name the cluster
// (classes.cluster) before the first page of nodes is in.
type kubeAhead struct {
	done   chan struct{}
	cancel context.CancelFunc
	part   snapshot.Snapshot // NodeClaims and the gaps of reading them
	err    error
	zones  *ec2ZoneSample // the zones of the first NodeClaims read, for planning the EC2 read

	classes *kubeClassesAhead
}

// kubeReadAhead starts reading the NodeClaims and the EC2NodeClasses as kubeKarpenter reads
// them in a run that names no node.
func (c *Collector) kubeReadAhead(ctx context.Context) *kubeAhead {
	ctx, cancel := context.WithCancel(ctx)
	a := &kubeAhead{done: make(chan struct{}), cancel: cancel, zones: newEC2ZoneSample(), classes: c.kubeReadClassesAhead(ctx)}
	go func() {
		defer close(a.done)
		defer a.zones.end()
		a.err = c.kubeReadClaimsSeen(ctx, &a.part, false, nil, a.zones.add)
	}()
	return a
}

// wait returns the NodeClaims read into s, with the gaps of reading them.
func (a *kubeAhead) wait(s *snapshot.Snapshot) error {
	<-a.done
	s.NodeClaims = a.part.NodeClaims
	s.Gaps = append(s.Gaps, a.part.Gaps...)
	return a.err
}

// stop ends the reads, if they are still going, and waits for them.
func (a *kubeAhead) stop() {
	a.cancel()
	<-a.done
	<-a.classes.done
}

// kubeAfterNodes reads what depends on the nodes: the rest of Kubernetes. ahead, when set,
// are the NodeClaims and EC2NodeClasses lists being read already.
func (c *Collector) kubeAfterNodes(ctx context.Context, s *snapshot.Snapshot, scope Scope, ahead *kubeAhead) error {
	// The rest depends only on the nodes: read it concurrently, each group into its own part,
	// then merge the parts in a fixed order so the snapshot stays deterministic.
	karpenter := func(ctx context.Context, s *snapshot.Snapshot, scope Scope) error {
		return c.kubeKarpenter(ctx, s, scope, ahead)
	}
	groups := [][]func(context.Context, *snapshot.Snapshot, Scope) error{
		{karpenter},
		// Whether a missing ENIConfig CRD matters, and whether CNINodes are read, depends on aws-node.
		{c.kubeAWSNode, c.kubeENIConfigs, c.kubeCNINodes, c.kubeSecurityGroupPolicies},
		{c.kubeSandboxFailures, c.kubeKarpenterEvents, c.kubeNodeAgentEvents},
		{c.kubeCilium},
		{c.kubeAgents, c.kubeIMDSPods},
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
		s.SecurityGroupPolicies = append(s.SecurityGroupPolicies, p.SecurityGroupPolicies...)
		s.CiliumNodes = append(s.CiliumNodes, p.CiliumNodes...)
		s.SandboxFailures = append(s.SandboxFailures, p.SandboxFailures...)
		s.Events = append(s.Events, p.Events...)
		s.NodeEvents = append(s.NodeEvents, p.NodeEvents...)
		s.Gaps = append(s.Gaps, p.Gaps...)
		if p.AWSNode != nil {
			s.AWSNode = p.AWSNode
		}
		if p.Cilium != nil {
			s.Cilium = p.Cilium
		}
		if p.AgentsRead {
			s.Agents, s.AgentsRead = p.Agents, true
		}
		if p.IMDSPodsRead {
			s.IMDSPods, s.IMDSPodsRead = p.IMDSPods, true
		}
	}
	if !kubeScoped(scope) { // whether policies are enforced is the cluster's, not the nodes asked about
		if err := c.kubePolicies(ctx, s); err != nil {
			return err
		}
		if err := c.kubeSystemPods(ctx, s); err != nil {
			return err
		}
	}
	kubeKeepReadAnnotations(s)
	if kubeScoped(scope) {
		s.Events = kubeEventsOfObjectsRead(s)
	}
	return nil
}

// kubeScoped reports whether the scope names or selects some nodes rather than all.
func kubeScoped(scope Scope) bool {
	return len(scope.Names) > 0 || scope.Selector != "" || len(scope.OrSelectors) > 0
}

// kubeEventsOfObjectsRead keeps the events about the NodeClaims and NodePools s holds, for a
// run scoped to some nodes.
func kubeEventsOfObjectsRead(s *snapshot.Snapshot) []snapshot.KubeEvent {
	read := map[[2]string]bool{}
	for i := range s.NodeClaims {
		read[[2]string{"NodeClaim", s.NodeClaims[i].Name}] = true
	}
	for i := range s.NodePools {
		read[[2]string{"NodePool", s.NodePools[i].Name}] = true
	}
	var out []snapshot.KubeEvent
	for _, e := range s.Events {
		if read[[2]string{e.Kind, e.Name}] {
			out = append(out, e)
		}
	}
	return out
}

// kubePageSize returns the list limit to use.
func (c *Collector) kubePageSize() int64 {
	if c.PageSize > 0 {
		return c.PageSize
	}
	return kubeDefaultPageSize
}
