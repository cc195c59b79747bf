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
//
// held is the limit During held for the nodes the read expected (its stop returns it; 0 for
// none). With one held, and a live heap at the runtime's last collection past Floor whose own
// limit would be at most a quarter above held, no collection is forced and held stays: the
// read has peaked within it already, and the analysis then collects less often than under a
// limit fitted closer (at 100,000 nodes three collections after reading instead of four, the
// forced one included). The live heap returned is then the last collection's; a collection
// during the read counts pages in flight as live, so it is a little above what the snapshot
// holds. A live heap past that (nodes far larger than NodeBytes) is measured as without held.
func Fit(held int64) (limit, live int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0, 0
	}
	if last := heapBytes("/gc/heap/live:bytes"); held > 0 && last >= Floor && fitLimit(last) <= held+held/4 {
		debug.SetMemoryLimit(held)
		fitted.Store(true)
		return held, last
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
	limit = fitLimit(live)
	debug.SetMemoryLimit(limit)
	fitted.Store(true)
	return limit, live
}

// fitLimit is the limit Fit sets for live bytes live: 1.75 times it plus 64 MiB.
func fitLimit(live int64) int64 { return live + live*3/4 + 64<<20 }

// NodeBytes is about what one node holds once read, with its NodeClaim and its instance, and
// some room: 474 MiB live for 100,000 nodes of the scale cluster (4.9 KiB a node, measured
// after reading, see docs/scale.md; 604 MiB before NodeClaims with equal labels shared a map),
// and a node of a real cluster carries more conditions, labels and annotations.
const NodeBytes = 6 << 10

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
//
// While the limit is the one projected for the nodes expected (at most MaxProjected), the
// collector runs only as the heap nears it (GOGC off, unless GOGC is set): the heap then
// grows into the room the limit gives instead of being collected at every doubling from a
// few MiB. At 100,000 nodes that is 9 collections of a reading instead of 18, and 4.4 s less
// CPU, with the same peak. stop gives GOGC back, and returns the limit projected for the nodes
// expected that was set last (0 when the last limit set was not one), for Fit.
func During(expected func() int64) (stop func() (held int64)) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() int64 { return 0 }
	}
	pace := os.Getenv("GOGC") == ""
	var held atomic.Int64
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		percent, off := 0, false
		defer func() {
			if off {
				debug.SetGCPercent(percent)
			}
		}()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				limit, projected := duringLimit(heapBytes("/gc/heap/live:bytes"), expected)
				if limit > 0 {
					debug.SetMemoryLimit(limit)
					fitted.Store(true)
					held.Store(0)
					if projected {
						held.Store(limit)
					}
				}
				switch {
				case pace && projected && !off:
					percent, off = debug.SetGCPercent(-1), true
				case off && !projected:
					debug.SetGCPercent(percent)
					off = false
				}
			}
		}
	}()
	var once sync.Once
	return func() int64 {
		once.Do(func() {
			close(done)
			<-ended
		})
		return held.Load()
	}
}

// MaxProjected is the most nodes whose projected limit lets During turn GOGC off: a count past
// it (a cluster larger than EKS allows, or an API server that lies) only raises the limit.
const MaxProjected = 200_000

// duringLimit is the limit During sets with live bytes live and the nodes expected says,
// 0 for none, and whether it is the one projected for at most MaxProjected nodes.
func duringLimit(live int64, expected func() int64) (limit int64, projected bool) {
	if live >= Floor {
		limit = live + live/2 + 64<<20
	}
	if expected != nil {
		if n := expected(); n > 0 && n < math.MaxInt64/4/NodeBytes {
			if p := n * NodeBytes; p >= Floor {
				if fit := fitLimit(p); fit > limit {
					limit, projected = fit, n <= MaxProjected
				}
			}
		}
	}
	return limit, projected
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
