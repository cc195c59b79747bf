package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed facts.
const (
	binaryPath = "kubectl-karpnet"
	caPath     = "etc/ssl/certs/ca-certificates.crt"
	user       = "65532:65532"
	// refNameAnnotation names the index in the layout, as OCI tools read it.
	refNameAnnotation = "org.opencontainers.image.ref.name"
)

// platforms are the images of the index, in order.
var platforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}

type buildOptions struct {
	dist, out, ref, caBundle, source string
}

// artifact is one entry of GoReleaser's dist/artifacts.json.
type artifact struct {
	Path   string `json:"path"`
	Goos   string `json:"goos"`
	Goarch string `json:"goarch"`
	Type   string `json:"type"`
}

// metadata is GoReleaser's dist/metadata.json.
type metadata struct {
	Version string    `json:"version"`
	Commit  string    `json:"commit"`
	Date    time.Time `json:"date"`
}

func build(o buildOptions, w io.Writer) error {
	if o.dist == "" || o.out == "" {
		return errors.New("build needs -dist and -out")
	}
	var arts []artifact
	if err := readJSON(filepath.Join(o.dist, "artifacts.json"), &arts); err != nil {
		return fmt.Errorf("%w: run goreleaser release --snapshot (or on a tag) first", err)
	}
	var meta metadata
	if err := readJSON(filepath.Join(o.dist, "metadata.json"), &meta); err != nil {
		return err
	}
	ca, err := os.ReadFile(o.caBundle)
	if err != nil {
		return fmt.Errorf("reading the CA bundle: %w: apt-get install ca-certificates, or pass -ca-bundle", err)
	}
	version := "v" + strings.TrimPrefix(meta.Version, "v")
	annotations := map[string]string{
		"org.opencontainers.image.source":   o.source,
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.revision": meta.Commit,
		"org.opencontainers.image.created":  meta.Date.UTC().Format(time.RFC3339),
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.title":    "karpnet",
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		i := slices.IndexFunc(arts, func(a artifact) bool {
			return a.Type == "Binary" && a.Goos == p.OS && a.Goarch == p.Architecture
		})
		if i < 0 {
			return fmt.Errorf("%s/artifacts.json has no %s/%s binary: the .goreleaser.yaml build must include it", o.dist, p.OS, p.Architecture)
		}
		bin, err := os.ReadFile(arts[i].Path)
		if err != nil {
			return fmt.Errorf("reading the %s/%s binary: %w", p.OS, p.Architecture, err)
		}
		img, err := platformImage(p, bin, ca, meta.Date, annotations)
		if err != nil {
			return fmt.Errorf("building the %s/%s image: %w", p.OS, p.Architecture, err)
		}
		platform := p
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &platform}})
	}
	idx = mutate.Annotations(idx, annotations).(v1.ImageIndex)
	if err := os.RemoveAll(o.out); err != nil {
		return err
	}
	lp, err := layout.Write(o.out, empty.Index)
	if err != nil {
		return fmt.Errorf("writing the OCI layout: %w", err)
	}
	ref := o.ref + ":" + version
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{refNameAnnotation: ref})); err != nil {
		return fmt.Errorf("writing the OCI layout: %w", err)
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s: %s (%s) for %s\n", o.out, ref, digest, platformNames())
	return nil
}

// platformImage is one platform's image: the binary and the CA bundle in one layer.
func platformImage(p v1.Platform, bin, ca []byte, created time.Time, annotations map[string]string) (v1.Image, error) {
	layerTar, err := layerFiles(created, file{binaryPath, bin, 0o755}, file{caPath, ca, 0o644})
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerTar)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: created}, CreatedBy: "hack/image: kubectl-karpnet and a CA bundle", Comment: "karpnet"}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{
		Entrypoint: []string{"/" + binaryPath},
		Cmd:        []string{"serve"},
		User:       user,
		WorkingDir: "/",
		Env:        []string{"SSL_CERT_FILE=/" + caPath},
		Labels:     annotations,
		ExposedPorts: map[string]struct{}{
			"9464/tcp": {},
		},
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(img, annotations).(v1.Image), nil
}

// file is one file of the layer.
type file struct {
	name string
	data []byte
	mode int64
}

// layerFiles returns a tar of files and their directories, owned by root, dated created.
func layerFiles(created time.Time, files ...file) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, f := range files {
		for d := filepath.Dir(f.name); d != "."; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	for _, d := range slices.Sorted(func(yield func(string) bool) {
		for d := range dirs {
			if !yield(d) {
				return
			}
		}
	}) {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: created, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: created, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func platformNames() string {
	var names []string
	for _, p := range platforms {
		names = append(names, p.OS+"/"+p.Architecture)
	}
	return strings.Join(names, ", ")
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decoding %s: %w", path, err)
	}
	return nil
}
