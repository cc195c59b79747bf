package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/karpnet/kubectl-karpnet/pkg/cmd"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// The markers around the generated catalogue table.
const (
	catalogueBegin = "<!-- catalogue: generated from pkg/diagnose/catalogue.go by `make generate`; do not edit -->"
	catalogueEnd   = "<!-- end of catalogue -->"
)

// demoPrefix starts a command line in a console block whose output is the demo's.
const demoPrefix = "$ kubectl karpnet demo "

// render returns readme with its generated parts rewritten from the code: the catalogue table
// between its markers, and the output after every "$ kubectl karpnet demo ..." line in a
// console block (with the exit code after a following "$ echo $?").
func render(readme []byte) ([]byte, error) {
	text := string(readme)
	begin, end := strings.Index(text, catalogueBegin), strings.Index(text, catalogueEnd)
	if begin < 0 || end < begin {
		return nil, errors.New("README.md has no catalogue markers: put the table between " + catalogueBegin + " and " + catalogueEnd)
	}
	var table bytes.Buffer
	if err := printer.CatalogueMarkdown(&table, diagnose.Checks()); err != nil {
		return nil, err
	}
	text = text[:begin+len(catalogueBegin)] + "\n" + table.String() + text[end:]

	lines := strings.Split(text, "\n")
	var out []string
	inBlock := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		out = append(out, line)
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock = !inBlock && line != "```"
		case inBlock && strings.HasPrefix(line, demoPrefix):
			stdout, code := runDemo(strings.Fields(strings.TrimPrefix(line, "$ kubectl karpnet ")))
			out = append(out, strings.Split(strings.TrimRight(stdout, "\n"), "\n")...)
			// Skip the old output, up to the next command or the end of the block.
			for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") && !strings.HasPrefix(lines[i+1], "```") {
				i++
			}
			if i+2 < len(lines) && lines[i+1] == "$ echo $?" {
				out = append(out, lines[i+1], fmt.Sprint(code))
				i += 2
			}
		}
	}
	return []byte(strings.Join(out, "\n")), nil
}

// runDemo runs karpnet in process with args and returns its output and exit code; the output
// is no terminal, so it has no colour.
func runDemo(args []string) (string, int) {
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	code := cmd.Execute(context.Background(), streams, args)
	return out.String(), code
}
