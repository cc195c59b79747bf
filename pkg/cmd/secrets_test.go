package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// TestSnapshotsHoldNoSecrets: a cluster URL with a user and password and aws-node env values
// karpnet does not read never reach a saved snapshot or a report, and snapshots are written
// for their owner only, also over an existing file.
func TestSnapshotsHoldNoSecrets(t *testing.T) {
	c := newLiveCluster(t)
	o := c.options()
	inner := o.newCollector
	o.newCollector = func(ctx context.Context, o *commonOptions) (*collect.Collector, error) {
		col, err := inner(ctx, o)
		if err == nil {
			col.Cluster = "https://admin:s3cr3t@127.0.0.1:6443"
		}
		return col, err
	}
	path := filepath.Join(t.TempDir(), "cluster.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runWith(t, o, "check", "-o", "json", "--save-snapshot", path)
	if r.code > ExitFindings {
		t.Fatalf("check: exit %d\n%s", r.code, r.stderr)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"report": r.stdout, "snapshot": string(saved)} {
		for _, secret := range []string{"s3cr3t", "admin@", "wJalrXUtnFEMI", "proxypass"} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s holds %q", what, secret)
			}
		}
		if !strings.Contains(text, `"https://127.0.0.1:6443"`) {
			t.Errorf("the %s does not name the cluster https://127.0.0.1:6443", what)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("snapshot mode: got %o, want 600", got)
	}
}
