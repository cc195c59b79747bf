package main

import (
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

type pushOptions struct {
	layout, ref string
}

// push sends the layout's index to a registry, with the credentials of ~/.docker/config.json
// (docker login, or crane auth login).
func push(o pushOptions, w io.Writer) error {
	if o.layout == "" || o.ref == "" {
		return errors.New("push needs -layout and -ref")
	}
	idx, _, err := readLayout(o.layout)
	if err != nil {
		return err
	}
	ref, err := name.ParseReference(o.ref)
	if err != nil {
		return fmt.Errorf("-ref %q: %w", o.ref, err)
	}
	if err := remote.WriteIndex(ref, idx, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return fmt.Errorf("pushing %s: %w", ref, err)
	}
	d, _ := idx.Digest()
	fmt.Fprintf(w, "pushed %s@%s\n", ref, d)
	return nil
}

// nopLogger discards the loopback registry's request log.
func nopLogger() *log.Logger { return log.New(io.Discard, "", 0) }
