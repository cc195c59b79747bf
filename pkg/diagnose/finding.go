package diagnose

import (
	"fmt"
	"strings"
)

// Severity ranks a finding. The zero value is Info.
type Severity int

// The severities, from least to most severe. The zero value is no severity: a check's Run
// leaves a finding's severity unset when it is the check's own.
const (
	severityUnset Severity = iota
	Info
	Warning
	Critical
)

var severityNames = [...]string{"info", "warning", "critical"}

// String returns "info", "warning" or "critical".
func (s Severity) String() string {
	if s < Info || s > Critical {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s-Info]
}

// MarshalText makes JSON and YAML carry the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity parses "info", "warning" or "critical", in any case.
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(name, n) {
			return Info + Severity(i), nil
		}
	}
	return Info, fmt.Errorf("unknown severity %q: use info, warning or critical", name)
}

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

// less orders findings by severity (worst first), then ID, node and resource.
func (f Finding) less(g Finding) bool {
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
