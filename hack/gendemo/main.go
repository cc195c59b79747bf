// Command gendemo writes the demo snapshots that pkg/demo embeds: the demo cluster and the
// Cilium one. It is deterministic: the same source always writes the same bytes.
//
//	go run ./hack/gendemo -o pkg/demo/cluster.json -cilium pkg/demo/cilium.json
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
	cilium := flag.String("cilium", "pkg/demo/cilium.json", "file to write the Cilium demo snapshot to")
	flag.Parse()
	err := run(*out, cluster.Encode)
	if err == nil {
		err = run(*cilium, cluster.EncodeCilium)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendemo:", err)
		os.Exit(1)
	}
}

func run(path string, encode func() ([]byte, error)) error {
	b, err := encode()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("writing the demo snapshot: %w", err)
	}
	return nil
}
