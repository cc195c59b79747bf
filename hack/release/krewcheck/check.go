package main

import (
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// checkedManifest is the checked-in manifest after checkTemplate accepted it.
type checkedManifest struct {
	plugin
	placeholders int
}

// state says whether the manifest's sha256 values are a release's or placeholders.
func (m checkedManifest) state() string {
	switch m.placeholders {
	case 0:
		return "sha256 values of " + m.Spec.Version
	case len(m.Spec.Platforms):
		return "placeholder sha256 values (" + m.Spec.Version + " not built yet)"
	default:
		return fmt.Sprintf("%d placeholder sha256 values", m.placeholders)
	}
}

// checkTemplate reads the checked-in manifest and checks that it is exactly what render writes
// for its own version and sha256 values: one platform per target, in order, each with its
// release URL, its bin and a lowercase hex sha256.
func checkTemplate(file string) (checkedManifest, error) {
	var m checkedManifest
	b, err := os.ReadFile(file)
	if err != nil {
		return m, fmt.Errorf("reading the krew manifest: %w", err)
	}
	p, err := parsePlugin(b)
	if err != nil {
		return m, fmt.Errorf("parsing %s: %w; quote sha256 values and use only the fields GoReleaser writes", file, err)
	}
	if !strings.HasPrefix(p.Spec.Version, "v") {
		return m, fmt.Errorf("%s: spec.version %q must start with v", file, p.Spec.Version)
	}
	own := release{Tag: p.Spec.Version, Version: strings.TrimPrefix(p.Spec.Version, "v")}
	sums := map[string]string{}
	for i, pl := range p.Spec.Platforms {
		if !sha256Pattern.MatchString(pl.SHA256) {
			return m, fmt.Errorf("%s: spec.platforms[%d].sha256 %q is not 64 lowercase hex digits", file, i, pl.SHA256)
		}
		if pl.SHA256 == placeholderSHA {
			m.placeholders++
		}
		sums[path.Base(pl.URI)] = pl.SHA256
	}
	want, err := render(p.Spec, own, sums)
	if err != nil {
		return m, fmt.Errorf("%s: %w", file, err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(b), "\n")); diff != "" {
		return m, fmt.Errorf("%s is not in canonical form for %s (-want +got):\n%s\nfix the lines shown (platforms, URLs, bins, layout)",
			file, p.Spec.Version, diff)
	}
	m.plugin = p
	return m, nil
}

// compareManifests checks that the manifest GoReleaser generated at file equals filled.
func compareManifests(filled []byte, file string) error {
	want, err := parsePlugin(filled)
	if err != nil {
		return fmt.Errorf("parsing the filled-in manifest: %w", err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading GoReleaser's krew manifest: %w; check the krews section of .goreleaser.yaml", err)
	}
	got, err := parsePlugin(b)
	if err != nil {
		return fmt.Errorf("parsing %s: %w", file, err)
	}
	if diff := diffPlugins(want, got); diff != "" {
		return fmt.Errorf("%s differs from plugins/krew.yaml filled in for this build (-checked-in +generated):\n%s\n"+
			"make the krews section of .goreleaser.yaml and plugins/krew.yaml say the same", file, diff)
	}
	return nil
}

// diffPlugins compares two manifests regardless of platform order.
func diffPlugins(want, got plugin) string {
	want.Spec.Platforms = append([]platform(nil), want.Spec.Platforms...)
	got.Spec.Platforms = append([]platform(nil), got.Spec.Platforms...)
	sortPlatforms(want.Spec.Platforms)
	sortPlatforms(got.Spec.Platforms)
	return cmp.Diff(want, got)
}
