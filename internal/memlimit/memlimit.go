// Package memlimit gives a run that holds a large cluster a soft memory limit. Go's collector
// lets the heap grow to twice what is live before it collects; at 100,000 nodes the snapshot
// alone is about 800 MiB live, so analysing it would take over 2 GiB. Once the snapshot is
// read, Fit sets the limit to what is live and three quarters as much again (the report and
// the analysis take about a quarter more), which the runtime keeps to by collecting sooner,
// with no change to what is computed.
package memlimit

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Floor is the live heap below which Fit leaves the runtime's defaults alone: a cluster of
// 10,000 nodes holds under 100 MiB.
const Floor = 256 << 20

// fitted is whether Fit set the limit the runtime has.
var fitted atomic.Bool

// Fit sets a soft memory limit of 1.75 times the live heap plus
// 64 MiB when the live heap is past Floor and GOMEMLIMIT is not set. A later call (serve and
// --watch collect again) sets it anew, and takes a limit it set away once the live heap is
// under Floor again. It returns the limit set, zero when it set none, and the live heap.
func Fit() (limit, live int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0, 0
	}
	// What the heap holds, garbage included, bounds what is live: only past Floor is the
	// live heap measured, by a collection (about half a second at 100,000 nodes), since the
	// last collection's figure can be far behind a snapshot just read.
	if heapBytes("/memory/classes/heap/objects:bytes") >= Floor {
		runtime.GC()
	}
	live = heapBytes("/gc/heap/live:bytes")
	if live < Floor {
		if fitted.Swap(false) {
			debug.SetMemoryLimit(math.MaxInt64)
		}
		return 0, live
	}
	limit = live + live*3/4 + 64<<20
	debug.SetMemoryLimit(limit)
	fitted.Store(true)
	return limit, live
}

// NodeBytes is about what one node holds once read, with its NodeClaim and its instance:
// 739 MiB live for 100,000 nodes (measured after reading, see docs/scale.md).
const NodeBytes = 7 << 10

// During keeps the limit fitted while a large cluster is being read, until stop is called.
// Every quarter second it sets the limit to the larger of two: 1.5 times the live heap of the
// last collection the runtime made plus 64 MiB (no collection is forced), so a collection that
// grows past Floor is held to about 1.5 times what it holds instead of twice; and, once
// expected (nil: never) says how many nodes the cluster has, the limit Fit would set for them
// (at NodeBytes a node), when that is past Floor. The first alone trails the heap it follows:
// at 100,000 nodes it kept the limit a step above a heap that was still growing, and the
// runtime collected over and over (a collection 8 s longer than with the final limit set
// from the start, and a higher peak). Fit, called once the snapshot is complete, sets the limit
// it keeps. stop may be called more than once.
func During(expected func() int64) (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if limit := duringLimit(heapBytes("/gc/heap/live:bytes"), expected); limit > 0 {
					debug.SetMemoryLimit(limit)
					fitted.Store(true)
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-ended
		})
	}
}

// duringLimit is the limit During sets with live bytes live and the nodes expected says,
// 0 for none.
func duringLimit(live int64, expected func() int64) int64 {
	var limit int64
	if live >= Floor {
		limit = live + live/2 + 64<<20
	}
	if expected != nil {
		if n := expected(); n > 0 && n < math.MaxInt64/4/NodeBytes {
			if projected := n * NodeBytes; projected >= Floor {
				limit = max(limit, projected+projected*3/4+64<<20)
			}
		}
	}
	return limit
}

// heapBytes reads a runtime metric of bytes, 0 when this runtime does not have it.
func heapBytes(name string) int64 {
	sample := []metrics.Sample{{Name: name}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 || sample[0].Value.Uint64() > math.MaxInt64/2 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}
