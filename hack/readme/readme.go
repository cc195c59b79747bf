package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/karpnet/kubectl-karpnet/pkg/cmd"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
)

// The markers around the generated catalogue table, each on a line of its own. A file holds at
// most one catalogue block (docs/checks.md holds it).
const (
	catalogueBegin = "<!-- catalogue: generated from the checks' Specs in pkg/diagnose by `make generate`; do not edit -->"
	catalogueEnd   = "<!-- end of catalogue -->"
	ledgerBegin    = "<!-- ledger: generated from pkg/diagnose/ledger.go and the checks' Specs by `make generate`; do not edit -->"
	ledgerEnd      = "<!-- end of ledger -->"
)

// demoPrefix starts a command line in a console block whose output is the demo's.
const demoPrefix = "$ kubectl karpnet demo "

// regenerate is the command that rewrites every generated file, for error messages.
const regenerate = "make generate (or go run ./hack/readme from the repository root)"

// docFiles returns the files the generator renders, relative to root: README.md, then every
// docs/*.md in name order.
func docFiles(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			return nil, err
		}
		files = append(files, filepath.ToSlash(rel))
	}
	slices.Sort(files[1:])
	return files, nil
}

// rewriteAll renders every file of docFiles(root) in place, writing only those that change, and
// returns the names of the files it rewrote.
func rewriteAll(root string) ([]string, error) {
	files, err := docFiles(root)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, name := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		old, err := os.ReadFile(path)
		if err != nil {
			return changed, err
		}
		updated, err := renderFile(root, old)
		if err != nil {
			return changed, fmt.Errorf("%s: %w", name, err)
		}
		if bytes.Equal(old, updated) {
			continue
		}
		if err := os.WriteFile(path, updated, 0o644); err != nil {
			return changed, err
		}
		changed = append(changed, name)
	}
	return changed, nil
}

// render returns a Markdown file with its generated parts rewritten from the code: the catalogue
// table and the ledger between their markers, when the file has them, and the output after every
// "$ kubectl karpnet demo ..." line in a console block (with the exit code after a following
// "$ echo $?").
func render(file []byte) ([]byte, error) {
	lines, err := renderCatalogue(strings.Split(string(file), "\n"))
	if err != nil {
		return nil, err
	}
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
			if i+1 < len(lines) && lines[i+1] == "$ echo $?" {
				out = append(out, lines[i+1], fmt.Sprint(code))
				i++
				// Skip the old exit code, if there is one yet.
				if i+1 < len(lines) && isExitCode(lines[i+1]) {
					i++
				}
			}
		}
	}
	return []byte(strings.Join(out, "\n")), nil
}

// renderCatalogue replaces the lines between the catalogue markers with the catalogue table, and
// those between the ledger markers with the ledger of upstream versions.
func renderCatalogue(lines []string) ([]string, error) {
	lines, err := replaceBlock(lines, "catalogue", catalogueBegin, catalogueEnd, func(w io.Writer) error {
		return printer.CatalogueMarkdown(w, diagnose.Checks())
	})
	if err != nil {
		return nil, err
	}
	return replaceBlock(lines, "ledger", ledgerBegin, ledgerEnd, func(w io.Writer) error {
		return printer.LedgerMarkdown(w, diagnose.Checks())
	})
}

// replaceBlock replaces the lines between a line begin and a line end with what write writes.
// A file without the markers is returned as it is; markers that do not make exactly one block
// are an error naming what, the kind of block.
func replaceBlock(lines []string, what, begin, end string, write func(io.Writer) error) ([]string, error) {
	var begins, ends []int
	for i, line := range lines {
		switch line {
		case begin:
			begins = append(begins, i)
		case end:
			ends = append(ends, i)
		}
	}
	switch {
	case len(begins) == 0 && len(ends) == 0:
		return lines, nil
	case len(begins) > 1 || len(ends) > 1:
		return nil, fmt.Errorf("%d %s blocks: a file holds at most one, between a line %s and a line %s",
			max(len(begins), len(ends)), what, begin, end)
	case len(begins) != 1 || len(ends) != 1 || ends[0] < begins[0]:
		return nil, fmt.Errorf("a %s marker without its pair: put the block between a line %s and a line %s", what, begin, end)
	}
	var block bytes.Buffer
	if err := write(&block); err != nil {
		return nil, err
	}
	out := slices.Clone(lines[:begins[0]+1])
	out = append(out, strings.Split(strings.TrimSuffix(block.String(), "\n"), "\n")...)
	return append(out, lines[ends[0]:]...), nil
}

// isExitCode reports whether line is an exit code as `echo $?` prints it.
func isExitCode(line string) bool {
	_, err := strconv.ParseUint(line, 10, 8)
	return err == nil
}

// runDemo runs karpnet in process with args and returns its output and exit code; the output
// is no terminal, so it has no colour.
func runDemo(args []string) (string, int) {
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	code := cmd.Execute(context.Background(), streams, args)
	return out.String(), code
}
