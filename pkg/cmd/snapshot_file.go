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

// checkSavePath refuses a --save-snapshot path that names anything but a regular file or a new
// path: writing there would write through a symlink, into a device or a FIFO, or fail on a
// directory after the whole collection. "-" is standard output.
func checkSavePath(name string) error {
	if name == "-" {
		return nil
	}
	st, err := os.Lstat(name)
	if err != nil || st.Mode().IsRegular() {
		// A new path, or one whose problem the write will name.
		return nil
	}
	kind := "not a regular file"
	switch m := st.Mode(); {
	case m&os.ModeSymlink != 0:
		kind = "a symlink"
	case m.IsDir():
		kind = "a directory"
	case m&os.ModeNamedPipe != 0:
		kind = "a FIFO"
	case m&os.ModeDevice != 0:
		kind = "a device"
	case m&os.ModeSocket != 0:
		kind = "a socket"
	}
	return usageErrorf("--save-snapshot %s is %s: name a regular file or a new path, or - for standard output", name, kind)
}

// saveSnapshotFile writes s where --save-snapshot says: standard output for "-", else the file,
// which is checked again right before it is replaced.
func (o *commonOptions) saveSnapshotFile(s *snapshot.Snapshot) error {
	if o.saveSnapshot == "-" {
		if err := snapshot.Write(o.Out, s); err != nil {
			return outputError("snapshot", err)
		}
		return nil
	}
	if err := checkSavePath(o.saveSnapshot); err != nil {
		return err
	}
	if err := writeSnapshotFile(o.saveSnapshot, s); err != nil {
		return collectError(err)
	}
	fmt.Fprintf(o.ErrOut, "snapshot saved to %s\n", o.saveSnapshot)
	return nil
}
