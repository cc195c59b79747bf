package scale

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"reflect"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// written returns the text Write gives for a scale snapshot of n nodes.
func written(tb testing.TB, n int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, Snapshot(n, time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC))); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadIsUnmarshal: Read of a written scale snapshot of 2,000 nodes, plain and gzipped,
// decodes its lists' elements apart and on every CPU; what it gives is what json.Unmarshal of
// the same text gives, redacted as Read redacts.
func TestReadIsUnmarshal(t *testing.T) {
	text := written(t, 2000)
	var want snapshot.Snapshot
	if err := json.Unmarshal(text, &want); err != nil {
		t.Fatal(err)
	}
	want.Redact()
	var packed bytes.Buffer
	zw := gzip.NewWriter(&packed)
	if _, err := zw.Write(text); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]byte{"plain": text, "gzip": packed.Bytes()} {
		got, err := snapshot.Read(bytes.NewReader(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got.Nodes) != 2000 || len(got.NodeClaims) != 2000 || len(got.Instances) != 2000 {
			t.Fatalf("%s: read %d nodes, %d NodeClaims, %d instances", name, len(got.Nodes), len(got.NodeClaims), len(got.Instances))
		}
		for i := range got.Nodes {
			if !reflect.DeepEqual(got.Nodes[i], want.Nodes[i]) {
				t.Fatalf("%s: node %d differs from json.Unmarshal's", name, i)
			}
		}
		if !reflect.DeepEqual(got, &want) {
			t.Fatalf("%s: the snapshot differs from json.Unmarshal's", name)
		}
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRead reads a written scale snapshot of 10,000 nodes: seconds and CPU seconds per read, and the heap
// the snapshot read holds per node.
func BenchmarkRead(b *testing.B) {
	const n = 10_000
	text := written(b, n)
	b.SetBytes(int64(len(text)))
	var s *snapshot.Snapshot
	cpu0 := cpuTime()
	for b.Loop() {
		var err error
		if s, err = snapshot.Read(bytes.NewReader(text)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	var held, freed runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&held)
	runtime.KeepAlive(s)
	s = nil
	runtime.GC()
	runtime.ReadMemStats(&freed)
	b.ReportMetric(float64(held.HeapAlloc-freed.HeapAlloc)/n, "heap-B/node")
}
