package results

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPutReplacesTheSameMeasurement(t *testing.T) {
	var f File
	f.Put(Row{Benchmark: Snapshot, Nodes: 100000, WallSeconds: 20})
	f.Put(Row{Benchmark: Live, Nodes: 500, WallSeconds: 1})
	f.Put(Row{Benchmark: Live, Nodes: 500, ClusterName: true, WallSeconds: 2})
	f.Put(Row{Benchmark: Snapshot, Nodes: 10000, WallSeconds: 2})
	f.Put(Row{Benchmark: Snapshot, Nodes: 100000, WallSeconds: 17}) // measured again
	var got []string
	for _, r := range f.Rows {
		got = append(got, fmt.Sprintf("%s=%g", r.key(), r.WallSeconds))
	}
	want := []string{"live/500/false=1", "live/500/true=2", "snapshot/10000/false=2", "snapshot/100000/false=17"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestUpdateRoundTrips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	row := Stamp(Row{Benchmark: Snapshot, Nodes: 10000, Runs: 1, WallSeconds: 1.5, PeakRSSMiB: 214}, time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC))
	if err := Update(path, row); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Row{row}, f.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if row.Date != "2026-12-04" || row.Machine == "" || row.Commit == "" {
		t.Errorf("stamp: got %+v, want date, machine and commit", row)
	}
	if f, err := Read(filepath.Join(t.TempDir(), "none.json")); err != nil || len(f.Rows) != 0 {
		t.Errorf("a missing file: got %+v, %v; want an empty file", f, err)
	}
}

func TestStampRounds(t *testing.T) {
	r := Stamp(Row{WallSeconds: 1.285371191, PeakRSSMiB: 183.26953125, AnalyzeSeconds: 0.153143514}, time.Now())
	if r.WallSeconds != 1.29 || r.PeakRSSMiB != 183 || r.AnalyzeSeconds != 0.15 {
		t.Errorf("stamped figures %+v: want 1.29 s, 183 MiB, 0.15 s", r)
	}
	if changed([]byte(" M test/scale/results.json\n")) || !changed([]byte(" M pkg/diagnose/analyze.go\n M test/scale/results.json\n")) {
		t.Error("changed: the results file alone is no change, any other file is")
	}
}

func TestMarkdownNamesWhereEachFigureComesFrom(t *testing.T) {
	f := File{Rows: []Row{
		{Benchmark: Live, Nodes: 100000, ClusterName: true, Runs: 1, EC2Requests: 109, KubeRequests: 10, WallSeconds: 37.4,
			PeakRSSMiB: 1372, DescribeEC2: 9, DescribeKube: 9, Commit: "fafa20a", Date: "2026-12-03", Machine: "2 cores"},
		{Benchmark: Live, Nodes: 10000, Runs: 1, EC2Requests: 21, KubeRequests: 10, WallSeconds: 3.2, FloorSeconds: 2.5,
			UserCPUSeconds: 1.93, PeakRSSMiB: 227, DescribeEC2: 9, DescribeKube: 9, Commit: "163f1ed", Date: "2026-12-05", Machine: "2 cores"},
		{Benchmark: Snapshot, Nodes: 10000, Runs: 1, WallSeconds: 1.5, PeakRSSMiB: 214, AnalyzeSeconds: 0.84,
			Commit: "abc1234", Date: "2026-12-04", Machine: "2 cores"},
		{Benchmark: TUI, Nodes: 100000, Runs: 670, KeystrokeMs: 1.83, FrameMs: 0.71, Commit: "abc1234", Date: "2026-12-05",
			Machine: "2 cores"},
		{Benchmark: Serve, Nodes: 10000, Runs: 1, Collections: 10, WallSeconds: 3.4, SecondRSSMiB: 220, LastRSSMiB: 216,
			PeakRSSMiB: 241, Commit: "abc1234", Date: "2026-12-05", Machine: "2 cores"},
	}}
	var b strings.Builder
	if err := f.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 100,000 | yes | 109 | 10 | 0 | 37.40 s | - | - | 1,372 MiB | 9 / 9 | - | 1 | fafa20a | 2026-12-03 | 2 cores |",
		"| 10,000 | no | 21 | 10 | 0 | 3.20 s | 2.50 s (1.28x) | 1.93 s | 227 MiB | 9 / 9 | - | 1 | 163f1ed | 2026-12-05 | 2 cores |",
		"| 10,000 | 1.50 s | 214 MiB | 0.84 s | 1 | abc1234 | 2026-12-04 | 2 cores |",
		"| 100,000 | 1.83 ms | 0.71 ms | 670 | abc1234 | 2026-12-05 | 2 cores |",
		"| 10,000 | no | 10 | 3.40 s | 220 MiB | 216 MiB (-1.8%) | 241 MiB | abc1234 | 2026-12-05 | 2 cores |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}
