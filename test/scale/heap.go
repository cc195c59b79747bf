package scale

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// HeapObjects is the bytes of heap objects, live and not yet collected.
func HeapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// LiveHeap returns the bytes of heap objects once garbage is collected.
func LiveHeap() uint64 {
	runtime.GC()
	return HeapObjects()
}

// HeapSampler records the highest HeapObjects seen between StartHeapSampler and Stop, every
// millisecond.
type HeapSampler struct {
	mu   sync.Mutex
	peak uint64
	done chan struct{}
	wg   sync.WaitGroup
}

// StartHeapSampler starts sampling.
func StartHeapSampler() *HeapSampler {
	h := &HeapSampler{done: make(chan struct{}), peak: HeapObjects()}
	h.wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.done:
				return
			case <-t.C:
				if v := HeapObjects(); v > h.peak {
					h.mu.Lock()
					h.peak = v
					h.mu.Unlock()
				}
			}
		}
	})
	return h
}

// Stop stops sampling and returns the highest heap seen.
func (h *HeapSampler) Stop() uint64 {
	close(h.done)
	h.wg.Wait()
	return max(h.peak, HeapObjects())
}
