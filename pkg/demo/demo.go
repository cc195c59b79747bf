package demo

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

//go:generate go run ../../hack/gendemo -o cluster.json -cilium cilium.json

// The catalogue table of docs/checks.md and the demo output blocks of README.md and docs/*.md
// are generated from the checks and this demo, so they are rewritten after it.
//go:generate go run ../../hack/readme -root ../..

// FileName is the name of the embedded snapshot file, next to this source file.
const FileName = "cluster.json"

//go:embed cluster.json
var embedded []byte

//go:embed cilium.json
var ciliumEmbedded []byte

// The kubeconfig contexts of the demo's clusters: Context is the demo cluster, the default;
// CiliumContext a cluster on Cilium in ENI mode, with NetworkPolicies Cilium enforces.
const (
	Context       = "demo"
	CiliumContext = "demo-cilium"
)

// Contexts returns the demo's contexts, the default first.
func Contexts() []string { return []string{Context, CiliumContext} }

// SnapshotOf decodes the embedded snapshot of a demo context ("" is the default); it fails on
// a context the demo does not have. Each call returns a new Snapshot the caller may modify.
func SnapshotOf(context string) (*snapshot.Snapshot, error) {
	switch context {
	case "", Context:
		return Snapshot()
	case CiliumContext:
		s, err := snapshot.Read(bytes.NewReader(ciliumEmbedded))
		if err != nil {
			return nil, fmt.Errorf("reading the embedded Cilium demo snapshot: %w: rebuild karpnet after go generate ./pkg/demo", err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("the demo has no context %q: use %s", context, strings.Join(Contexts(), " or "))
}

// Bytes returns a copy of the embedded snapshot file as written by snapshot.Write.
func Bytes() []byte { return bytes.Clone(embedded) }

// Snapshot decodes the embedded demo snapshot. Each call returns a new Snapshot the caller
// may modify.
func Snapshot() (*snapshot.Snapshot, error) {
	s, err := snapshot.Read(bytes.NewReader(embedded))
	if err != nil {
		return nil, fmt.Errorf("reading the embedded demo snapshot: %w: rebuild karpnet after go generate ./pkg/demo", err)
	}
	return s, nil
}

// NodeNames returns the names of the demo cluster's nodes, sorted, for completion and examples.
// It returns nil when the embedded snapshot cannot be read.
func NodeNames() []string {
	s, err := Snapshot()
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(s.Nodes))
	for _, n := range s.Nodes {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return names
}
