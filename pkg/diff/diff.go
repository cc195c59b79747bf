package diff

import (
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// Diff kind: the JSON/YAML output of `diff` is a public interface, with the Report's API version.
const Kind = "Diff"

// Diff is what changed between two reports: findings that appeared, resolved or changed
// severity, nodes that appeared or went, the networking facts of nodes in both, and the
// NodeClaims without a Node that appeared or went.
type Diff struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Old        Side   `json:"old"`
	New        Side   `json:"new"`
	// Findings are keyed by ID, node and resource (see diagnose.FindingKey).
	Findings FindingChanges `json:"findings"`
	Nodes    NodeChanges    `json:"nodes"`
	// NodeClaims are the NodeClaims without a Node that appeared or went, by name.
	NodeClaims ClaimChanges `json:"nodeClaims"`
	// Warnings say what makes the comparison doubtful: OLD and NEW are different clusters.
	Warnings []string `json:"warnings,omitempty"`
}

// Side says what one side of a diff was read from and when.
type Side struct {
	// Source is the snapshot file's name, or "live" for the cluster read now.
	Source  string    `json:"source"`
	Taken   time.Time `json:"taken"`
	Context string    `json:"context,omitempty"`
}

// FindingChanges are the findings new in NEW, gone from it, and those in both whose severity
// changed. Unknown are the findings of OLD that NEW lacks when one side could not read a
// source the other read (a gap): they may be gone only because their data was not read.
type FindingChanges struct {
	Added    []diagnose.Finding `json:"added"`
	Resolved []diagnose.Finding `json:"resolved"`
	Changed  []SeverityChange   `json:"changed"`
	Unknown  []diagnose.Finding `json:"unknown,omitempty"`
}

// SeverityChange is a finding in both reports with another severity in NEW; diagnose.Finding is NEW's.
type SeverityChange struct {
	diagnose.Finding
	OldSeverity diagnose.Severity `json:"oldSeverity"`
}

// NodeChanges are the nodes only in NEW, only in OLD, and those in both whose facts changed.
// NotRead are the nodes of OLD that NEW lacks when NEW's node list was incomplete (a gap
// on nodes): they may still be there.
type NodeChanges struct {
	Added   []string     `json:"added"`
	Removed []string     `json:"removed"`
	Changed []NodeChange `json:"changed"`
	NotRead []string     `json:"notRead,omitempty"`
}

// NodeChange is one node in both reports and the facts of it that differ, in NodeFacts order.
type NodeChange struct {
	Node   string        `json:"node"`
	Fields []FieldChange `json:"fields"`
}

// FieldChange is one fact of a node, as OLD and NEW had it; an empty value means unknown or absent.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// ClaimChanges are the NodeClaims without a Node only in NEW and only in OLD.
type ClaimChanges struct {
	Added   []ClaimRef `json:"added"`
	Removed []ClaimRef `json:"removed"`
}

// ClaimRef names a NodeClaim without a Node and its status in the report that has it.
type ClaimRef struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// Compare returns what changed from old to new. The sides name their sources; their times and
// contexts are the reports'. When a report holds more than one finding
// with one key, the worst (the first, in a Report's order) stands for the key. Added and
// resolved findings keep their report's order; nodes and claims are sorted by name.
func Compare(old, new diagnose.Report, oldSide, newSide Side) Diff {
	d := Diff{Kind: Kind, APIVersion: diagnose.ReportAPIVersion, Old: oldSide, New: newSide}
	d.Old.Taken, d.New.Taken = old.Taken.UTC(), new.Taken.UTC()
	d.Old.Context, d.New.Context = old.Context, new.Context
	d.Findings = diffFindings(old.Findings, new.Findings)
	unknownWhenGone(&d.Findings, old, new)
	d.Nodes = diffNodes(old.Nodes, new.Nodes)
	notReadWhenGone(&d.Nodes, new)
	d.NodeClaims = diffClaims(old.NodeClaims, new.NodeClaims)
	d.Warnings = clusterWarnings(old, new)
	return d
}

// CompareFindings returns the findings new in new, resolved since old and with another
// severity, as Compare keys and orders them, without comparing nodes: what a watch marks.
func CompareFindings(old, new []diagnose.Finding) FindingChanges { return diffFindings(old, new) }

// Worsened returns the findings of d that reach threshold in NEW and did not in OLD: the
// added ones at or above it, and those whose severity rose to it.
func (d Diff) Worsened(threshold diagnose.Severity) []diagnose.Finding {
	var out []diagnose.Finding
	for _, f := range d.Findings.Added {
		if f.Severity >= threshold {
			out = append(out, f)
		}
	}
	for _, c := range d.Findings.Changed {
		if c.Severity >= threshold && c.OldSeverity < threshold {
			out = append(out, c.Finding)
		}
	}
	return out
}

// firstByKey returns the first finding of each key, and the keys in order of appearance.
func firstByKey(fs []diagnose.Finding) (map[diagnose.FindingKey]diagnose.Finding, []diagnose.FindingKey) {
	m := make(map[diagnose.FindingKey]diagnose.Finding, len(fs))
	var keys []diagnose.FindingKey
	for _, f := range fs {
		k := f.Key()
		if _, ok := m[k]; !ok {
			m[k] = f
			keys = append(keys, k)
		}
	}
	return m, keys
}

func diffFindings(old, new []diagnose.Finding) FindingChanges {
	om, okeys := firstByKey(old)
	nm, nkeys := firstByKey(new)
	c := FindingChanges{Added: []diagnose.Finding{}, Resolved: []diagnose.Finding{}, Changed: []SeverityChange{}}
	for _, k := range nkeys {
		n := nm[k]
		o, ok := om[k]
		switch {
		case !ok:
			c.Added = append(c.Added, n)
		case o.Severity != n.Severity:
			c.Changed = append(c.Changed, SeverityChange{Finding: n, OldSeverity: o.Severity})
		}
	}
	for _, k := range okeys {
		if _, ok := nm[k]; !ok {
			c.Resolved = append(c.Resolved, om[k])
		}
	}
	return c
}

func diffClaims(old, new []diagnose.NodeClaimReport) ClaimChanges {
	index := func(cs []diagnose.NodeClaimReport) map[string]string {
		m := make(map[string]string, len(cs))
		for _, c := range cs {
			m[c.Name] = c.Status
		}
		return m
	}
	om, nm := index(old), index(new)
	only := func(a, b map[string]string) []ClaimRef {
		out := []ClaimRef{}
		for name, status := range a {
			if _, ok := b[name]; !ok {
				out = append(out, ClaimRef{Name: name, Status: status})
			}
		}
		slices.SortFunc(out, func(x, y ClaimRef) int { return strings.Compare(x.Name, y.Name) })
		return out
	}
	return ClaimChanges{Added: only(nm, om), Removed: only(om, nm)}
}
