package diagnose

import (
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/report"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/view"
)

// Options choose what Analyze reports.
type Options struct {
	// Nodes limits node reports and node findings to these names; nil means every node.
	Nodes map[string]bool
	// Resources adds resource findings (kind/name) to a selection, e.g. nodepool/default
	// for --nodepool. Findings on resources used by selected nodes are always kept.
	Resources map[string]bool
	// Only runs just these check IDs; Skip leaves these out.
	Only []string
	Skip []string
}

// NotRun and SubnetUse are the report's checks not run and subnets (pkg/diagnose/view).
type (
	NotRun    = view.NotRun
	SubnetUse = view.SubnetUse
)

// The report and its findings (pkg/diagnose/report), named here for the checks that make
// them and the views that read them.
type (
	Report          = report.Report
	NodeReport      = report.NodeReport
	NodeClaimReport = report.NodeClaimReport
	ClaimInstance   = report.ClaimInstance
	ClusterReport   = report.ClusterReport
	Summary         = report.Summary
	Finding         = report.Finding
	FindingKey      = report.FindingKey
	Severity        = report.Severity
	Command         = report.Command
)

// Report kind and API version: the JSON/YAML output is a public interface.
const (
	ReportKind       = report.ReportKind
	ReportAPIVersion = report.ReportAPIVersion
)

// The severities, from least to most severe. The zero value is no severity: a check's Run
// leaves a finding's severity unset when it is the check's own.
const (
	severityUnset Severity = 0
	Info                   = report.Info
	Warning                = report.Warning
	Critical               = report.Critical
)

// The NodeReport statuses besides a severity name: a node without findings is ok,
// initialising or terminating; a node that is not EC2 is skipped. A cluster whose API server
// could not be read at all is unreachable.
const (
	StatusOK           = report.StatusOK
	StatusSkipped      = report.StatusSkipped
	StatusInitialising = report.StatusInitialising
	StatusTerminating  = report.StatusTerminating
	StatusUnreachable  = report.StatusUnreachable
)

// The statuses of a NodeClaim without a Node, as NodeClaimReport.Status carries them.
const (
	ClaimLaunchFailed  = report.ClaimLaunchFailed
	ClaimLaunching     = report.ClaimLaunching
	ClaimRegistering   = report.ClaimRegistering
	ClaimNotRegistered = report.ClaimNotRegistered
	ClaimNodeDeleted   = report.ClaimNodeDeleted
	ClaimDeleting      = report.ClaimDeleting
)

// DataUnavailableID is the ID of the check that turns every Gap into a finding.
const DataUnavailableID = report.DataUnavailableID

// ParseSeverity parses "info", "warning" or "critical", in any case.
func ParseSeverity(name string) (Severity, error) { return report.ParseSeverity(name) }

// Worst returns the most severe severity among findings, and false when there are none.
func Worst(findings []Finding) (Severity, bool) { return report.Worst(findings) }

// NodeStatuses returns every node status, in the order views print them: the checked
// statuses from ok to critical, then skipped.
func NodeStatuses() []string { return report.NodeStatuses() }

// ShellJoin renders argv for a POSIX shell, each argument quoted by ShellQuote.
func ShellJoin(argv []string) string { return report.ShellJoin(argv) }

// ShellQuote quotes s for a POSIX shell (report.ShellQuote).
func ShellQuote(s string) string { return report.ShellQuote(s) }

// newSummary returns a Summary with every status and severity counted at zero.
func newSummary() Summary { return report.NewSummary() }
