package report

import (
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
)

// Finding is one problem a check found about one node or one resource.
type Finding struct {
	// ID is the check's stable kebab-case ID; IDs are never reused.
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	// Node is the node the finding is about, when it is about one node.
	Node string `json:"node,omitempty"`
	// Resource is the object at fault as kind/name, e.g. subnet/subnet-0abc or ec2nodeclass/default.
	Resource string `json:"resource,omitempty"`
	// Message says what is wrong, with the numbers that prove it.
	Message string `json:"message"`
	// Remedy names the field, setting or command to change.
	Remedy string `json:"remedy"`
	// Commands are the commands the remedy proposes, each an argument vector with what it
	// changes; the prose of Remedy refers to them. Only commands whose every argument karpnet
	// knows are here: a value the user must choose stays in the prose.
	Commands []Command `json:"commands,omitempty"`
	// Subjects are every subject the finding concerns, as kind/name: its own subject first
	// (node/NAME, else its resource), then, sorted, its resource and what uses that resource: a
	// subnet's NodeClasses (node and pod subnets) and their NodePools, a NodeClass's NodePools,
	// a NodePool's class, a NodeClaim's NodePool and class, a placement group's classes and
	// their NodePools, an instance's, an interface's or an ENIConfig's subnet, a zone's subnets in
	// use with their classes and NodePools. Nodes are not
	// listed through what they use: views give a node the findings on its subnets, class and
	// NodePool (Report.OnWhatUses). Every sheet, view, CI report and metric reads a finding's
	// subjects from here.
	Subjects []string `json:"subjects,omitempty"`
	// InheritedSubjects are the Subjects the finding concerns only through what uses its
	// resource (all but its own subject and its resource), in Subjects' order.
	InheritedSubjects []string `json:"inheritedSubjects,omitempty"`
	// Context is the kubeconfig context of the finding's cluster in a report over several
	// clusters; empty otherwise.
	Context string `json:"context,omitempty"`
}

// Less orders findings by severity (worst first), then ID, node and resource.
func (f Finding) Less(g Finding) bool {
	if f.Severity != g.Severity {
		return f.Severity > g.Severity
	}
	if f.ID != g.ID {
		return f.ID < g.ID
	}
	if f.Node != g.Node {
		return f.Node < g.Node
	}
	if f.Resource != g.Resource {
		return f.Resource < g.Resource
	}
	return f.Message < g.Message
}

// FindingKey is what identifies a finding across two reports: its ID, node and resource.
type FindingKey struct {
	ID       string
	Node     string
	Resource string
}

// Key returns f's FindingKey.
func (f Finding) Key() FindingKey {
	return FindingKey{ID: f.ID, Node: f.Node, Resource: f.Resource}
}

// DataUnavailableID is the ID of the check that turns every Gap into a finding.
const DataUnavailableID = "data-unavailable"

// Subject names what the finding is about: node/NAME when it concerns one node, else its
// resource (kind/name, or the source for data-unavailable).
func (f Finding) Subject() string {
	if f.Node != "" {
		return kinds.Ref(kinds.Node, f.Node)
	}
	return f.Resource
}

// SubjectKind returns the kind of the finding's subject, one of the Subject constants (or the
// resource's own kind for a resource karpnet does not know).
func (f Finding) SubjectKind() string {
	switch {
	case f.ID == DataUnavailableID:
		return kinds.Source
	case f.Node != "":
		return kinds.Node
	}
	kind, _, _ := kinds.Split(f.Resource)
	return kinds.SubjectOf(kind)
}

// Concerns reports whether the finding concerns subject ref: Subjects names it, or, for a
// finding made without Subjects, its subject or resource is ref.
func (f Finding) Concerns(ref string) bool {
	if f.Subjects == nil {
		return f.Subject() == ref || f.Resource == ref
	}
	return slices.Contains(f.Subjects, ref)
}

// ConcernsDirectly reports whether ref is the finding's own subject or its resource: the
// subjects it does not inherit.
func (f Finding) ConcernsDirectly(ref string) bool {
	return ref != "" && (f.Subject() == ref || f.Resource == ref)
}

// Inherits reports whether the finding concerns ref only through what uses its resource
// (InheritedSubjects names it).
func (f Finding) Inherits(ref string) bool { return slices.Contains(f.InheritedSubjects, ref) }

// RemedyCommands renders a finding's commands, one per line, for the views that append them
// to the remedy's prose; "" when there are none.
func (f Finding) RemedyCommands() string {
	lines := make([]string, len(f.Commands))
	for i, c := range f.Commands {
		lines[i] = c.String()
	}
	return strings.Join(lines, "\n")
}
