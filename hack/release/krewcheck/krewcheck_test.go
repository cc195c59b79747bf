package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// fixtureSums gives every target of version a distinct sha256.
func fixtureSums(version string) map[string]string {
	sums := map[string]string{}
	for i, t := range targets() {
		sums[archiveName(version, t)] = strings.Repeat(string(rune('a'+i)), 64)
	}
	return sums
}

func TestCheckedInManifestIsCanonical(t *testing.T) {
	m, err := checkTemplate(filepath.Join("..", "..", "..", "plugins", "krew.yaml"))
	if err != nil {
		t.Fatalf("checkTemplate: %v", err)
	}
	if got := len(m.Spec.Platforms); got != len(targets()) {
		t.Errorf("got %d platforms, want %d", got, len(targets()))
	}
}

func TestCheckTemplate(t *testing.T) {
	meta := spec{
		Homepage:         "https://github.com/karpnet/kubectl-karpnet",
		ShortDescription: "Diagnose networking",
		Description:      "Line one.\nLine two.\n",
		Caveats:          "Needs ec2:DescribeInstances.\n\nAnd RBAC.\n",
	}
	good, err := render(meta, release{Tag: "v1.2.3", Version: "1.2.3"}, fixtureSums("1.2.3"))
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	tests := []struct {
		name    string
		edit    func(string) string
		wantErr string
	}{
		{name: "canonical", edit: func(s string) string { return s }},
		{name: "uri tag differs from version", wantErr: "not in canonical form",
			edit: func(s string) string { return strings.Replace(s, "download/v1.2.3/", "download/v1.2.2/", 1) }},
		{name: "wrong bin on windows", wantErr: "not in canonical form",
			edit: func(s string) string {
				return strings.Replace(s, "bin: kubectl-karpnet.exe", "bin: kubectl-karpnet", 1)
			}},
		{name: "uppercase sha256", wantErr: "not 64 lowercase hex digits",
			edit: func(s string) string { return strings.Replace(s, strings.Repeat("a", 64), strings.Repeat("A", 64), 1) }},
		{name: "unquoted all-digit sha256", wantErr: "not 64 lowercase hex digits",
			edit: func(s string) string {
				return strings.Replace(s, `"`+strings.Repeat("a", 64)+`"`, strings.Repeat("1", 64), 1)
			}},
		{name: "unknown field", wantErr: "parsing",
			edit: func(s string) string { return strings.Replace(s, "  homepage:", "  home:", 1) }},
		{name: "missing platform", wantErr: "no sha256 for kubectl-karpnet_v1.2.3_windows_arm64.zip",
			edit: func(s string) string { return s[:strings.LastIndex(s, "  - selector:")] }},
		{name: "version without v", wantErr: "must start with v",
			edit: func(s string) string { return strings.Replace(s, "version: v1.2.3", "version: 1.2.3", 1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "karpnet.yaml")
			if err := os.WriteFile(file, []byte(tt.edit(string(good))), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := checkTemplate(file)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				if got, want := m.state(), "sha256 values of v1.2.3"; got != want {
					t.Errorf("got state %q, want %q", got, want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCompareManifests(t *testing.T) {
	meta := spec{Homepage: "https://example.com", ShortDescription: "Short", Description: "Long.\n", Caveats: "Careful.\n"}
	rel := release{Tag: "v0.0.0", Version: "0.0.1-next"}
	filled, err := render(meta, rel, fixtureSums(rel.Version))
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	p, err := parsePlugin(filled)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Spec.Platforms[0].URI,
		"https://github.com/karpnet/kubectl-karpnet/releases/download/v0.0.0/kubectl-karpnet_v0.0.1-next_linux_amd64.tar.gz"; got != want {
		t.Errorf("got uri %q, want %q", got, want)
	}
	// GoReleaser writes the same content in another layout and platform order.
	reordered := p
	reordered.Spec.Platforms = append([]platform{p.Spec.Platforms[5]}, p.Spec.Platforms[:5]...)
	otherSum := p
	otherSum.Spec.Platforms = append([]platform(nil), p.Spec.Platforms...)
	otherSum.Spec.Platforms[2].SHA256 = strings.Repeat("f", 64)
	otherCaveats := p
	otherCaveats.Spec.Caveats = "Different.\n"
	tests := []struct {
		name    string
		got     plugin
		wantErr bool
	}{
		{name: "same platforms in another order", got: reordered},
		{name: "a sha256 differs", got: otherSum, wantErr: true},
		{name: "caveats differ", got: otherCaveats, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "karpnet.yaml")
			b, err := yaml.Marshal(tt.got)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			err = compareManifests(filled, file)
			if (err != nil) != tt.wantErr {
				t.Errorf("got error %v, want error: %t", err, tt.wantErr)
			}
		})
	}
}

func TestRenderRejectsTrailingBlankLines(t *testing.T) {
	meta := spec{Homepage: "h", ShortDescription: "s", Description: "d\n\n", Caveats: "c\n"}
	if _, err := render(meta, release{Tag: "v1.0.0", Version: "1.0.0"}, fixtureSums("1.0.0")); err == nil {
		t.Error("got no error for a description ending in a blank line, want one")
	}
}

func TestReadChecksums(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	sum := strings.Repeat("0123456789abcdef", 4)
	if err := os.WriteFile(good, []byte(sum+"  a.tar.gz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readChecksums(good)
	if err != nil {
		t.Fatalf("readChecksums: %v", err)
	}
	if got["a.tar.gz"] != sum {
		t.Errorf("got %v, want a.tar.gz -> %s", got, sum)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("XYZ  a.tar.gz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readChecksums(bad); err == nil {
		t.Error("got no error for a malformed line, want one")
	}
}
