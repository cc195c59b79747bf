// Command readme rewrites README.md's generated parts from the code: the check catalogue table
// and the output of every `kubectl karpnet demo ...` example. Run it with `make generate`
// (after go generate ./pkg/demo), or `go run ./hack/readme`; TestREADMEIsGenerated fails when
// README.md differs from what it writes.
package main

//go:generate go run . -readme ../../README.md

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	path := flag.String("readme", "README.md", "the README to rewrite")
	flag.Parse()
	if err := rewrite(*path); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}

// rewrite renders the README at path in place.
func rewrite(path string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	updated, err := render(old)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, updated, 0o644)
}
