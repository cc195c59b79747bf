package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"sigs.k8s.io/yaml"
)

// writeData writes r as JSON (two-space indent) or YAML with the same keys.
func writeData(w io.Writer, r diagnose.Report, f Format) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(publicReport(r)); err != nil {
		return fmt.Errorf("encoding the report as JSON: %w", err)
	}
	out := buf.Bytes()
	if f == YAML {
		y, err := yaml.JSONToYAML(out)
		if err != nil {
			return fmt.Errorf("converting the report to YAML: %w", err)
		}
		out = y
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// publicReport returns a copy of r shaped for the public schema: kind and apiVersion set,
// the time in UTC, and empty lists and maps instead of null so consumers can always iterate.
func publicReport(r diagnose.Report) diagnose.Report {
	if r.Kind == "" {
		r.Kind = diagnose.ReportKind
	}
	if r.APIVersion == "" {
		r.APIVersion = diagnose.ReportAPIVersion
	}
	r.Taken = r.Taken.UTC()
	if r.Summary.Findings == nil {
		r.Summary.Findings = map[string]int{}
	}
	r.Findings = nonNil(r.Findings)
	r.Subnets = nonNil(r.Subnets)
	r.Gaps = nonNil(r.Gaps)
	nodes := make([]diagnose.NodeReport, len(r.Nodes))
	for i, n := range r.Nodes {
		n.Addresses = nonNil(n.Addresses)
		n.ENIs = nonNil(n.ENIs)
		n.Findings = nonNil(n.Findings)
		nodes[i] = n
	}
	r.Nodes = nodes
	return r
}

// nonNil returns s, or an empty slice when s is nil.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
