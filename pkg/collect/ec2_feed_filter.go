package collect

import (
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2FeedFilter is a feed's filtered read (ec2Plan): page streams by the cluster's tag, one
// per group of zones, run at once while the nodes are still listed. An instance of a page is
// kept when a node or NodeClaim names it, or when the search for the cluster's other
// instances would keep it (launched by Karpenter for the cluster, pending or running); before
// every node is listed, every instance the filter returns is kept until the list ends (the
// filter returns only the cluster's own). The rest is dropped as its page is read.
type ec2FeedFilter struct {
	plan    ec2Plan
	streams sync.WaitGroup
	// Guarded by the feed's mu.
	found    map[string]snapshot.Instance
	launched map[string]bool // found instances the search for the cluster's instances keeps
	complete bool            // every node was added (NodeClaims may still add names)
	err      error
	// leaked holds, after wait, the instances launched for the cluster that no node or
	// NodeClaim names, sorted by ID: the search for the cluster's other instances.
	leaked []snapshot.Instance
}

// useFilter starts the filtered read of plan; the IDs added from now on wait in pending.
// With replan set, the streams start once replan returns the plan to read (the same
// cluster's), in a goroutine of their own: the node listing goes on meanwhile, its IDs held.
func (f *ec2Feed) useFilter(plan ec2Plan, replan func() ec2Plan) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ff := newEC2FeedFilter(plan)
	f.filter = ff
	if replan == nil {
		f.startStreams(ff, plan)
		return
	}
	ff.streams.Add(1)
	go func() {
		defer ff.streams.Done()
		p := replan()
		f.mu.Lock()
		ff.plan = p
		f.mu.Unlock()
		f.startStreams(ff, p)
	}()
}

func newEC2FeedFilter(plan ec2Plan) *ec2FeedFilter {
	return &ec2FeedFilter{plan: plan, found: map[string]snapshot.Instance{}, launched: map[string]bool{}}
}

// readBefore reports whether the instance id was kept by the filtered read already or read by
// ID; f.mu is held.
func (f *ec2Feed) readBefore(ff *ec2FeedFilter, id string) bool {
	_, found := ff.found[id]
	return found || f.read[id]
}

// startStreams starts a page stream for each group of zones of plan.
func (f *ec2Feed) startStreams(ff *ec2FeedFilter, plan ec2Plan) {
	tag := ec2TagClusterPrefix + plan.cluster
	for _, zones := range plan.streams {
		if len(plan.streams) == 1 {
			zones = nil
		}
		// A bound on pages of twice what is expected, and room for EC2's short pages: past it
		// the named instances not yet read are read by ID.
		maxPages := 2*ec2Ceil(plan.instances, ec2PageSize) + ec2MaxPages
		// An instance kept already, or read by ID before, is not decoded again.
		ctx := withReadBefore(f.ctx, func(id string) bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.readBefore(ff, id)
		})
		ff.streams.Add(1)
		go func() {
			defer ff.streams.Done()
			err := f.call.clusterStream(ctx, plan.cluster, zones, maxPages, func(v snapshot.Instance) {
				f.keepFiltered(v, tag)
			})
			if err != nil {
				f.mu.Lock()
				if ff.err == nil {
					ff.err = err
				}
				f.mu.Unlock()
			}
		}()
	}
}

// keepFiltered keeps one instance of a filtered page, or drops it.
func (f *ec2Feed) keepFiltered(v snapshot.Instance, tag string) {
	id := v.ID
	f.meter.addInstances(1)
	launched := (v.State == string(types.InstanceStateNamePending) || v.State == string(types.InstanceStateNameRunning)) &&
		ec2LaunchedFor(v.Tags, tag)
	f.mu.Lock()
	ff := f.filter
	keep := f.seen[id] || launched || !ff.complete
	dup := f.readBefore(ff, id)
	f.mu.Unlock()
	if !keep || dup {
		return
	}
	f.mu.Lock()
	ff.found[id] = v
	if launched {
		ff.launched[id] = true
	}
	f.mu.Unlock()
}

// namesComplete says every node was added; instances found that no node names and that the
// search for the cluster's instances would not keep are dropped. f.mu is held.
func (ff *ec2FeedFilter) namesComplete(seen map[string]bool) {
	ff.complete = true
	for id := range ff.found {
		if !seen[id] && !ff.launched[id] {
			delete(ff.found, id)
		}
	}
}

// waitFilter waits for the filtered read, keeps what the nodes and NodeClaims name, sets the
// cluster's other instances aside in leaked, and sends every named instance the filter did
// not return to be read by ID. A stream that failed is a gap of the search for the cluster's
// instances: the nodes' own instances are read by ID in its stead.
func (f *ec2Feed) waitFilter() {
	f.mu.Lock()
	ff := f.filter
	f.mu.Unlock()
	if ff == nil {
		return
	}
	ff.streams.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	// The IDs are sorted, not the instances (hundreds of bytes each, 100,000 of them), and the
	// instances copied once into a slice of their number.
	ids := make([]string, 0, len(ff.found))
	var leaked []string
	for id := range ff.found {
		switch {
		case f.seen[id]:
			ids = append(ids, id)
		case ff.launched[id]:
			leaked = append(leaked, id)
		}
	}
	slices.Sort(ids)
	slices.Sort(leaked)
	named := make([]snapshot.Instance, len(ids))
	for i, id := range ids {
		named[i] = ff.found[id]
	}
	for _, id := range leaked {
		ff.leaked = append(ff.leaked, ff.found[id])
	}
	ff.found = nil
	f.batches = append(f.batches, named)
	read := ec2InstanceIDs(named)
	var missing []string
	for id := range f.seen {
		if !read[id] && !f.read[id] {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	f.pending = nil
	for _, batch := range ec2Batches(missing, ec2FilterBatch) {
		f.pending = batch
		f.send()
	}
	if ff.err != nil {
		f.result.fail(snapshot.SourceClusterInstances, f.call.region, ff.err)
	}
}

// filtered returns the feed's filtered read, nil when it reads by ID.
func (f *ec2Feed) filtered() *ec2FeedFilter {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.filter
}
