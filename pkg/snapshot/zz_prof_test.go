package snapshot_test

import (
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestZZCPU(t *testing.T) {
	out, _ := os.Create("/work/mem/cpu-read100.pprof")
	pprof.StartCPUProfile(out)
	st := time.Now()
	f, _ := os.Open("/work/mem/snapshot-100000.json")
	_, err := snapshot.ReadLimited(f, 16<<30)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Log(time.Since(st))
	pprof.StopCPUProfile()
	out.Close()
}
