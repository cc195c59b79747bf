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

// During keeps the limit fitted while a large cluster is being read, until stop is called:
// every quarter second it sets the limit from the live heap of the last collection the
// runtime made (no collection is forced), so a collection that grows past Floor is held to
// about 1.5 times what it holds as it grows, instead of twice: what it holds grows by little
// between two collections, while the report that Fit makes room for is not built yet. Fit, called once the
// snapshot is complete, sets the limit it keeps. stop may be called more than once.
func During() (stop func()) {
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
				if live := heapBytes("/gc/heap/live:bytes"); live >= Floor {
					debug.SetMemoryLimit(live + live/2 + 64<<20)
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

// heapBytes reads a runtime metric of bytes, 0 when this runtime does not have it.
func heapBytes(name string) int64 {
	sample := []metrics.Sample{{Name: name}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 || sample[0].Value.Uint64() > math.MaxInt64/2 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}
