package snapshot_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestReadGzipMembers: a gzip file of several members (what cat a.gz b.gz makes) reads as
// zcat reads it, one text; when the members hold two snapshots, the error says so.
func TestReadGzipMembers(t *testing.T) {
	doc := minimalWith(`"context":"two-members",`)
	half := len(doc) / 2
	split := append(gzipped(t, doc[:half]), gzipped(t, doc[half:])...)
	s, err := snapshot.Read(bytes.NewReader(split))
	if err != nil {
		t.Fatalf("Read of a snapshot split into two gzip members: %v", err)
	}
	if s.Context != "two-members" {
		t.Errorf("context: got %q, want two-members", s.Context)
	}

	twice := append(gzipped(t, doc), gzipped(t, doc)...)
	_, err = snapshot.Read(bytes.NewReader(twice))
	want := "malformed: unexpected data after the snapshot: the file is 2 gzip streams one after the other (as cat a.gz b.gz makes), and the snapshot ends before the second"
	if err == nil || err.Error() != want {
		t.Errorf("Read of two snapshots in two gzip members: got %v, want %q", err, want)
	}
	if err != nil && strings.Contains(err.Error(), "empty or truncated") {
		t.Errorf("the error calls the file empty or truncated: %v", err)
	}
}
