// Command gendemo writes the demo snapshot that pkg/demo embeds. It is deterministic: the same
// source always writes the same bytes.
//
//	go run ./hack/gendemo -o pkg/demo/cluster.json
//
// or, from pkg/demo, go generate.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/karpnet/kubectl-karpnet/hack/gendemo/cluster"
)

func main() {
	out := flag.String("o", "pkg/demo/cluster.json", "file to write the demo snapshot to")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gendemo:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	b, err := cluster.Encode()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("writing the demo snapshot: %w", err)
	}
	return nil
}
