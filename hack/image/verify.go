package main

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

type verifyOptions struct {
	layout, version string
}

// verify checks a layout build wrote: every blob's digest and size, each platform's config and
// files, then runs the host platform's binary (version, and demo serve answering /readyz and
// /metrics until SIGTERM ends it with exit 0), and pushes the index to a registry on loopback
// and reads it back.
func verify(o verifyOptions, w io.Writer) error {
	if o.layout == "" || o.version == "" {
		return errors.New("verify needs -layout and -version")
	}
	idx, ref, err := readLayout(o.layout)
	if err != nil {
		return err
	}
	if err := validate.Index(idx); err != nil {
		return fmt.Errorf("the image index is not valid: %w", err)
	}
	if !strings.HasSuffix(ref, ":"+o.version) {
		return fmt.Errorf("the layout names %s, want a tag of version %s", ref, o.version)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	if len(im.Manifests) != len(platforms) {
		return fmt.Errorf("the index has %d images, want %d (%s)", len(im.Manifests), len(platforms), platformNames())
	}
	var host []byte
	for _, desc := range im.Manifests {
		img, err := idx.Image(desc.Digest)
		if err != nil {
			return err
		}
		bin, err := checkImage(desc, img)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", desc.Platform.OS, desc.Platform.Architecture, err)
		}
		if desc.Platform.OS == runtime.GOOS && desc.Platform.Architecture == runtime.GOARCH {
			host = bin
		}
		fmt.Fprintf(w, "image %s/%s %s: valid, static %s binary, user %s\n", desc.Platform.OS, desc.Platform.Architecture,
			desc.Digest, desc.Platform.Architecture, user)
	}
	if host == nil {
		return fmt.Errorf("no image for this machine (%s/%s) to run", runtime.GOOS, runtime.GOARCH)
	}
	if err := runBinary(host, o.version, w); err != nil {
		return err
	}
	return pushToLoopback(idx, o.version, w)
}

// readLayout returns the layout's one index and the reference it is annotated with.
func readLayout(dir string) (v1.ImageIndex, string, error) {
	lp, err := layout.FromPath(dir)
	if err != nil {
		return nil, "", fmt.Errorf("reading the OCI layout %s: %w: run image build first", dir, err)
	}
	root, err := lp.ImageIndex()
	if err != nil {
		return nil, "", err
	}
	rm, err := root.IndexManifest()
	if err != nil {
		return nil, "", err
	}
	if len(rm.Manifests) != 1 {
		return nil, "", fmt.Errorf("%s/index.json lists %d entries, want the one image index", dir, len(rm.Manifests))
	}
	d := rm.Manifests[0]
	idx, err := root.ImageIndex(d.Digest)
	if err != nil {
		return nil, "", err
	}
	return idx, d.Annotations[refNameAnnotation], nil
}

// checkImage checks one platform's image and returns its binary.
func checkImage(desc v1.Descriptor, img v1.Image) ([]byte, error) {
	if err := validate.Image(img); err != nil {
		return nil, fmt.Errorf("not a valid image: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	c := cf.Config
	switch {
	case cf.OS != desc.Platform.OS || cf.Architecture != desc.Platform.Architecture:
		return nil, fmt.Errorf("config says %s/%s", cf.OS, cf.Architecture)
	case c.User != user:
		return nil, fmt.Errorf("runs as %q, want %s (not root)", c.User, user)
	case !slices.Equal(c.Entrypoint, []string{"/" + binaryPath}):
		return nil, fmt.Errorf("entrypoint %q, want /%s", c.Entrypoint, binaryPath)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		return nil, fmt.Errorf("%d layers (%v), want 1", len(layers), err)
	}
	files, err := layerContents(layers[0])
	if err != nil {
		return nil, err
	}
	if got := slices.Sorted(mapsKeys(files)); !slices.Equal(got, []string{caPath, binaryPath}) {
		return nil, fmt.Errorf("the layer holds %q, want %s and %s", got, binaryPath, caPath)
	}
	if !bytes.Contains(files[caPath], []byte("-----BEGIN CERTIFICATE-----")) {
		return nil, fmt.Errorf("%s holds no certificate", caPath)
	}
	bin := files[binaryPath]
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		return nil, fmt.Errorf("%s is not an ELF binary: %w", binaryPath, err)
	}
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[desc.Platform.Architecture]
	if f.Machine != want {
		return nil, fmt.Errorf("%s is for %s, want %s", binaryPath, f.Machine, want)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return nil, fmt.Errorf("%s is dynamically linked: the image has no C library (build with CGO_ENABLED=0)", binaryPath)
		}
	}
	return bin, nil
}

// layerContents returns the regular files of a layer by path.
func layerContents(l v1.Layer) (map[string][]byte, error) {
	rc, err := l.Uncompressed()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	files := map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			if files[h.Name], err = io.ReadAll(tr); err != nil {
				return nil, err
			}
		}
	}
}

func mapsKeys(m map[string][]byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// runBinary runs the image's binary: version must name the version, and demo serve must get
// ready and stop with exit code 0 on SIGTERM.
func runBinary(bin []byte, version string, w io.Writer) error {
	dir, err := os.MkdirTemp("", "karpnet-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, binaryPath)
	if err := os.WriteFile(path, bin, 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "karpnet "+version+" ") {
		return fmt.Errorf("the image's kubectl-karpnet version printed %q (%v), want karpnet %s", out, err, version)
	}
	fmt.Fprintf(w, "ran: %s", out)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	var log bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "demo", "serve", "--listen", addr)
	cmd.Env = []string{"NO_COLOR=1", "HOME=" + dir}
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		return err
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	if err := waitReady(ctx, "http://"+addr); err != nil {
		return fmt.Errorf("the image's kubectl-karpnet demo serve: %w; its log:\n%s", err, log.String())
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	stopped = true
	if err != nil {
		return fmt.Errorf("demo serve stopped by SIGTERM: %v, want exit 0; its log:\n%s", err, log.String())
	}
	fmt.Fprintf(w, "ran: demo serve answered /readyz and /metrics, and SIGTERM stopped it with exit 0\n")
	return nil
}

// waitReady waits for /readyz to answer 200, then for /metrics to carry karpnet_findings.
func waitReady(ctx context.Context, url string) error {
	for {
		resp, err := http.Get(url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("/readyz never answered 200 (last: %v)", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if !bytes.Contains(body, []byte("\nkarpnet_findings{")) {
		return errors.New("/metrics has no karpnet_findings")
	}
	return nil
}

// pushToLoopback pushes the index to a registry served on 127.0.0.1 and reads it back.
func pushToLoopback(idx v1.ImageIndex, version string, w io.Writer) error {
	srv := httptest.NewServer(registry.New(registry.Logger(nopLogger())))
	defer srv.Close()
	ref, err := name.ParseReference(strings.TrimPrefix(srv.URL, "http://")+"/karpnet/kubectl-karpnet:"+version, name.Insecure)
	if err != nil {
		return err
	}
	if err := remote.WriteIndex(ref, idx); err != nil {
		return fmt.Errorf("pushing to a loopback registry: %w", err)
	}
	back, err := remote.Index(ref)
	if err != nil {
		return fmt.Errorf("reading back from the loopback registry: %w", err)
	}
	want, _ := idx.Digest()
	got, err := back.Digest()
	if err != nil || got != want {
		return fmt.Errorf("the registry holds %s (%v), pushed %s", got, err, want)
	}
	arm, err := remote.Image(ref, remote.WithPlatform(v1.Platform{OS: "linux", Architecture: "arm64"}))
	if err != nil {
		return fmt.Errorf("pulling linux/arm64 back: %w", err)
	}
	if cf, err := arm.ConfigFile(); err != nil || cf.Architecture != "arm64" {
		return fmt.Errorf("pulled linux/arm64 and got %v (%v)", cf, err)
	}
	fmt.Fprintf(w, "pushed to a loopback registry and pulled back: %s\n", want)
	return nil
}
