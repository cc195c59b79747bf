package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Page sizes: an answer stays within an assistant's context (tens of kilobytes), however
// large the cluster.
const (
	defaultFindings = 20
	maxFindings     = 100
	defaultSheets   = 3
	maxSheets       = 20
	defaultChanges  = 10
	maxChanges      = 100
	maxTypes        = 50
	maxExplain      = 10
)

// tools holds the handlers of the server's tools.
type tools struct {
	src Source
	log io.Writer
}

// Page says which part of a list an answer holds: Total items, from Offset, Returned of
// them; NextOffset is the offset of the next page, absent on the last one.
type Page struct {
	Total      int `json:"total"`
	Offset     int `json:"offset"`
	Returned   int `json:"returned"`
	NextOffset int `json:"nextOffset,omitempty"`
}

// page returns the part [offset, offset+limit) of n items and its Page.
func page(n, offset, limit int) (lo, hi int, p Page) {
	lo = min(offset, n)
	hi = min(lo+limit, n)
	p = Page{Total: n, Offset: offset, Returned: hi - lo}
	if hi < n {
		p.NextOffset = hi
	}
	return lo, hi, p
}

// limitOf checks limit and offset: zero limit is def, above most an error.
func limitOf(limit, offset, def, most int) (int, error) {
	switch {
	case limit < 0:
		return 0, fmt.Errorf("limit %d: give 1 to %d, or leave it out for %d", limit, most, def)
	case limit > most:
		return 0, fmt.Errorf("limit %d is above %d: page with offset instead", limit, most)
	case offset < 0:
		return 0, fmt.Errorf("offset %d: give 0 or more", offset)
	case limit == 0:
		return def, nil
	}
	return limit, nil
}

// CheckArgs are the arguments of check.
type CheckArgs struct {
	Nodes       []string `json:"nodes,omitempty" jsonschema:"node names to check; default every node"`
	Selector    string   `json:"selector,omitempty" jsonschema:"label selector over nodes, as kubectl -l (e.g. karpenter.sh/capacity-type=spot)"`
	NodePool    string   `json:"nodepool,omitempty" jsonschema:"only the nodes of this Karpenter NodePool, and the findings on it"`
	NodeClass   string   `json:"nodeclass,omitempty" jsonschema:"only the nodes of this EC2NodeClass or EKS Auto Mode NodeClass, and the findings on it"`
	MinSeverity string   `json:"minSeverity,omitempty" jsonschema:"list only findings at or above this severity: critical, warning or info (default info: all)"`
	Only        []string `json:"only,omitempty" jsonschema:"run only these check IDs"`
	Skip        []string `json:"skip,omitempty" jsonschema:"skip these check IDs"`
	Limit       int      `json:"limit,omitempty" jsonschema:"findings per answer, 1 to 100 (default 20)"`
	Offset      int      `json:"offset,omitempty" jsonschema:"skip this many findings (the previous answer's nextOffset)"`
	Refresh     bool     `json:"refresh,omitempty" jsonschema:"read the cluster again rather than reuse the last collection"`
}

// CheckResult is check's answer: the summary first, then a page of findings.
type CheckResult struct {
	Summary  CheckSummary       `json:"summary"`
	Findings []diagnose.Finding `json:"findings"`
	// Gaps are the data karpnet could not read (a missing permission, an unreachable API):
	// what they would show is unknown, not clean.
	Gaps   []snapshot.Gap    `json:"gaps,omitempty"`
	NotRun []diagnose.NotRun `json:"notRun,omitempty"`
	Notes  []string          `json:"notes,omitempty"`
}

// CheckSummary says what was read, when, and how it fared.
type CheckSummary struct {
	Context string    `json:"context,omitempty"`
	Cluster string    `json:"cluster,omitempty"`
	Region  string    `json:"region,omitempty"`
	Taken   time.Time `json:"taken"`
	// Nodes counts the nodes by status; its findings count every finding by severity, before
	// minSeverity.
	Nodes diagnose.Summary `json:"nodes"`
	// Clusters are the clusters of a server started over several contexts.
	Clusters []diagnose.ClusterReport `json:"clusters,omitempty"`
	// MinSeverity is the severity the findings were filtered at.
	MinSeverity string `json:"minSeverity"`
	// Findings pages the findings at or above MinSeverity.
	Findings Page `json:"findings"`
	// Next says how to read more, when there is more.
	Next string `json:"next,omitempty"`
}

func (t tools) check(ctx context.Context, a CheckArgs) (any, error) {
	limit, err := limitOf(a.Limit, a.Offset, defaultFindings, maxFindings)
	if err != nil {
		return nil, err
	}
	floor := diagnose.Info
	if a.MinSeverity != "" {
		if floor, err = diagnose.ParseSeverity(a.MinSeverity); err != nil {
			return nil, fmt.Errorf("minSeverity %q: use critical, warning or info", a.MinSeverity)
		}
	}
	r, err := t.src.Check(ctx, Selection{Nodes: a.Nodes, Selector: a.Selector, NodePool: a.NodePool, NodeClass: a.NodeClass,
		Only: a.Only, Skip: a.Skip}, a.Refresh)
	if err != nil {
		return nil, err
	}
	var at []diagnose.Finding
	for _, f := range r.Findings {
		if f.Severity >= floor {
			at = append(at, f)
		}
	}
	lo, hi, p := page(len(at), a.Offset, limit)
	out := CheckResult{
		Summary: CheckSummary{Context: r.Context, Cluster: r.Cluster, Region: r.Region, Taken: r.Taken, Nodes: r.Summary,
			Clusters: r.Clusters, MinSeverity: floor.String(), Findings: p},
		Findings: slices.Clone(at[lo:hi]),
		Gaps:     r.Gaps, NotRun: r.NotRun, Notes: r.Notes,
	}
	if out.Findings == nil {
		out.Findings = []diagnose.Finding{}
	}
	if p.NextOffset > 0 {
		out.Summary.Next = fmt.Sprintf("%d more findings: call check again with offset %d", p.Total-hi, p.NextOffset)
	}
	return out, nil
}

// DescribeArgs are the arguments of describe.
type DescribeArgs struct {
	Kind     string   `json:"kind" jsonschema:"node, nodeclaim, subnet, nodeclass, nodepool, placementgroup or eni"`
	Names    []string `json:"names,omitempty" jsonschema:"the subjects' names (subnet, ENI: IDs; placement group: name or ID; nodeclass: NAME, ec2nodeclass/NAME or nodeclass/NAME)"`
	Selector string   `json:"selector,omitempty" jsonschema:"for kind node: a label selector instead of names"`
	Format   string   `json:"format,omitempty" jsonschema:"data (default): each sheet as JSON data; text: as karpnet prints it"`
	Limit    int      `json:"limit,omitempty" jsonschema:"sheets per answer, 1 to 20 (default 3)"`
	Offset   int      `json:"offset,omitempty" jsonschema:"skip this many sheets (the previous answer's nextOffset)"`
	Refresh  bool     `json:"refresh,omitempty" jsonschema:"read the cluster again rather than reuse the last collection"`
}

// DescribeResult is describe's answer.
type DescribeResult struct {
	Kind   string  `json:"kind"`
	Sheets Page    `json:"page"`
	Items  []Sheet `json:"sheets"`
	Next   string  `json:"next,omitempty"`
}

func (t tools) describe(ctx context.Context, a DescribeArgs) (any, error) {
	limit, err := limitOf(a.Limit, a.Offset, defaultSheets, maxSheets)
	if err != nil {
		return nil, err
	}
	kind := strings.ToLower(strings.TrimSpace(a.Kind))
	if !slices.Contains(Kinds, kind) {
		return nil, fmt.Errorf("kind %q: use one of %s", a.Kind, strings.Join(Kinds, ", "))
	}
	switch {
	case a.Selector != "" && kind != "node":
		return nil, fmt.Errorf("selector selects nodes: use it with kind node, or name the %ss", kind)
	case a.Selector != "" && len(a.Names) > 0:
		return nil, errors.New("pass names or a selector, not both")
	case a.Selector == "" && len(a.Names) == 0:
		return nil, fmt.Errorf("name at least one %s (check lists the subjects of its findings)", kind)
	}
	var text bool
	switch a.Format {
	case "", "data":
	case "text":
		text = true
	default:
		return nil, fmt.Errorf("format %q: use data or text", a.Format)
	}
	names := a.Names
	if a.Selector == "" {
		// Only the page's names are described: a long list costs one page at a time.
		var compact []string
		for _, n := range names {
			if n = strings.TrimSpace(n); n != "" && !slices.Contains(compact, n) {
				compact = append(compact, n)
			}
		}
		lo, hi, p := page(len(compact), a.Offset, limit)
		if lo == hi {
			return describeResult(kind, nil, p), nil
		}
		sheets, err := t.src.Describe(ctx, kind, compact[lo:hi], "", text, a.Refresh)
		if err != nil {
			return nil, err
		}
		return describeResult(kind, sheets, p), nil
	}
	sheets, err := t.src.Describe(ctx, kind, nil, a.Selector, text, a.Refresh)
	if err != nil {
		return nil, err
	}
	lo, hi, p := page(len(sheets), a.Offset, limit)
	return describeResult(kind, sheets[lo:hi], p), nil
}

// text is the sheets' texts, when they were asked for as text, and how to read more.
func (r DescribeResult) text() string {
	if len(r.Items) == 0 {
		return ""
	}
	var parts []string
	for _, s := range r.Items {
		if s.Text == "" {
			return ""
		}
		parts = append(parts, strings.TrimRight(s.Text, "\n"))
	}
	if r.Next != "" {
		parts = append(parts, r.Next)
	}
	return strings.Join(parts, "\n\n") + "\n"
}

func describeResult(kind string, sheets []Sheet, p Page) DescribeResult {
	if sheets == nil {
		sheets = []Sheet{}
	}
	out := DescribeResult{Kind: kind, Sheets: p, Items: sheets}
	if p.NextOffset > 0 {
		out.Next = fmt.Sprintf("%d more sheets: call describe again with offset %d", p.Total-p.NextOffset, p.NextOffset)
	}
	return out
}

// ExplainArgs are the arguments of explain.
type ExplainArgs struct {
	IDs    []string `json:"ids,omitempty" jsonschema:"check IDs (a finding's id), at most 10; none lists every check, one line each"`
	Format string   `json:"format,omitempty" jsonschema:"data (default) or text, as karpnet explain prints it"`
}

// ExplainResult is explain's answer: the entries named, or one line per check.
type ExplainResult struct {
	Checks []printer.CheckDoc `json:"checks,omitempty"`
	List   []CheckLine        `json:"list,omitempty"`
	Text   string             `json:"text,omitempty"`
}

// text is the entries as explain prints them, when they were asked for as text.
func (r ExplainResult) text() string { return r.Text }

// CheckLine is a check in the list: what explain --list prints.
type CheckLine struct {
	ID         string   `json:"id"`
	Severities []string `json:"severities"`
	Family     string   `json:"family"`
	Title      string   `json:"title"`
}

func (t tools) explain(_ context.Context, a ExplainArgs) (any, error) {
	if len(a.IDs) > maxExplain {
		return nil, fmt.Errorf("%d check IDs: explain at most %d at a time", len(a.IDs), maxExplain)
	}
	if a.Format != "" && a.Format != "data" && a.Format != "text" {
		return nil, fmt.Errorf("format %q: use data or text", a.Format)
	}
	docs, err := t.src.Explain(a.IDs)
	if err != nil {
		return nil, err
	}
	if len(a.IDs) == 0 {
		out := ExplainResult{List: make([]CheckLine, len(docs))}
		for i, d := range docs {
			out.List[i] = CheckLine{ID: d.ID, Severities: d.Severities, Family: d.Family, Title: d.Title}
		}
		return out, nil
	}
	if a.Format == "text" {
		s, err := t.src.ExplainText(a.IDs)
		return ExplainResult{Text: s}, err
	}
	return ExplainResult{Checks: docs}, nil
}
