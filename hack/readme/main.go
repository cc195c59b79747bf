// Command readme rewrites the generated parts of README.md and of every docs/*.md from the code:
// the check catalogue table (in docs/checks.md, between its markers), the output of every
// `kubectl karpnet demo ...` example, the figures in running prose (<!-- figure:NAME --> ...
// <!-- /figure -->: EC2 actions, `demo serve`'s series, the kinds without a sheet; figures.go) and
// the summary of docs/output.md's sample report. Run it with `make generate` (after go generate ./pkg/demo),
// or `go run ./hack/readme` from the repository root; TestDocsAreGenerated fails when a file
// differs from what it writes.
package main

//go:generate go run . -root ../..

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	root := flag.String("root", ".", "the repository root, holding README.md and docs/")
	flag.Parse()
	changed, err := rewriteAll(*root)
	for _, name := range changed {
		fmt.Fprintf(os.Stderr, "rewrote %s\n", name)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}
