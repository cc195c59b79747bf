package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"
)

// TestFitSetsALimitFromTheLiveHeap holds more than Floor live, and Fit must set 1.75 times it
// plus 64 MiB; below Floor, or with GOMEMLIMIT set, it must set nothing.
func TestFitSetsALimitFromTheLiveHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	runtime.GC()
	if limit, live := Fit(0); limit != 0 {
		t.Fatalf("with %d bytes live Fit set a limit of %d, want none below %d", live, limit, Floor)
	}
	held := make([][]byte, 0, 320)
	for range 320 {
		held = append(held, make([]byte, 1<<20))
	}
	runtime.GC()
	limit, live := Fit(0)
	runtime.KeepAlive(held)
	if live < 320<<20 {
		t.Fatalf("Fit read %d bytes live, want at least the %d held", live, 320<<20)
	}
	if want := live + live*3/4 + 64<<20; limit != want {
		t.Fatalf("Fit set %d, want %d (1.75 x %d + 64 MiB)", limit, want, live)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Fatalf("the runtime's limit is %d, want %d", got, limit)
	}
	t.Setenv("GOMEMLIMIT", "4GiB")
	debug.SetMemoryLimit(4 << 30)
	if limit, _ := Fit(0); limit != 0 || debug.SetMemoryLimit(-1) != 4<<30 {
		t.Fatalf("with GOMEMLIMIT set Fit set a limit of %d, want none", limit)
	}
	runtime.KeepAlive(held)
	t.Setenv("GOMEMLIMIT", "")
	Fit(0)
	held = nil
	runtime.GC()
	if limit, live := Fit(0); limit != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Fatalf("with %d bytes live again Fit left a limit of %d (set %d), want the runtime's default", live, debug.SetMemoryLimit(-1), limit)
	}
}

// TestFitKeepsTheLimitHeldWhileReading: given the limit During held, Fit forces no collection
// and keeps that limit while the last collection's live heap would not set one more than a
// quarter above it; past that, or with a live heap under Floor, it measures as without one.
func TestFitKeepsTheLimitHeldWhileReading(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	held := make([][]byte, 0, 320)
	for range 320 {
		held = append(held, make([]byte, 1<<20))
	}
	runtime.GC()
	last := heapBytes("/gc/heap/live:bytes")
	collections := func() uint32 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.NumGC
	}
	for _, limit := range []int64{4 << 30, fitLimit(last)*4/5 + 1<<20} {
		before := collections()
		got, live := Fit(limit)
		if got != limit || live != last || debug.SetMemoryLimit(-1) != limit {
			t.Errorf("Fit(%d) = %d, %d live (runtime's limit %d); want it kept, %d live", limit, got, live,
				debug.SetMemoryLimit(-1), last)
		}
		if n := collections() - before; n != 0 {
			t.Errorf("Fit(%d) forced %d collections, want none", limit, n)
		}
	}
	before := collections()
	tight := fitLimit(last)*4/5 - 1<<20
	got, live := Fit(tight)
	if got != fitLimit(live) || collections() == before {
		t.Errorf("Fit(%d) with %d live when last collected = %d after %d collections; want it measured, %d",
			tight, last, got, collections()-before, fitLimit(live))
	}
	runtime.KeepAlive(held)
	held = nil
	runtime.GC()
	if limit, _ := Fit(4 << 30); limit != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Fatalf("with little live Fit kept a limit of %d, want the runtime's default", limit)
	}
}

// TestDuringFollowsTheLiveHeap holds more than Floor live while During runs: within a few
// ticks the limit is 1.5 times the live heap of the last collection plus 64 MiB. stop ends
// it, and may be called twice.
func TestDuringFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	debug.SetMemoryLimit(math.MaxInt64)
	held := make([][]byte, 0, 320)
	for range 320 {
		held = append(held, make([]byte, 1<<20))
	}
	runtime.GC()
	stop := During(nil)
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) == math.MaxInt64 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if held := stop(); held != 0 {
		t.Errorf("following the live heap alone, stop returned %d as a limit held for nodes expected, want 0", held)
	}
	stop()
	live := heapBytes("/gc/heap/live:bytes")
	runtime.KeepAlive(held)
	got := debug.SetMemoryLimit(-1)
	// A collection the runtime made in between may have moved the live heap a little.
	if want := live + live/2 + 64<<20; got < want*95/100 || got > want*105/100 {
		t.Fatalf("limit %d while %d live, want about %d", got, live, want)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	time.Sleep(400 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("after stop the limit changed to %d", got)
	}
}

// TestDuringSetsTheLimitForTheNodesExpected: told early how many nodes the cluster has,
// During sets the limit Fit would set for them, with almost nothing live yet, and keeps the
// larger of that and 1.5 times the live heap; a count too small to pass Floor, or none, sets
// nothing.
func TestDuringSetsTheLimitForTheNodesExpected(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	debug.SetMemoryLimit(math.MaxInt64)
	runtime.GC()
	if live := heapBytes("/gc/heap/live:bytes"); live >= Floor {
		t.Fatalf("%d bytes live before the test, want under %d", live, Floor)
	}
	var nodes atomic.Int64
	stop := During(nodes.Load)
	time.Sleep(400 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("with no node count and little live During set %d, want no limit", got)
	}
	nodes.Store(100000)
	projected := int64(100000 * NodeBytes)
	want := projected + projected*3/4 + 64<<20
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) != want && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	// The projected limit alone paces the collector: GOGC is off until stop.
	if got := gcPercent(); got != -1 {
		t.Errorf("with the limit projected for 100,000 nodes GOGC is %d, want off (-1)", got)
	}
	if held := stop(); held != want {
		t.Errorf("stop returned %d as the limit held, want the projected %d", held, want)
	}
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Fatalf("expecting 100,000 nodes During set %d, want %d (1.75 x %d + 64 MiB)", got, want, projected)
	}
	if got := gcPercent(); got != 100 {
		t.Errorf("after stop GOGC is %d, want it given back (100)", got)
	}
	for _, c := range []struct {
		live, nodes, want int64
		projected         bool
	}{
		{0, 0, 0, false},
		{Floor - 1, 1000, 0, false},
		{Floor, 0, Floor + Floor/2 + 64<<20, false},
		{Floor, 1000, Floor + Floor/2 + 64<<20, false},   // 7 MiB of nodes: the live heap decides
		{Floor, 100000, want, true},                      // the nodes decide
		{2 << 30, 100000, 2<<30 + 1<<30 + 64<<20, false}, // more live than expected: the live heap decides
		{0, math.MaxInt64, 0, false},                     // a count no cluster has is not believed
		{0, -5, 0, false},
		// More nodes than EKS allows raise the limit but leave GOGC on.
		{0, MaxProjected + 1, (MaxProjected+1)*NodeBytes*7/4 + 64<<20, false},
	} {
		got, projected := duringLimit(c.live, func() int64 { return c.nodes })
		if got != c.want || projected != c.projected {
			t.Errorf("duringLimit(%d live, %d nodes) = %d, %t; want %d, %t", c.live, c.nodes, got, projected, c.want, c.projected)
		}
	}
	if got, _ := duringLimit(Floor, nil); got != Floor+Floor/2+64<<20 {
		t.Errorf("duringLimit(Floor, nil) = %d, want %d", got, Floor+Floor/2+64<<20)
	}
}

// gcPercent returns the runtime's GOGC.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestDuringLeavesAGOGCSetAlone: with GOGC set, During sets the projected limit but leaves
// the collector's pace to it.
func TestDuringLeavesAGOGCSetAlone(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "150")
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	debug.SetMemoryLimit(math.MaxInt64)
	stop := During(func() int64 { return 100000 })
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) == math.MaxInt64 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // a tick more
	got := gcPercent()
	stop()
	if debug.SetMemoryLimit(-1) == math.MaxInt64 || got != 150 {
		t.Fatalf("with GOGC=150 set During left GOGC at %d and the limit at %d; want 150 and the projected limit", got, debug.SetMemoryLimit(-1))
	}
}
