package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// file is one archive member for a test archive.
type file struct {
	name string
	mode int64
	data []byte
}

func writeTarGz(t *testing.T, files []file) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(zw)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeZip(t *testing.T, files []file) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Store}
		h.SetMode(os.FileMode(f.mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCheckArchive(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the test binary stands in for a linux/amd64 kubectl-karpnet")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	binary, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	shipped := map[string][]byte{
		"LICENSE":        []byte("Apache License\n"),
		"README.md":      []byte("# karpnet\n"),
		completionScript: []byte("#!/bin/sh\nexec kubectl karpnet __complete \"$@\"\n"),
	}
	members := func(edit func([]file) []file) []file {
		fs := []file{
			{"kubectl-karpnet", 0o755, binary},
			{"LICENSE", 0o644, shipped["LICENSE"]},
			{"README.md", 0o644, shipped["README.md"]},
			{completionScript, 0o755, shipped[completionScript]},
		}
		return edit(fs)
	}
	same := func(fs []file) []file { return fs }
	linux := target{"linux", "amd64"}
	tests := []struct {
		name    string
		target  target
		archive func(*testing.T, []file) []byte
		files   []file
		badSum  bool
		wantErr string
	}{
		{name: "complete tar.gz", target: linux, archive: writeTarGz, files: members(same)},
		{name: "sha256 differs from checksums.txt", target: linux, archive: writeTarGz, files: members(same),
			badSum: true, wantErr: "checksums.txt says"},
		{name: "no LICENSE", target: linux, archive: writeTarGz, wantErr: "files differ",
			files: members(func(fs []file) []file { return append(fs[:1], fs[2:]...) })},
		{name: "extra file", target: linux, archive: writeTarGz, wantErr: "files differ",
			files: members(func(fs []file) []file { return append(fs, file{"NOTES", 0o644, nil}) })},
		{name: "completion script not executable", target: linux, archive: writeTarGz, wantErr: "not executable",
			files: members(func(fs []file) []file { fs[3].mode = 0o644; return fs })},
		{name: "README differs from the repository's", target: linux, archive: writeTarGz, wantErr: "README.md differs",
			files: members(func(fs []file) []file { fs[2].data = []byte("old\n"); return fs })},
		{name: "binary for another architecture", target: target{"linux", "arm64"}, archive: writeTarGz,
			files: members(same), wantErr: `built for "amd64", want linux/arm64`},
		{name: "zip with a linux binary for windows", target: target{"windows", "amd64"}, archive: writeZip,
			wantErr: "not a PE executable",
			files:   members(func(fs []file) []file { fs[0].name = "kubectl-karpnet.exe"; return fs })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.archive(t, tt.files)
			path := filepath.Join(t.TempDir(), archiveName("1.0.0", tt.target))
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			h := sha256.Sum256(raw)
			sum := hex.EncodeToString(h[:])
			if tt.badSum {
				sum = strings.Repeat("0", 64)
			}
			size, err := checkArchive(path, tt.target, sum, shipped)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				if size != int64(len(raw)) {
					t.Errorf("got size %d, want %d", size, len(raw))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
