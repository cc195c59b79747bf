// Command image builds karpnet's container image without a container daemon or a registry: an
// OCI image index of linux/amd64 and linux/arm64 images, each one layer over nothing (no base
// image), holding the static kubectl-karpnet binary GoReleaser built and a CA bundle for TLS to
// EC2, run as user 65532 with kubectl-karpnet as the entrypoint.
//
//	go run . build -dist DIST -out DIR [-ref REF] [-ca-bundle FILE]   an OCI layout in DIR
//	go run . verify -layout DIR -version VERSION                     check it, run it, push it to a loopback registry
//	go run . push -layout DIR -ref REF                               to a real registry (a release)
//
// It is a module of its own so that the plugin's go.mod does not carry go-containerregistry.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: image build|verify|push [flags] (see the package comment)")
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "build":
		var o buildOptions
		fs := flag.NewFlagSet("build", flag.ExitOnError)
		fs.StringVar(&o.dist, "dist", "", "GoReleaser dist directory holding artifacts.json (required)")
		fs.StringVar(&o.out, "out", "", "directory to write the OCI layout to (required; replaced)")
		fs.StringVar(&o.ref, "ref", "ghcr.io/karpnet/kubectl-karpnet", "image name the layout's index is annotated with, tagged with the version")
		fs.StringVar(&o.caBundle, "ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "CA certificates to put at /etc/ssl/certs/ca-certificates.crt (Debian: apt-get install ca-certificates)")
		fs.StringVar(&o.source, "source", "https://github.com/karpnet/kubectl-karpnet", "org.opencontainers.image.source annotation")
		_ = fs.Parse(args)
		err = build(o, os.Stdout)
	case "verify":
		var o verifyOptions
		fs := flag.NewFlagSet("verify", flag.ExitOnError)
		fs.StringVar(&o.layout, "layout", "", "OCI layout directory written by build (required)")
		fs.StringVar(&o.version, "version", "", "version the binary must report, e.g. v0.1.1-next (required)")
		_ = fs.Parse(args)
		err = verify(o, os.Stdout)
	case "push":
		var o pushOptions
		fs := flag.NewFlagSet("push", flag.ExitOnError)
		fs.StringVar(&o.layout, "layout", "", "OCI layout directory written by build (required)")
		fs.StringVar(&o.ref, "ref", "", "image reference to push the index to, e.g. ghcr.io/karpnet/kubectl-karpnet:v0.1.0 (required)")
		_ = fs.Parse(args)
		err = push(o, os.Stdout)
	default:
		fmt.Fprintf(os.Stderr, "image: unknown command %q: use build, verify or push\n", cmd)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}
