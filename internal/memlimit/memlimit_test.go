package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
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
	stop := During()
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
