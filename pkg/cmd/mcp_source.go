package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/internal/budget"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diff"
	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/mcp"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// mcpSource answers the MCP tools through the commands' own paths: load (live, --snapshot or
// the demo), the selection, Analyze, the sheets' builders and printers.
type mcpSource struct {
	o      *commonOptions
	maxAge time.Duration

	// mu serialises collections and the use of o.
	mu   sync.Mutex
	snap *snapshot.Snapshot
	full diagnose.Report
	at   time.Time
	// live is the collector built for the first collection, reused by the next ones.
	live *collect.Collector
}

// static reports whether the source is read once: the demo or a snapshot file.
func (s *mcpSource) static() bool { return s.o.demo || s.o.snapshotFile != "" }

// current returns the whole cluster's snapshot and its analysis, collecting when there is none
// yet, or when the last is older than maxAge or refresh asks and the budget's floor has passed.
// s.mu must be held.
func (s *mcpSource) current(ctx context.Context, refresh bool) (*snapshot.Snapshot, diagnose.Report, error) {
	if s.snap != nil {
		age := time.Since(s.at)
		if s.static() || age < budget.Floor || (!refresh && age < s.maxAge) {
			return s.snap, s.full, nil
		}
	}
	if !s.static() && !s.o.multi() && s.live == nil {
		build := s.o.newCollector
		s.o.newCollector = func(ctx context.Context, o *commonOptions) (*collect.Collector, error) {
			if s.live != nil {
				return s.live, nil
			}
			c, err := build(ctx, o)
			if err == nil {
				s.live = c
			}
			return c, err
		}
	}
	snap, err := s.o.load(ctx, collect.Scope{})
	if err != nil {
		return nil, diagnose.Report{}, err
	}
	s.o.printNotes(snap)
	every, _ := newSelection(nil, "", "", "")
	full, err := every.analyze(snap, nil, nil)
	if err != nil {
		return nil, diagnose.Report{}, err
	}
	s.snap, s.full, s.at = snap, full, time.Now()
	return snap, full, nil
}

func (s *mcpSource) Check(ctx context.Context, q mcp.Selection, refresh bool) (diagnose.Report, error) {
	if len(q.Only) > 0 && len(q.Skip) > 0 {
		return diagnose.Report{}, usageErrorf("only and skip cannot be used together: choose one")
	}
	for flag, ids := range map[string][]string{"only": q.Only, "skip": q.Skip} {
		if err := checkIDsError(flag, ids); err != nil {
			return diagnose.Report{}, withList(err)
		}
	}
	sel, err := newSelection(q.Nodes, q.Selector, q.NodePool, q.NodeClass)
	if err != nil {
		return diagnose.Report{}, err
	}
	sel.hints = s.o.hints()
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, full, err := s.current(ctx, refresh)
	if err != nil {
		return diagnose.Report{}, err
	}
	if sel.empty() && len(q.Only) == 0 && len(q.Skip) == 0 {
		return full, nil
	}
	return sel.analyze(snap, q.Only, q.Skip)
}

func (s *mcpSource) Describe(ctx context.Context, kind string, names []string, selector string, text, refresh bool) ([]mcp.Sheet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, full, err := s.current(ctx, refresh)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "node":
		return s.describeNodes(snap, names, selector, text)
	case "nodeclaim":
		if snap.Multi() {
			return nil, usageErrorf("describe nodeclaim reads one cluster: start the server with --context NAME")
		}
		var out []mcp.Sheet
		for _, name := range names {
			i := slices.IndexFunc(full.NodeClaims, func(c diagnose.NodeClaimReport) bool { return c.Name == name })
			if i < 0 {
				return nil, (&describeNodeClaimOptions{commonOptions: s.o, name: name}).notDescribed(snap, full)
			}
			sh, err := sheetOf(name, full.NodeClaims[i], text, func(w io.Writer) error {
				return printer.PrintNodeClaim(w, full.NodeClaims[i], full.Taken, printer.Table, nil)
			})
			if err != nil {
				return nil, err
			}
			out = append(out, sh)
		}
		return out, nil
	}
	k, ok := mcpSubjectKinds()[kind]
	if !ok {
		return nil, usageErrorf("kind %q: use one of %s", kind, strings.Join(mcp.Kinds, ", "))
	}
	if snap.Multi() {
		return nil, usageErrorf("describe %s reads one cluster: start the server with --context NAME", kind)
	}
	x := diagnose.NewIndex(snap)
	var out []mcp.Sheet
	for _, name := range names {
		print, err := k.describe(&cobra.Command{}, s.o.hints(), snap, x, full, []string{name})
		if err != nil {
			return nil, err
		}
		f := printer.JSON
		if text {
			f = printer.Table
		}
		var b bytes.Buffer
		if err := print(&b, f, nil); err != nil {
			return nil, err
		}
		sh := mcp.Sheet{Name: name}
		if text {
			sh.Text = b.String()
		} else {
			sh.Data = json.RawMessage(bytes.TrimSpace(b.Bytes()))
		}
		out = append(out, sh)
	}
	return out, nil
}

// describeNodes returns the sheets of the nodes named or selected, each with the findings on
// what it uses, as describe node shows them.
func (s *mcpSource) describeNodes(snap *snapshot.Snapshot, names []string, selector string, text bool) ([]mcp.Sheet, error) {
	sel, err := newSelection(names, selector, "", "")
	if err != nil {
		return nil, err
	}
	sel.hints = s.o.hints()
	r, err := sel.analyze(snap, nil, nil)
	if err != nil {
		return nil, err
	}
	if len(r.Nodes) == 0 {
		return nil, usageErrorf("no node matches %q: %s", selector, s.o.hints().list("nodes", "list nodes with kubectl get nodes --show-labels"))
	}
	var out []mcp.Sheet
	for _, n := range r.Nodes {
		one := r
		one.Nodes = []diagnose.NodeReport{n}
		sh, err := sheetOf(n.Identity.Node, n, text, func(w io.Writer) error { return printer.PrintNodes(w, one, printer.Table, nil) })
		if err != nil {
			return nil, err
		}
		sh.Related = r.OnWhatUses(n)
		out = append(out, sh)
	}
	return out, nil
}

// sheetOf is the sheet of name: its data v, or with text what print writes.
func sheetOf(name string, v any, text bool, print func(io.Writer) error) (mcp.Sheet, error) {
	sh := mcp.Sheet{Name: name}
	if text {
		var b bytes.Buffer
		if err := print(&b); err != nil {
			return sh, err
		}
		sh.Text = b.String()
		return sh, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return sh, fmt.Errorf("encoding the sheet of %s: %w", name, err)
	}
	sh.Data = b
	return sh, nil
}

// mcpSubjectKinds are describe's subject kinds besides nodes and NodeClaims, by name.
func mcpSubjectKinds() map[string]subjectKind {
	return map[string]subjectKind{"subnet": subnetKind(), "nodeclass": nodeClassKind(), "nodepool": nodePoolKind(),
		"placementgroup": placementGroupKind(), "eni": eniKind()}
}

func (s *mcpSource) Explain(ids []string) ([]printer.CheckDoc, error) {
	checks, err := s.explainChecks(ids)
	if err != nil {
		return nil, err
	}
	return printer.Docs(checks), nil
}

func (s *mcpSource) ExplainText(ids []string) (string, error) {
	checks, err := s.explainChecks(ids)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := printer.PrintExplain(&b, checks, printer.ExplainText, style.New(style.Renderer(io.Discard, false))); err != nil {
		return "", err
	}
	return b.String(), nil
}

// explainChecks returns the checks of ids as explain reads them, every check for none.
func (s *mcpSource) explainChecks(ids []string) ([]diagnose.Check, error) {
	checks, err := checksNamed(ids)
	return checks, withList(err)
}

func (s *mcpSource) Diff(ctx context.Context, old, new string) (diff.Diff, error) {
	d := &diffOptions{commonOptions: s.o}
	oldReport, err := d.analyzeFile(old)
	if err != nil {
		return diff.Diff{}, err
	}
	newSide := diff.Side{Source: liveSource}
	var newReport diagnose.Report
	if new != "" {
		newSide.Source = new
		if newReport, err = d.analyzeFile(new); err != nil {
			return diff.Diff{}, err
		}
	} else {
		s.mu.Lock()
		snap, full, err := s.current(ctx, false)
		s.mu.Unlock()
		if err != nil {
			return diff.Diff{}, err
		}
		if snap.Multi() {
			return diff.Diff{}, usageErrorf("diff compares one cluster: start the server with --context NAME, or name two snapshot files")
		}
		newReport = full
		switch {
		case s.o.demo:
			newSide.Source = "demo"
		case s.o.snapshotFile != "":
			newSide.Source = s.o.snapshotFile
		}
	}
	return diff.Compare(oldReport, newReport, diff.Side{Source: old}, newSide), nil
}

func (s *mcpSource) MaxPods(ctx context.Context, types []string, density maxpods.Options, live bool) ([]maxpods.Row, error) {
	o := &maxPodsOptions{commonOptions: s.o, density: density, live: live}
	for _, t := range types {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(o.types, t) {
			o.types = append(o.types, t)
		}
	}
	if len(o.types) == 0 {
		return nil, usageErrorf("no instance type given: pass one or more, e.g. m5.large")
	}
	if s.static() {
		// The demo and a snapshot are served without AWS access: the embedded table only.
		if live {
			return nil, usageErrorf("live asks EC2, which this server does not read (it serves %s): leave live out", s.servedName())
		}
		var unknown []string
		for _, t := range o.types {
			if _, ok := maxpods.Offline(t); !ok {
				unknown = append(unknown, t)
			}
		}
		if len(unknown) > 0 {
			return nil, usageErrorf("karpnet's table (%s) does not know instance type %s: check the spelling", maxpods.OfflineDate, strings.Join(unknown, ", "))
		}
	}
	rows, err := o.rows(ctx)
	return rows, withList(err)
}

// withList adds to err the valid values a command prints under it (e.g. every check ID), as
// one line: a tool's error is read whole.
func withList(err error) error {
	var coded *exitError
	if errors.As(err, &coded) && len(coded.list) > 0 {
		return fmt.Errorf("%w: %s", err, strings.Join(coded.list, ", "))
	}
	return err
}

// servedName names what a static source serves.
func (s *mcpSource) servedName() string {
	if s.o.demo {
		return "the demo"
	}
	return "snapshot " + s.o.snapshotFile
}
