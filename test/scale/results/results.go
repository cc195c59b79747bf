// Package results is the file the scale benchmarks write their figures to
// (test/scale/results.json) and docs/scale.md's tables are rendered from: each row says what
// was measured, on which commit, when and on what machine, so the docs hold only current
// figures and say where they come from.
package results

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The benchmarks a row comes from.
const (
	// Live is test/scale's karpnet-scale: check against a real kube-apiserver and etcd and the
	// EC2 simulator, on the same machine.
	Live = "live"
	// Snapshot is karpnet-mem: check --snapshot of the synthetic cluster, no API server.
	Snapshot = "snapshot"
	// Serve is karpnet-scale's -serve-collections: serve's collections of the live cluster.
	Serve = "serve"
	// TUI is pkg/tui's benchmarks of a filter keystroke and a redraw over a synthetic report.
	TUI = "tui"
)

// File is the results file: one row per benchmark, size and way of reading.
type File struct {
	Rows []Row `json:"rows"`
}

// Row is one size measured by one benchmark.
type Row struct {
	Benchmark string `json:"benchmark"`
	Nodes     int    `json:"nodes"`
	// ClusterName is true when check was given --cluster-name (it may then read the
	// instances by cluster tag); live rows only.
	ClusterName bool `json:"clusterName,omitempty"`
	// Runs is how many check runs the wall time is the median of.
	Runs int `json:"runs"`
	// EC2Requests, KubeRequests and Throttled are check's requests and its RequestLimitExceeded
	// answers; live rows only.
	EC2Requests  int `json:"ec2Requests,omitempty"`
	KubeRequests int `json:"kubeRequests,omitempty"`
	Throttled    int `json:"throttled"`
	// WallSeconds and PeakRSSMiB are check's wall time and peak resident set.
	WallSeconds float64 `json:"wallSeconds"`
	PeakRSSMiB  float64 `json:"peakRSSMiB"`
	// FloorSeconds is what the API server and EC2 alone take to give check its lists and one
	// EC2 answer (test/scale's Env.Floor), measured in the same run; live rows only.
	FloorSeconds float64 `json:"floorSeconds,omitempty"`
	// UserCPUSeconds is check's CPU time in user mode, on all cores; live rows only.
	UserCPUSeconds float64 `json:"userCPUSeconds,omitempty"`
	// Collections is how many collections serve made; SecondRSSMiB and LastRSSMiB its resident
	// set after the second and the last of them (PeakRSSMiB its peak, WallSeconds the mean
	// collection); serve rows only.
	Collections  int     `json:"collections,omitempty"`
	SecondRSSMiB float64 `json:"secondRSSMiB,omitempty"`
	LastRSSMiB   float64 `json:"lastRSSMiB,omitempty"`
	// KeystrokeMs is one more filter character and the frame after it, FrameMs a redraw of the
	// nodes view, in milliseconds; tui rows only.
	KeystrokeMs float64 `json:"keystrokeMs,omitempty"`
	FrameMs     float64 `json:"frameMs,omitempty"`
	// AnalyzeSeconds is the analysis alone, in process; snapshot rows only.
	AnalyzeSeconds float64 `json:"analyzeSeconds,omitempty"`
	// DescribeEC2 and DescribeKube are describe node's requests; BaselineEC2 and
	// BaselineWallSeconds the per-node baseline's (one DescribeInstances a node); live only.
	DescribeEC2         int     `json:"describeEC2,omitempty"`
	DescribeKube        int     `json:"describeKube,omitempty"`
	BaselineEC2         int     `json:"baselineEC2,omitempty"`
	BaselineWallSeconds float64 `json:"baselineWallSeconds,omitempty"`
	// Commit is the commit the binary was built from, Date when the row was measured (UTC),
	// Machine what it ran on.
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Machine string `json:"machine"`
}

// key is what makes two rows the same measurement: a new one replaces the old.
func (r Row) key() string {
	return fmt.Sprintf("%s/%d/%t", r.Benchmark, r.Nodes, r.ClusterName)
}

// Read reads the results file at path; a file that does not exist is an empty one.
func Read(path string) (File, error) {
	var f File
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("reading %s: %w: fix or remove it", path, err)
	}
	return f, nil
}

// Put adds row, replacing the row of the same benchmark, size and way of reading, and keeps
// the rows sorted.
func (f *File) Put(row Row) {
	f.Rows = slices.DeleteFunc(f.Rows, func(r Row) bool { return r.key() == row.key() })
	f.Rows = append(f.Rows, row)
	slices.SortFunc(f.Rows, func(a, b Row) int {
		return cmp.Or(strings.Compare(a.Benchmark, b.Benchmark), cmp.Compare(a.Nodes, b.Nodes),
			cmp.Compare(boolInt(a.ClusterName), boolInt(b.ClusterName)))
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Write writes f to path, indented, with a final newline.
func (f File) Write(path string) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Update reads the results file at path, puts rows into it and writes it back.
func Update(path string, rows ...Row) error {
	f, err := Read(path)
	if err != nil {
		return err
	}
	for _, r := range rows {
		f.Put(r)
	}
	return f.Write(path)
}

// Stamp fills in a row's commit, date and machine from this process and the working tree, and
// rounds its figures to what a measurement can tell: hundredths of a second, whole MiB.
func Stamp(r Row, now time.Time) Row {
	r.Commit, r.Date, r.Machine = Commit(), now.UTC().Format("2006-01-02"), Machine()
	r.WallSeconds, r.AnalyzeSeconds = round(r.WallSeconds, 100), round(r.AnalyzeSeconds, 100)
	r.FloorSeconds, r.UserCPUSeconds = round(r.FloorSeconds, 100), round(r.UserCPUSeconds, 100)
	r.SecondRSSMiB, r.LastRSSMiB = round(r.SecondRSSMiB, 1), round(r.LastRSSMiB, 1)
	r.KeystrokeMs, r.FrameMs = round(r.KeystrokeMs, 100), round(r.FrameMs, 100)
	r.BaselineWallSeconds, r.PeakRSSMiB = round(r.BaselineWallSeconds, 100), round(r.PeakRSSMiB, 1)
	return r
}

// round rounds v to 1/per.
func round(v, per float64) float64 { return math.Round(v*per) / per }

// Commit returns the short commit of the working tree (with "+dirty" when it has changes), or
// of this binary's build when git cannot tell.
func Commit() string {
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		c := strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && changed(st) {
			c += "+dirty"
		}
		return c
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				return s.Value[:7]
			}
		}
	}
	return "unknown"
}

// changed reports whether git status's porcelain lines name a change other than to the
// results file itself, which a run of several sizes writes between them.
func changed(status []byte) bool {
	for _, line := range strings.Split(string(bytes.TrimSpace(status)), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasSuffix(line, "results.json") {
			return true
		}
	}
	return false
}

// Machine describes this machine: cores, memory, OS and architecture, Go version.
func Machine() string {
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					mem = fmt.Sprintf(", %.0f GiB", float64(kb)/(1<<20))
				}
			}
		}
	}
	return fmt.Sprintf("%d cores%s, %s/%s, %s", runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// Markdown writes the tables docs/scale.md shows: the live rows, then the snapshot rows, each
// with the commit, date and machine it was measured on.
func (f File) Markdown(w io.Writer) error {
	var b strings.Builder
	live, snap, serve, tui := f.of(Live), f.of(Snapshot), f.of(Serve), f.of(TUI)
	if len(live) > 0 {
		b.WriteString("Against a live API server (`karpnet-scale`: kube-apiserver, etcd and the EC2 simulator on the same machine, 50 ms\n")
		b.WriteString("of EC2 latency, throttling on):\n\n")
		b.WriteString("| nodes | --cluster-name | check EC2 requests | check Kubernetes requests | RequestLimitExceeded | check wall | floor (check / floor) | check user CPU | check peak RSS | describe node EC2 / Kubernetes | per-node baseline: EC2 requests, wall | runs | commit | date | machine |\n")
		b.WriteString("|---:|:---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n")
		for _, r := range live {
			base := "-"
			if r.BaselineEC2 > 0 {
				base = fmt.Sprintf("%s, %.1f s", thousands(r.BaselineEC2), r.BaselineWallSeconds)
			}
			floor := "-"
			if r.FloorSeconds > 0 {
				floor = fmt.Sprintf("%.2f s (%.2fx)", r.FloorSeconds, r.WallSeconds/r.FloorSeconds)
			}
			cpu := "-"
			if r.UserCPUSeconds > 0 {
				cpu = fmt.Sprintf("%.2f s", r.UserCPUSeconds)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %.2f s | %s | %s | %s MiB | %d / %d | %s | %d | %s | %s | %s |\n",
				thousands(r.Nodes), yesNo(r.ClusterName), r.EC2Requests, r.KubeRequests, r.Throttled, r.WallSeconds, floor, cpu,
				thousands(int(r.PeakRSSMiB+0.5)), r.DescribeEC2, r.DescribeKube, base, r.Runs, r.Commit, r.Date, r.Machine)
		}
	}
	if len(snap) > 0 {
		if len(live) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("From a snapshot (`karpnet-mem`: `check --snapshot FILE -o json` of the synthetic cluster, no API server):\n\n")
		b.WriteString("| nodes | check wall | check peak RSS | analysis alone | runs | commit | date | machine |\n")
		b.WriteString("|---:|---:|---:|---:|---:|---|---|---|\n")
		for _, r := range snap {
			fmt.Fprintf(&b, "| %s | %.2f s | %s MiB | %.2f s | %d | %s | %s | %s |\n", thousands(r.Nodes), r.WallSeconds,
				thousands(int(r.PeakRSSMiB+0.5)), r.AnalyzeSeconds, r.Runs, r.Commit, r.Date, r.Machine)
		}
	}
	if len(serve) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("`serve` over the live cluster (`karpnet-scale -serve-collections N`: a collection every 2 s, RSS from its own\n")
		b.WriteString("/metrics after each):\n\n")
		b.WriteString("| nodes | --cluster-name | collections | mean collection | RSS after the 2nd | RSS after the last (change) | peak RSS | commit | date | machine |\n")
		b.WriteString("|---:|:---:|---:|---:|---:|---:|---:|---|---|---|\n")
		for _, r := range serve {
			change := "-"
			if r.SecondRSSMiB > 0 {
				change = fmt.Sprintf("%+.1f%%", 100*(r.LastRSSMiB-r.SecondRSSMiB)/r.SecondRSSMiB)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %.2f s | %s MiB | %s MiB (%s) | %s MiB | %s | %s | %s |\n", thousands(r.Nodes),
				yesNo(r.ClusterName), r.Collections, r.WallSeconds, thousands(int(r.SecondRSSMiB+0.5)),
				thousands(int(r.LastRSSMiB+0.5)), change, thousands(int(r.PeakRSSMiB+0.5)), r.Commit, r.Date, r.Machine)
		}
	}
	if len(tui) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("The terminal UI (`go test ./pkg/tui -run '^$' -bench 'FilterKeystroke|View$' -tui.results ../../test/scale/results.json`:\n")
		b.WriteString("a synthetic report, a 200x60 terminal; a frame at 60 Hz is 16 ms):\n\n")
		b.WriteString("| nodes | filter keystroke and its frame | redraw of the nodes view | runs | commit | date | machine |\n")
		b.WriteString("|---:|---:|---:|---:|---|---|---|\n")
		for _, r := range tui {
			fmt.Fprintf(&b, "| %s | %.2f ms | %.2f ms | %d | %s | %s | %s |\n", thousands(r.Nodes), r.KeystrokeMs, r.FrameMs,
				r.Runs, r.Commit, r.Date, r.Machine)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (f File) of(benchmark string) []Row {
	var out []Row
	for _, r := range f.Rows {
		if r.Benchmark == benchmark {
			out = append(out, r)
		}
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// thousands formats n with commas: 100,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
