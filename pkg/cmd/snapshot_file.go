package cmd

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// writeSnapshotFile writes s to name, readable by its owner only (0600): a snapshot describes
// the cluster's network in detail. It writes a temporary file in the same directory, syncs it
// and renames it over name, so a failed write (a full disk, a file-size limit) or a signal
// leaves the old file whole.
func writeSnapshotFile(name string, s *snapshot.Snapshot) (err error) {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	// os.CreateTemp creates the file with mode 0600.
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write snapshot %s: %w", name, causeOf(err))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := writeSnapshotTo(f, name, s); err != nil {
		return fmt.Errorf("writing snapshot %s: %w", name, causeOf(err))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing snapshot %s: %w", name, causeOf(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing snapshot %s: %w", name, causeOf(err))
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("cannot write snapshot %s: %w", name, causeOf(err))
	}
	syncDir(dir)
	return nil
}

// writeSnapshotTo writes s to w, gzip-compressed when name ends in .gz.
func writeSnapshotTo(w io.Writer, name string, s *snapshot.Snapshot) error {
	if !strings.HasSuffix(name, ".gz") {
		return snapshot.Write(w, s)
	}
	zw := gzip.NewWriter(w)
	if err := snapshot.Write(zw, s); err != nil {
		return err
	}
	return zw.Close()
}

// syncDir makes a rename in dir durable, where the file system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
