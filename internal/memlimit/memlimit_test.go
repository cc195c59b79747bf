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
	if limit, live := Fit(); limit != 0 {
		t.Fatalf("with %d bytes live Fit set a limit of %d, want none below %d", live, limit, Floor)
	}
	held := make([][]byte, 0, 320)
	for range 320 {
		held = append(held, make([]byte, 1<<20))
	}
	runtime.GC()
	limit, live := Fit()
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
	if limit, _ := Fit(); limit != 0 || debug.SetMemoryLimit(-1) != 4<<30 {
		t.Fatalf("with GOMEMLIMIT set Fit set a limit of %d, want none", limit)
	}
	runtime.KeepAlive(held)
	t.Setenv("GOMEMLIMIT", "")
	Fit()
	held = nil
	runtime.GC()
	if limit, live := Fit(); limit != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Fatalf("with %d bytes live again Fit left a limit of %d (set %d), want the runtime's default", live, debug.SetMemoryLimit(-1), limit)
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
	stop()
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
	stop()
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Fatalf("expecting 100,000 nodes During set %d, want %d (1.75 x %d + 64 MiB)", got, want, projected)
	}
	for _, c := range []struct {
		live, nodes, want int64
	}{
		{0, 0, 0},
		{Floor - 1, 1000, 0},
		{Floor, 0, Floor + Floor/2 + 64<<20},
		{Floor, 1000, Floor + Floor/2 + 64<<20},   // 7 MiB of nodes: the live heap decides
		{Floor, 100000, want},                     // the nodes decide
		{2 << 30, 100000, 2<<30 + 1<<30 + 64<<20}, // more live than expected: the live heap decides
		{0, math.MaxInt64, 0},                     // a count no cluster has is not believed
		{0, -5, 0},
	} {
		if got := duringLimit(c.live, func() int64 { return c.nodes }); got != c.want {
			t.Errorf("duringLimit(%d live, %d nodes) = %d, want %d", c.live, c.nodes, got, c.want)
		}
	}
	if got := duringLimit(Floor, nil); got != Floor+Floor/2+64<<20 {
		t.Errorf("duringLimit(Floor, nil) = %d, want %d", got, Floor+Floor/2+64<<20)
	}
}
