package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// completionScript is the file kubectl (1.26+) runs to complete `kubectl karpnet` arguments.
const completionScript = "kubectl_complete-karpnet"

// readChecksums parses GoReleaser's checksums file: "<sha256>  <file name>" per line.
func readChecksums(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading checksums: %w; check the checksum section of .goreleaser.yaml", err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 || !sha256Pattern.MatchString(fields[0]) {
			return nil, fmt.Errorf("%s:%d: want \"<sha256>  <file>\", got %q", path, n, sc.Text())
		}
		sums[fields[1]] = fields[0]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return sums, nil
}

// shippedFiles reads the files every archive carries next to the binary, from the repository root.
func shippedFiles(root string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, name := range []string{"LICENSE", "README.md", completionScript} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return nil, fmt.Errorf("reading a file the archives ship: %w", err)
		}
		files[name] = b
	}
	return files, nil
}

// entry is one regular file in an archive.
type entry struct {
	mode fs.FileMode
	data []byte
}

// checkArchive checks the archive at path for t: its sha256 is sum, it holds exactly the binary
// and the shipped files (the binary and completion script executable), the shipped files are the
// repository's, and the binary is built for t. It returns the archive's size.
func checkArchive(path string, t target, sum string, shipped map[string][]byte) (int64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("%w; check the archives section of .goreleaser.yaml", err)
	}
	h := sha256.Sum256(raw)
	if got := hex.EncodeToString(h[:]); got != sum {
		return 0, fmt.Errorf("sha256 is %s, checksums.txt says %q", got, sum)
	}
	var entries map[string]entry
	if t.ext() == ".zip" {
		entries, err = zipEntries(raw)
	} else {
		entries, err = tarEntries(raw)
	}
	if err != nil {
		return 0, err
	}
	want := append(slices.Sorted(maps.Keys(shipped)), t.bin())
	slices.Sort(want)
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(entries))); diff != "" {
		return 0, fmt.Errorf("files differ (-want +got):\n%s", diff)
	}
	for name, b := range shipped {
		if !bytes.Equal(entries[name].data, b) {
			return 0, fmt.Errorf("%s differs from the repository's", name)
		}
	}
	for _, name := range []string{t.bin(), completionScript} {
		if entries[name].mode&0o111 == 0 {
			return 0, fmt.Errorf("%s is not executable (mode %v)", name, entries[name].mode)
		}
	}
	if err := checkBinary(entries[t.bin()].data, t); err != nil {
		return 0, fmt.Errorf("%s: %w", t.bin(), err)
	}
	return int64(len(raw)), nil
}

func tarEntries(raw []byte) (map[string]entry, error) {
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("reading gzip: %w", err)
	}
	entries := map[string]entry{}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return entries, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading tar: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("%s is not a regular file; krew wants plain files", hdr.Name)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", hdr.Name, err)
		}
		entries[hdr.Name] = entry{mode: hdr.FileInfo().Mode(), data: b}
	}
}

func zipEntries(raw []byte) (map[string]entry, error) {
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return nil, fmt.Errorf("reading zip: %w", err)
	}
	entries := map[string]entry{}
	for _, f := range zr.File {
		if !f.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file; krew wants plain files", f.Name)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", f.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f.Name, err)
		}
		entries[f.Name] = entry{mode: f.Mode(), data: b}
	}
	return entries, nil
}

// checkBinary checks that b is an executable for t's OS and architecture.
func checkBinary(b []byte, t target) error {
	r := bytes.NewReader(b)
	var got string
	switch t.OS {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			return fmt.Errorf("not an ELF executable: %w", err)
		}
		got = map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine]
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			return fmt.Errorf("not a Mach-O executable: %w", err)
		}
		got = map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			return fmt.Errorf("not a PE executable: %w", err)
		}
		got = map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine]
	}
	if got != t.Arch {
		return fmt.Errorf("built for %q, want %s/%s", got, t.OS, t.Arch)
	}
	return nil
}
