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
	// read holds the IDs of the instances read by ID so far.
	read map[string]bool
	// learn, when set, chooses from the first batch read by ID whether the rest is read by the
	// cluster's tag (the name learned from the instances' tags): until it has (decided is
	// closed), the IDs after that batch are held in pending (holding), and a flush waits
	// (flushed).
	learn            func([]snapshot.Instance) (ec2Plan, bool)
	decided          chan struct{}
	holding, flushed bool
	// guess, when set with learn, is asked first, at the first batch, for a filtered read's
	// plan by a name known without reading an instance (the EC2NodeClasses' instance
	// profiles); only when it has none is the first batch read by ID for learn.
	guess func() (ec2Plan, bool)
}

func newEC2Feed(ctx context.Context, call ec2Call, result *ec2Result, meter *Meter) *ec2Feed {
	f := &ec2Feed{ctx: ctx, call: call, result: result, seen: map[string]bool{}, read: map[string]bool{}, meter: meter}
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
		if len(f.pending) == ec2FilterBatch && f.filter == nil && !f.holding {
			f.sendFirst()
		}
	}
	if f.learn != nil && !f.holding && len(f.pending) > 0 {
		f.sendFirst() // the first page names fewer than a batch: they are the first batch
	}
}

// sendFirst sends the pending batch; when it is the first of a feed that learns how to read
// the rest from it, the IDs after it are held until it is read. f.mu is held.
func (f *ec2Feed) sendFirst() {
	if f.learn != nil && len(f.batches) == 0 {
		f.holding, f.decided = true, make(chan struct{})
		if guess := f.guess; guess != nil {
			f.guess = nil
			go f.tryGuess(guess)
			return
		}
	}
	f.send()
}

// tryGuess reads the feed's instances by the plan guess returns, the IDs held waiting for
// it; when guess has none, it sends the first batch of the IDs held to be read by ID and
// learned from, as without a guess.
func (f *ec2Feed) tryGuess(guess func() (ec2Plan, bool)) {
	if plan, ok := guess(); ok {
		f.apply(plan, true)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	held := f.pending
	n := min(len(held), ec2FilterBatch)
	f.pending = held[:n:n]
	f.send()
	f.pending = slices.Clone(held[n:])
}

// decide reads the rest of the feed's instances the way learn chooses from the first batch:
// by the cluster's tag, the IDs held waiting for the filtered read, or by ID, the IDs held
// sent in batches.
func (f *ec2Feed) decide(first []snapshot.Instance) {
	f.apply(f.learn(first))
}

// apply reads the rest of the feed's instances by plan when filtered, else by ID, and ends
// the holding.
func (f *ec2Feed) apply(plan ec2Plan, filtered bool) {
	f.mu.Lock()
	defer close(f.decided)
	defer f.mu.Unlock()
	f.learn, f.holding = nil, false
	if filtered {
		ff := newEC2FeedFilter(plan)
		f.filter = ff
		f.startStreams(ff, plan)
		if f.flushed {
			ff.namesComplete(f.seen)
		}
		return
	}
	held := f.pending
	f.pending = nil
	for _, batch := range ec2Batches(held, ec2FilterBatch) {
		if len(batch) < ec2FilterBatch && !f.flushed {
			f.pending = batch // more nodes to come
			break
		}
		f.pending = batch
		f.send()
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

// describe describes batch into f.batches[i]. Once a call has found EC2 unreadable in the
// Region (unreachable, no credentials, a Region not enabled), the batches not sent yet are not
// sent: each would fail alike after its retries (an unreachable endpoint held 10,000 nodes for
// 40 s, 50 calls of 5 attempts), and that failure's gap covers them.
func (f *ec2Feed) describe(i int, batch []string) {
	var got []snapshot.Instance
	var err error
	if !f.result.stopped(f.call.region) {
		got, err = f.call.instances(f.ctx, batch)
	}
	f.meter.addInstances(len(got))
	f.mu.Lock()
	f.batches[i] = got
	for _, in := range got {
		f.read[in.ID] = true
	}
	learn := i == 0 && f.learn != nil
	f.mu.Unlock()
	if err != nil {
		f.result.fail(snapshot.SourceDescribeInstances, f.call.region, err)
	}
	if learn {
		f.decide(got)
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
	if f.holding {
		f.flushed = true // decide sends or filters what is held
		return
	}
	if len(f.pending) > 0 {
		f.send()
	}
}

// wait sends the last partial batch, waits for every call and returns the instances read.
func (f *ec2Feed) wait() []snapshot.Instance {
	f.mu.Lock()
	decided := f.decided
	f.mu.Unlock()
	if decided != nil {
		<-decided
	}
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
