// Command krewcheck checks a GoReleaser dist directory against the checked-in krew manifest.
//
// It verifies the six release archives (checksums, contents, the binary's OS and architecture),
// that plugins/krew.yaml is in canonical form with one platform per OS and architecture, and
// that the manifest GoReleaser generated equals the checked-in one once the dist's version and
// sha256 values are filled in. It then writes that filled-in manifest:
//
//	go run ./hack/release/krewcheck -dist DIST -out /tmp/karpnet.yaml   # CI: a copy to install
//	go run ./hack/release/krewcheck -dist dist -write                   # after a release
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	var o options
	flag.StringVar(&o.dist, "dist", "", "GoReleaser dist directory (required)")
	flag.StringVar(&o.root, "root", ".", "repository root holding LICENSE, README.md and kubectl_complete-karpnet")
	flag.StringVar(&o.manifest, "manifest", "plugins/krew.yaml", "checked-in krew manifest, relative to -root")
	flag.StringVar(&o.out, "out", "", "file to write the manifest filled in with the dist's version and sha256 values to")
	flag.BoolVar(&o.write, "write", false, "write the filled-in manifest back to -manifest (after a release)")
	flag.Parse()
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "krewcheck:", err)
		os.Exit(1)
	}
}

// options holds krewcheck's flags.
type options struct {
	dist, root, manifest, out string
	write                     bool
}

func run(o options, w io.Writer) error {
	if o.dist == "" {
		return fmt.Errorf("-dist is required: pass the GoReleaser dist directory")
	}
	rel, err := readRelease(filepath.Join(o.dist, "metadata.json"))
	if err != nil {
		return err
	}
	sums, err := readChecksums(filepath.Join(o.dist, "checksums.txt"))
	if err != nil {
		return err
	}
	shipped, err := shippedFiles(o.root)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "release %s (tag %s, commit %s)\n", "v"+rel.Version, rel.Tag, rel.Commit)
	for _, t := range targets() {
		name := archiveName(rel.Version, t)
		size, err := checkArchive(filepath.Join(o.dist, name), t, sums[name], shipped)
		if err != nil {
			return fmt.Errorf("archive %s: %w", name, err)
		}
		fmt.Fprintf(w, "  %-48s %6.1f MiB  sha256 %s\n", name, float64(size)/(1<<20), sums[name])
	}

	manifestPath := filepath.Join(o.root, o.manifest)
	tmpl, err := checkTemplate(manifestPath)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: canonical, %s, six platforms\n", o.manifest, tmpl.state())

	filled, err := render(tmpl.Spec, rel, sums)
	if err != nil {
		return err
	}
	generated := filepath.Join(o.dist, "krew", pluginName+".yaml")
	if err := compareManifests(filled, generated); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s equals %s filled in with the dist's version and sha256 values\n", generated, o.manifest)

	if o.out != "" {
		if err := os.WriteFile(o.out, filled, 0o644); err != nil {
			return fmt.Errorf("writing the filled-in manifest: %w", err)
		}
		fmt.Fprintf(w, "wrote %s\n", o.out)
	}
	if o.write {
		if rel.Tag != "v"+rel.Version {
			return fmt.Errorf("-write takes a tagged release's dist, not a snapshot (version %s, tag %s); run goreleaser release on the tag first",
				rel.Version, rel.Tag)
		}
		if err := os.WriteFile(manifestPath, filled, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", manifestPath, err)
		}
		fmt.Fprintf(w, "wrote %s for %s\n", manifestPath, "v"+rel.Version)
	}
	return nil
}
