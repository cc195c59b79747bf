package snapshot_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// multi returns a snapshot of two clusters: the full one as context "a", and an unreachable
// context "b".
func multi() *snapshot.Snapshot {
	a := full()
	a.Context = "a"
	a.Account = "111122223333"
	b := snapshot.New(a.Taken.Add(time.Second))
	b.Context = "b"
	b.Gaps = []snapshot.Gap{{Source: snapshot.SourceKubeAPI, Reason: "connection refused", Remedy: "check the context"}}
	return snapshot.NewMulti([]snapshot.Snapshot{*a, *b})
}

func TestMultiClusterRoundTrip(t *testing.T) {
	s := multi()
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	var head struct {
		FormatVersion int `json:"formatVersion"`
	}
	if err := json.Unmarshal(buf.Bytes(), &head); err != nil || head.FormatVersion != 2 {
		t.Fatalf("formatVersion: got %d (%v), want 2 for several clusters", head.FormatVersion, err)
	}
	got, err := snapshot.Read(&buf)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if diff := cmp.Diff(s, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Read(Write(s)) differs (-want +got):\n%s", diff)
	}
	if !got.Multi() || got.Clusters[1].Unreachable() != "connection refused" || got.Clusters[0].Unreachable() != "" {
		t.Errorf("got Multi %v, unreachable %q and %q; want true, \"\" and connection refused",
			got.Multi(), got.Clusters[0].Unreachable(), got.Clusters[1].Unreachable())
	}
	if !got.Taken.Equal(s.Clusters[0].Taken) {
		t.Errorf("Taken: got %v, want the earliest member's %v", got.Taken, s.Clusters[0].Taken)
	}
}

// TestSingleClusterKeepsFormatOne checks that a snapshot of one cluster is still written as
// format 1, which every earlier karpnet reads.
func TestSingleClusterKeepsFormatOne(t *testing.T) {
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, full()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"formatVersion": 1,`) || strings.Contains(buf.String(), `"clusters"`) {
		t.Errorf("a single-cluster snapshot: want formatVersion 1 and no clusters, got\n%.300s", buf.String())
	}
}

func TestMultiClusterRefused(t *testing.T) {
	write := func(edit func(m map[string]any)) []byte {
		var buf bytes.Buffer
		if err := snapshot.Write(&buf, multi()); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		out, _ := json.Marshal(m)
		return out
	}
	member := func(m map[string]any, i int) map[string]any { return m["clusters"].([]any)[i].(map[string]any) }
	tests := []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"format 1 with clusters", func(m map[string]any) { m["formatVersion"] = 1 }, "clusters needs format version 2, the file says 1"},
		{"nested clusters", func(m map[string]any) { member(m, 0)["clusters"] = []any{member(m, 1)} }, "clusters[0] holds clusters of its own"},
		{"no context", func(m map[string]any) { delete(member(m, 1), "context") }, "clusters[1] has no context"},
		{"repeated context", func(m map[string]any) { member(m, 1)["context"] = "a" }, `clusters[1] repeats context "a"`},
		{"no taken", func(m map[string]any) { delete(member(m, 1), "taken") }, "clusters[1] has no taken time"},
		{"member out of range", func(m map[string]any) {
			member(m, 0)["nodes"].([]any)[0].(map[string]any)["status"].(map[string]any)["capacity"].(map[string]any)["pods"] = "99999999999"
		}, "clusters[0].nodes[0].status.capacity.pods"},
		{"nodes at the top", func(m map[string]any) { m["nodes"] = member(m, 0)["nodes"] }, "holds its nodes in them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := snapshot.Read(bytes.NewReader(write(tt.edit)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read: got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
