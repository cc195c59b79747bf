package collect

import (
	"context"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2Feed describes instances as their nodes arrive, page by page: every ec2FilterBatch new
// instance IDs make one DescribeInstances call, at most ec2Concurrency at once, so EC2 is read
// while Kubernetes is still listing nodes. The calls are the same ceil(instances/200) as when
// every ID is known first.
type ec2Feed struct {
	ctx    context.Context
	call   ec2Call
	result *ec2Result
	// queued holds one goroutine per batch, each waiting to start its call in calls, which
	// runs at most ec2Concurrency at once.
	queued errgroup.Group
	calls  errgroup.Group

	meter *Meter

	mu      sync.Mutex
	seen    map[string]bool
	pending []string
	batches [][]snapshot.Instance
	// filter, when set, reads the instances by the cluster's tag (ec2_feed_filter.go): IDs
	// are then held in pending, and only those the filtered read did not return are read by
	// ID at wait.
	filter *ec2FeedFilter
}

func newEC2Feed(ctx context.Context, call ec2Call, result *ec2Result, meter *Meter) *ec2Feed {
	f := &ec2Feed{ctx: ctx, call: call, result: result, seen: map[string]bool{}, meter: meter}
	f.calls.SetLimit(ec2Concurrency)
	return f
}

// add queues the instances of nodes not seen before, sending every full batch.
func (f *ec2Feed) add(nodes []corev1.Node) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range nodes {
		p, ok := snapshot.ParseProviderIDLeniently(nodes[i].Spec.ProviderID)
		id := p.InstanceID
		if !ok || f.seen[id] {
			continue
		}
		f.seen[id] = true
		f.pending = append(f.pending, id)
		if len(f.pending) == ec2FilterBatch && f.filter == nil {
			f.send()
		}
	}
}

// send starts describing the pending IDs; f.mu is held. The call waits for a free slot in a
// goroutine of its own, so adding never blocks the node listing.
func (f *ec2Feed) send() {
	batch := f.pending
	f.pending = nil
	slices.Sort(batch)
	i := len(f.batches)
	f.batches = append(f.batches, nil)
	f.queued.Go(func() error {
		f.calls.Go(func() error {
			f.describe(i, batch)
			return nil
		})
		return nil
	})
}

// describe describes batch into f.batches[i].
func (f *ec2Feed) describe(i int, batch []string) {
	out, err := f.call.instances(f.ctx, batch)
	got := make([]snapshot.Instance, 0, len(out))
	for _, in := range out {
		if in.InstanceId != nil {
			got = append(got, ec2InstanceIn(f.ctx, in)) // the SDK's larger records are garbage at once
		}
	}
	f.meter.addInstances(len(got))
	f.mu.Lock()
	f.batches[i] = got
	f.mu.Unlock()
	if err != nil {
		f.result.fail(snapshot.SourceDescribeInstances, f.call.region, err)
	}
}

// count returns how many distinct instances were queued.
func (f *ec2Feed) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

// flush sends the pending partial batch, if any; a filtered read is told instead that every
// node is named.
func (f *ec2Feed) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.filter != nil {
		f.filter.namesComplete(f.seen)
		return
	}
	if len(f.pending) > 0 {
		f.send()
	}
}

// wait sends the last partial batch, waits for every call and returns the instances read.
func (f *ec2Feed) wait() []snapshot.Instance {
	f.waitFilter()
	f.mu.Lock()
	if len(f.pending) > 0 {
		f.send()
	}
	f.mu.Unlock()
	_ = f.queued.Wait() // every goroutine returns nil
	_ = f.calls.Wait()
	return slices.Concat(f.batches...)
}
