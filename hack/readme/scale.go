package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/test/scale/results"
)

// The markers around the scale figures docs/scale.md renders from the benchmarks' results
// file, each on a line of its own.
const (
	scaleBegin = "<!-- scale figures: generated from test/scale/results.json by `make generate`; do not edit -->"
	scaleEnd   = "<!-- end of scale figures -->"
)

// resultsFile is the benchmarks' results file, relative to the repository root.
const resultsFile = "test/scale/results.json"

// renderFile renders a Markdown file of the repository at root: render's parts, then the scale
// figures between their markers, when the file has them.
func renderFile(root string, file []byte) ([]byte, error) {
	out, err := render(file)
	if err != nil {
		return nil, err
	}
	return renderScale(root, out)
}

// renderScale replaces the lines between the scale markers with the tables of the results file.
func renderScale(root string, file []byte) ([]byte, error) {
	lines := strings.Split(string(file), "\n")
	begin, end := slices.Index(lines, scaleBegin), slices.Index(lines, scaleEnd)
	switch {
	case begin < 0 && end < 0:
		return file, nil
	case begin < 0 || end < begin:
		return nil, errors.New("a scale marker without its pair: put the figures between a line " + scaleBegin +
			" and a line " + scaleEnd)
	}
	f, err := results.Read(filepath.Join(root, filepath.FromSlash(resultsFile)))
	if err != nil {
		return nil, err
	}
	var table bytes.Buffer
	if err := f.Markdown(&table); err != nil {
		return nil, err
	}
	out := slices.Clone(lines[:begin+1])
	out = append(out, strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n")...)
	return []byte(strings.Join(append(out, lines[end:]...), "\n")), nil
}
