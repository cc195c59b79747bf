package main

import (
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

// renderFile renders a Markdown file of the repository at root: render's parts, the figures in
// its prose, the summary of its sample report, then the scale figures between their markers, when
// the file has them.
func renderFile(root string, file []byte) ([]byte, error) {
	figureRoot = root
	out, err := render(file)
	if err != nil {
		return nil, err
	}
	if out, err = renderFigures(out); err != nil {
		return nil, err
	}
	if out, err = renderSampleSummary(out); err != nil {
		return nil, err
	}
	return renderScale(root, out)
}

// renderScale replaces the lines between the scale markers with the tables of the results file.
func renderScale(root string, file []byte) ([]byte, error) {
	lines := strings.Split(string(file), "\n")
	if !slices.Contains(lines, scaleBegin) && !slices.Contains(lines, scaleEnd) {
		return file, nil // no figures: the results file need not be read
	}
	f, err := results.Read(filepath.Join(root, filepath.FromSlash(resultsFile)))
	if err != nil {
		return nil, err
	}
	out, err := replaceBlock(lines, "scale figures", scaleBegin, scaleEnd, f.Markdown)
	if err != nil {
		return nil, err
	}
	return []byte(strings.Join(out, "\n")), nil
}
