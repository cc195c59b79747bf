package scale

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// seedWorkers is how many objects are created at once while a cluster grows.
const seedWorkers = 16

// exhaustedFreeIP is how many addresses the nearly exhausted subnet has left.
const exhaustedFreeIP = 6

// gvr returns the v1 resource of a Karpenter group.
func gvr(group, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource}
}

// Cluster is a synthetic cluster held by a kube-apiserver (with the Karpenter v1 CRDs
// installed) and an ec2sim server. It starts empty and grows in place.
type Cluster struct {
	kube kubernetes.Interface
	dyn  dynamic.Interface
	ec2  *ec2sim.Server

	mu    sync.Mutex
	nodes int
	used  map[int]int // addresses in use per subnet index
	// wide is whether the node subnets are /13s (subnetPrefixIn), for clusters past wideNodes.
	wide bool
}

// NewCluster creates the cluster's NodePools, EC2NodeClasses and aws-node DaemonSet through
// cfg, and its subnets, security groups, placement group and instance types in sim.
func NewCluster(ctx context.Context, cfg *rest.Config, sim *ec2sim.Server) (*Cluster, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 10000, 10000
	c := &Cluster{ec2: sim, used: map[int]int{}}
	var err error
	if c.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	if c.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("building the dynamic client: %w", err)
	}
	for _, o := range nodeClasses() {
		if err := c.create(ctx, gvr("karpenter.k8s.aws", "ec2nodeclasses"), o); err != nil {
			return nil, err
		}
	}
	for _, o := range nodePools() {
		if err := c.create(ctx, gvr("karpenter.sh", "nodepools"), o); err != nil {
			return nil, err
		}
	}
	if _, err := c.kube.AppsV1().DaemonSets("kube-system").Create(ctx, awsNode(), metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating the aws-node DaemonSet: %w", err)
	}
	sim.AddSecurityGroups(securityGroups()...)
	sim.AddPlacementGroups(placementGroups()...)
	for _, t := range instanceTypes() {
		sim.AddInstanceTypes(t.snapshotType())
	}
	c.updateSubnets()
	return c, nil
}

// Widen gives the node subnets /13s, as Snapshot does past wideNodes, so the cluster can
// grow to 100,000 nodes and more. Only an empty cluster can be widened: nodes keep their
// addresses.
func (c *Cluster) Widen() error {
	c.mu.Lock()
	if c.nodes > 0 {
		c.mu.Unlock()
		return fmt.Errorf("the cluster has %d nodes already: widen it before it grows", c.nodes)
	}
	c.wide = true
	c.mu.Unlock()
	c.updateSubnets()
	return nil
}

// NodeName returns the name of node i, in the cluster's addressing.
func (c *Cluster) NodeName(i int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return newMachineIn(i, c.wide).name
}

// Nodes returns how many nodes the cluster has.
func (c *Cluster) Nodes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes
}

// Grow adds nodes until the cluster has n: each node's NodeClaim (with status), Node (with
// status) and EC2 instance, and the sandbox failures of the node whose max pods is too high.
func (c *Cluster) Grow(ctx context.Context, n int) error {
	from := c.Nodes()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(seedWorkers)
	for i := from; i < n; i++ {
		g.Go(func() error { return c.addNode(gctx, i) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	c.mu.Lock()
	c.nodes = max(c.nodes, n)
	c.mu.Unlock()
	c.updateSubnets()
	return nil
}

func (c *Cluster) addNode(ctx context.Context, i int) error {
	m := newMachineIn(i, c.wide)
	if err := c.create(ctx, gvr("karpenter.sh", "nodeclaims"), m.claimObject()); err != nil {
		return err
	}
	if _, err := c.kube.CoreV1().Nodes().Create(ctx, m.node(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating node %s: %w", m.name, err)
	}
	if m.fault == maxPodsAboveIPs {
		for k := range 3 {
			ev := sandboxFailure(m.name, fmt.Sprintf("web-%s-%d", claimSuffix(i), k))
			if _, err := c.kube.CoreV1().Events("default").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating a sandbox event: %w", err)
			}
		}
	}
	c.ec2.AddInstances(m.instance())
	c.mu.Lock()
	c.used[m.subnet] += m.usedIPs()
	c.mu.Unlock()
	return nil
}

// create creates a custom object, then writes its status through the status subresource.
func (c *Cluster) create(ctx context.Context, gvr schema.GroupVersionResource, o object) error {
	u := &unstructured.Unstructured{Object: maps.Clone(o.spec)}
	created, err := c.dyn.Resource(gvr).Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating %s %s: %w", gvr.Resource, u.GetName(), err)
	}
	created.Object["status"] = o.status
	if _, err := c.dyn.Resource(gvr).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("writing the status of %s %s: %w", gvr.Resource, u.GetName(), err)
	}
	return nil
}

// updateSubnets writes every subnet into the EC2 server with its free addresses as the nodes
// so far leave them.
func (c *Cluster) updateSubnets() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := range subnetCount {
		p := subnetPrefixIn(s, c.wide)
		free := int32(1<<(32-p.Bits()) - 5 - c.used[s])
		if s == exhaustedSubnet {
			free = exhaustedFreeIP
		}
		c.ec2.AddSubnets(snapshot.Subnet{
			ID: subnetID(s), VpcID: vpcID, CIDR: p.String(), Zone: subnetZone(s), ZoneID: zoneID(subnetZone(s)),
			AvailableIPs: free, Tags: subnetTags(s),
		})
	}
}
