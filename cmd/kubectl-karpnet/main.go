// Command kubectl-karpnet is the karpnet kubectl plugin: networking diagnostics for
// Karpenter-provisioned EKS nodes. Run it as `kubectl karpnet`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/karpnet/kubectl-karpnet/internal/noquery"
	"github.com/karpnet/kubectl-karpnet/pkg/cmd"
)

func main() {
	// The terminal was not queried at start-up (see noquery); give CI back its value.
	noquery.Restore()
	// A closed standard output is not death by SIGPIPE (141): a reader that leaves after part
	// of the output (| head) ends the run quietly with the report's exit code, one that was
	// gone before the first byte is a write error (exit 3), as the README says.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first Ctrl-C cancels the run, which then ends with exit code 130; a second one
		// ends the process at once.
		<-ctx.Done()
		stop()
	}()
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	code := cmd.Execute(ctx, streams, os.Args[1:])
	stop()
	os.Exit(code)
}
