// Command karpnet-mem measures the memory and time of analysing and printing a cluster of up
// to 100,000 nodes and more, with no API server and no EC2: for each size it writes the
// synthetic cluster of test/scale as a snapshot file, then measures, each in a process of its
// own, the real binary's `check --snapshot FILE -o json` (wall time and peak RSS) and the same
// steps in process (snapshot read, diagnose.Analyze, the JSON report into io.Discard), with
// the Go heap after and at the peak of each step.
//
//	go run ./test/scale/cmd/karpnet-mem -sizes 10000,100000
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/karpnet/kubectl-karpnet/internal/memlimit"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
	"github.com/karpnet/kubectl-karpnet/test/scale"
	"github.com/karpnet/kubectl-karpnet/test/scale/results"
)

// maxSnapshot is the --snapshot-max-size given to the binary and the in-process read.
const maxSnapshot = 16 << 30

func main() {
	sizes := flag.String("sizes", "10000,100000", "comma-separated cluster sizes, in nodes")
	dir := flag.String("dir", "", "working directory for the binary and the snapshot files (default: a new temporary directory, removed at exit)")
	keep := flag.Bool("keep", false, "keep the snapshot files in -dir (for -measure or profiling)")
	memprofile := flag.String("memprofile", "", "with -measure: write a heap profile of what is live after analysing to this file")
	measure := flag.String("measure", "", "measure the in-process steps on this snapshot file and print the figures as JSON (what the command runs in a process of its own)")
	resultsFile := flag.String("results", "", "also put each size's figures into this results file (test/scale/results.json renders docs/scale.md)")
	flag.Parse()
	var err error
	if *measure != "" {
		err = measureInProcess(*measure, *memprofile, os.Stdout)
	} else {
		err = run(*sizes, *dir, *resultsFile, *keep)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "karpnet-mem:", err)
		os.Exit(1)
	}
}

// figures are one in-process measurement. Heap figures are bytes of live heap objects: after a
// step (collected first: what the step keeps) and the highest seen during it (sampled).
type figures struct {
	Nodes, Findings                  int
	Read, Analyze, Print             time.Duration
	HeapRead, HeapAnalyze, HeapPrint uint64
	PeakRead, PeakAnalyze, PeakPrint uint64
	TotalAlloc, MaxRSS, ReportBytes  uint64
	Goroutines                       int
	// SoftLimit is the memory limit memlimit.Fit set after the read, as the binary does.
	SoftLimit int64
}

func run(sizeList, dir, resultsFile string, keep bool) error {
	var sizes []int
	for _, s := range strings.Split(sizeList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-sizes: %q is not a node count: give positive numbers such as 10000,100000", s)
		}
		sizes = append(sizes, n)
	}
	if dir == "" {
		if keep {
			return errors.New("-keep needs -dir: the temporary directory is removed at exit")
		}
		tmp, err := os.MkdirTemp("", "karpnet-mem-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bin := filepath.Join(dir, "kubectl-karpnet")
	commit := results.Commit() // the binary built next is the working tree's now
	if err := scale.BuildPlugin(ctx, bin); err != nil {
		return err
	}
	launcher := filepath.Join(dir, "peakrss")
	if err := scale.BuildPeakRSS(ctx, launcher); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tsnapshot file\tcheck --snapshot -o json wall\tpeak RSS\tRSS/node\tread\tanalyze\tprint\tlive heap after read\tafter analyze\tpeak heap\theap/node\tallocated\tin-process peak RSS\t")
	for _, n := range sizes {
		file := filepath.Join(dir, fmt.Sprintf("snapshot-%d.json", n))
		size, err := writeSnapshot(file, n)
		if err != nil {
			return err
		}
		wall, rss, err := runCheck(ctx, launcher, bin, file)
		if err != nil {
			return err
		}
		f, err := runMeasure(ctx, launcher, self, file)
		if err != nil {
			return err
		}
		peak := max(f.PeakRead, f.PeakAnalyze, f.PeakPrint)
		fmt.Fprintf(tw, "%d\t%s\t%.2f s\t%s\t%s\t%.2f s\t%.2f s\t%.2f s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", n, mib(uint64(size)),
			wall.Seconds(), mib(rss), kib(rss/uint64(n)), f.Read.Seconds(), f.Analyze.Seconds(), f.Print.Seconds(),
			mib(f.HeapRead), mib(f.HeapAnalyze), mib(peak), kib(peak/uint64(n)), mib(f.TotalAlloc), mib(f.MaxRSS))
		if resultsFile != "" {
			row := results.Row{Benchmark: results.Snapshot, Nodes: n, Runs: 1, WallSeconds: wall.Seconds(),
				PeakRSSMiB: float64(rss) / (1 << 20), AnalyzeSeconds: f.Analyze.Seconds()}
			row = results.Stamp(row, time.Now())
			row.Commit = commit
			if err := results.Update(resultsFile, row); err != nil {
				return err
			}
		}
		if keep {
			continue
		}
		if err := os.Remove(file); err != nil {
			return err
		}
	}
	return tw.Flush()
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
func kib(b uint64) string { return fmt.Sprintf("%.1f KiB", float64(b)/1024) }

// writeSnapshot writes the synthetic cluster of n nodes to file and returns its size.
func writeSnapshot(file string, n int) (int64, error) {
	s := scale.Snapshot(n, time.Now().UTC())
	out, err := os.Create(file)
	if err != nil {
		return 0, err
	}
	if err := snapshot.Write(out, s); err != nil {
		_ = out.Close()
		return 0, fmt.Errorf("writing the %d-node snapshot: %w", n, err)
	}
	if err := out.Close(); err != nil {
		return 0, err
	}
	st, err := os.Stat(file)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// runCheck runs `check --snapshot file -o json` under launcher (peakrss) and returns its wall
// time and peak RSS. Exit code 1 (findings at or above --fail-on) is what the planted faults give.
func runCheck(ctx context.Context, launcher, bin, file string) (time.Duration, uint64, error) {
	cmd, peak := scale.MeasuredCommand(ctx, launcher, bin, "check", "--snapshot", file, "--snapshot-max-size", strconv.Itoa(maxSnapshot), "-o", "json")
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return 0, 0, fmt.Errorf("check --snapshot: %w\n%s", err, stderr.String())
	}
	rss, err := peak()
	if err != nil {
		return 0, 0, err
	}
	return wall, uint64(rss), nil
}

// runMeasure runs this command with -measure file in a new process, under launcher (peakrss)
// so that the process's own peak RSS is its own, not this one's, and reads its figures.
func runMeasure(ctx context.Context, launcher, self, file string) (figures, error) {
	var f figures
	cmd, peak := scale.MeasuredCommand(ctx, launcher, self, "-measure", file)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return f, fmt.Errorf("measuring in process: %w", err)
	}
	if _, err := peak(); err != nil { // the process reports its own, from getrusage
		return f, err
	}
	if err := json.Unmarshal(out, &f); err != nil {
		return f, fmt.Errorf("reading the in-process figures: %w", err)
	}
	return f, nil
}

// countingDiscard counts what the printer writes.
type countingDiscard struct{ n uint64 }

func (c *countingDiscard) Write(p []byte) (int, error) { c.n += uint64(len(p)); return len(p), nil }

// measureInProcess reads file, analyses it and prints the JSON report into a counter, and
// writes the figures as JSON to w.
func measureInProcess(file, memprofile string, w io.Writer) error {
	var f figures
	runtime.GC()

	h, start := scale.StartHeapSampler(), time.Now()
	in, err := os.Open(file)
	if err != nil {
		return err
	}
	s, err := snapshot.ReadLimited(in, maxSnapshot)
	_ = in.Close()
	if err != nil {
		return err
	}
	f.Read, f.PeakRead = time.Since(start), h.Stop()
	f.HeapRead = scale.LiveHeap()
	f.SoftLimit, _ = memlimit.Fit(0)

	h, start = scale.StartHeapSampler(), time.Now()
	r := diagnose.Analyze(s, diagnose.Options{})
	f.Analyze, f.PeakAnalyze = time.Since(start), h.Stop()
	f.HeapAnalyze = scale.LiveHeap()
	if memprofile != "" {
		if err := writeHeapProfile(memprofile); err != nil {
			return err
		}
	}

	s = nil // the report holds what printing needs, and check lets the snapshot go too

	h, start = scale.StartHeapSampler(), time.Now()
	var out countingDiscard
	if err := printer.PrintCheck(&out, r, printer.JSON, style.New(lipgloss.NewRenderer(io.Discard)), printer.CI{}); err != nil {
		return err
	}
	f.Print, f.PeakPrint = time.Since(start), h.Stop()
	f.HeapPrint = scale.LiveHeap()

	f.Nodes, f.Findings, f.ReportBytes = len(r.Nodes), len(r.Findings), out.n
	runtime.KeepAlive(r)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	f.TotalAlloc = ms.TotalAlloc
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return err
	}
	f.MaxRSS = uint64(ru.Maxrss) * 1024
	return json.NewEncoder(w).Encode(f)
}

// writeHeapProfile writes the heap profile to file.
func writeHeapProfile(file string) error {
	out, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(out); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
