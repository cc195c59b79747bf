package printer

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// CI is what the CI formats (JUnit, SARIF) need besides the report.
type CI struct {
	// FailOn is --fail-on: JUnit marks the findings at or above it as failures (errors for
	// data-unavailable), the ones the exit code counts. Never marks none.
	FailOn diagnose.Severity
	Never  bool
	// Checks are the checks the run ran (--only, --skip), in catalogue order; nil means every
	// check. JUnit has a test suite for each; SARIF lists every check of the catalogue as a rule.
	Checks []diagnose.Check
	// Version is karpnet's version, for SARIF's tool.driver.version.
	Version string
}

// failing reports whether a finding of severity s is at or above --fail-on.
func (c CI) failing(s diagnose.Severity) bool { return !c.Never && s >= c.FailOn }

// failOn names the threshold as --fail-on takes it.
func (c CI) failOn() string {
	if c.Never {
		return "never"
	}
	return c.FailOn.String()
}

// checks returns c.Checks, or the whole catalogue.
func (c CI) checks() []diagnose.Check {
	if c.Checks != nil {
		return c.Checks
	}
	return diagnose.Checks()
}

// PrintCheck writes the `check` output of r to w in format f: the CI formats as JUnit and
// SARIF describe, the others as PrintReport does.
func PrintCheck(w io.Writer, r diagnose.Report, f Format, st *style.Styles, ci CI) error {
	switch f {
	case JUnit:
		return writeJUnit(w, r, ci)
	case SARIF:
		return writeSARIF(w, r, ci)
	}
	return PrintReport(w, r, f, st)
}

// ciSubject is one subject a check examined, as a CI report lists it.
type ciSubject struct {
	// ref is node/NAME, subnet/ID, ec2nodeclass/NAME, ... or a source for data-unavailable.
	ref string
	// skipped says why the check did not look at the subject; empty when it did.
	skipped string
	// findings are the check's findings about the subject, worst first.
	findings []diagnose.Finding
}

// clusterSubject is the one subject of a check whose kinds of subject the report does not
// list and that found nothing: the cluster as a whole.
const clusterSubject = "cluster"

// checkSubjects returns the subjects check examined in r, sorted by ref: every subject of the
// kinds it examines that r lists (nodes, subnets, NodeClasses, NodePools, NodeClaims without
// a Node, placement groups), and every subject of its findings (data-unavailable's are the
// sources it could not read, one per gap). Nodes that are
// not EC2 are skipped, and so are nodes being deleted except by node-termination-stuck. A
// check with no subject at all gets the cluster as its one subject.
func checkSubjects(r diagnose.Report, check diagnose.Check, findings []diagnose.Finding) []ciSubject {
	byRef := map[string]*ciSubject{}
	add := func(ref, skipped string) *ciSubject {
		if s := byRef[ref]; s != nil {
			return s
		}
		s := &ciSubject{ref: ref, skipped: skipped}
		byRef[ref] = s
		return s
	}
	for _, kind := range check.Examines {
		for _, ref := range reportSubjects(r, kind) {
			add(ref, "")
		}
		if kind == diagnose.SubjectNode {
			for _, n := range r.Nodes {
				add(nodeRefOf(n), "").skipped = nodeSkipped(n, check.ID)
			}
		}
	}
	for _, f := range findings {
		s := add(inContext(f.Context, f.Subject()), "")
		s.skipped = ""
		s.findings = append(s.findings, f)
	}
	if len(byRef) == 0 {
		add(clusterSubject, "")
	}
	out := make([]ciSubject, 0, len(byRef))
	for _, s := range byRef {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b ciSubject) int { return strings.Compare(a.ref, b.ref) })
	return out
}

// deletingNodesCheck is the one check that looks at nodes being deleted.
const deletingNodesCheck = "node-termination-stuck"

// nodeSkipped says why a check did not look at node n: it is not EC2, or it is being deleted
// (only node-termination-stuck looks at those); empty when the check looked at it.
func nodeSkipped(n diagnose.NodeReport, check string) string {
	reason := cmp.Or(n.Lifecycle.Reason, n.Identity.Skipped)
	switch {
	case n.Status == diagnose.StatusSkipped || n.Lifecycle.State == string(diagnose.StateSkipped):
		return cmp.Or(reason, "not an EC2 node")
	case check == deletingNodesCheck:
		return ""
	case n.Lifecycle.State == string(diagnose.StateTerminating) || n.Lifecycle.State == string(diagnose.StateTerminationStuck):
		return "the node is being deleted: " + cmp.Or(reason, "deletionTimestamp set")
	}
	return ""
}

// nodeRefOf returns the subject of node report n, node/NAME (in a report over several
// clusters, with its context: see inContext).
func nodeRefOf(n diagnose.NodeReport) string { return inContext(n.Context, "node/"+n.Identity.Node) }

// contextSep separates a subject's cluster from the subject in a CI report over several
// clusters: "prod-use1: node/NAME". Context names may hold '/' and ':' (an EKS ARN), never
// ": " followed by a subject kind.
const contextSep = ": "

// inContext returns ref as a CI report over several clusters names it: prefixed with its
// context; ref itself in a single cluster's report.
func inContext(context, ref string) string {
	if context == "" {
		return ref
	}
	return context + contextSep + ref
}

// reportSubjects returns the subjects of kind that r lists, other than its nodes.
func reportSubjects(r diagnose.Report, kind string) []string {
	var out []string
	switch kind {
	case diagnose.SubjectSubnet:
		for _, s := range r.Subnets {
			out = append(out, inContext(s.Context, "subnet/"+s.ID))
		}
	case diagnose.SubjectNodeClass:
		for _, n := range r.Nodes {
			out = appendClass(out, n.Context, n.Identity.NodeClassKind, n.Identity.NodeClass)
		}
		for _, c := range r.NodeClaims {
			out = appendClass(out, c.Context, c.NodeClassKind, c.NodeClass)
		}
		for _, s := range r.Subnets {
			for _, name := range s.NodeClasses {
				if strings.Contains(name, "/") {
					out = append(out, inContext(s.Context, name))
				} else {
					out = appendClass(out, s.Context, "", name)
				}
			}
		}
	case diagnose.SubjectNodePool:
		for _, n := range r.Nodes {
			out = appendNonEmpty(out, n.Context, "nodepool/", n.Identity.NodePool)
		}
		for _, c := range r.NodeClaims {
			out = appendNonEmpty(out, c.Context, "nodepool/", c.NodePool)
		}
	case diagnose.SubjectNodeClaim:
		for _, c := range r.NodeClaims {
			out = append(out, inContext(c.Context, "nodeclaim/"+c.Name))
		}
	case diagnose.SubjectPlacementGroup:
		for _, n := range r.Nodes {
			if p := n.Placement; p != nil {
				out = appendNonEmpty(out, n.Context, "placementgroup/", cmp.Or(p.GroupName, p.GroupID))
			}
		}
	}
	return out
}

// appendClass appends a class's subject, in context: nodeclass/NAME for an Auto Mode NodeClass (kind
// NodeClass), else ec2nodeclass/NAME; nothing without a name.
func appendClass(out []string, context, kind, name string) []string {
	if name == "" {
		return out
	}
	if kind == "" {
		kind = "EC2NodeClass"
	}
	return append(out, inContext(context, strings.ToLower(kind)+"/"+name))
}

// appendNonEmpty appends prefix+name, in context, when name is set.
func appendNonEmpty(out []string, context, prefix, name string) []string {
	if name == "" {
		return out
	}
	return append(out, inContext(context, prefix+name))
}

// findingsByCheck groups r's findings by check ID, keeping their order.
func findingsByCheck(r diagnose.Report) map[string][]diagnose.Finding {
	out := map[string][]diagnose.Finding{}
	for _, f := range r.Findings {
		out[f.ID] = append(out[f.ID], f)
	}
	return out
}

// findingText is a finding as CI reports show it in full: severity and message, then the remedy.
func findingText(f diagnose.Finding) string {
	s := fmt.Sprintf("%s: %s", f.Severity, f.Message)
	if f.Remedy != "" {
		s += "\nremedy: " + f.Remedy
	}
	if cmds := f.RemedyCommands(); cmds != "" {
		s += "\n" + cmds
	}
	return s
}
