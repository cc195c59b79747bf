package report

import (
	"maps"
)

// Summary is the one set of counts every view prints: the text summary line, the TUI header,
// the JSON and YAML summary and serve's karpnet_nodes. The nodes the report lists (nodes[]) are
// Listed; each has one status, and Statuses counts them by it, so its values add up to Listed.
// Nodes (the checked nodes) is Listed less Skipped.
type Summary struct {
	// Listed is the number of nodes in the report's nodes[]: those checked and those skipped.
	Listed int `json:"listed"`
	// Statuses counts the listed nodes by status (NodeStatuses): every listed node in exactly
	// one, so the counts add up to Listed.
	Statuses map[string]int `json:"statuses"`
	// Nodes is the number of nodes checked: Listed less Skipped.
	Nodes int `json:"nodes"`
	// Clean counts the checked nodes without findings (statuses ok, initialising and
	// terminating); WithInfo, WithWarnings and WithCritical those whose worst finding has that
	// severity.
	Clean        int `json:"clean"`
	WithInfo     int `json:"withInfo"`
	WithWarnings int `json:"withWarnings"`
	WithCritical int `json:"withCritical"`
	// Skipped counts nodes that are not EC2 instances (Fargate, EKS hybrid nodes, other
	// providers) and EC2 nodes of a Region EC2 could not be read in; SkippedBy counts them by
	// kind: fargate, hybrid, other, ec2-unread.
	Skipped   int            `json:"skipped"`
	SkippedBy map[string]int `json:"skippedBy,omitempty"`
	// Terminating and Initialising count the checked nodes being deleted and those inside
	// their start-up grace, whatever their findings.
	Terminating  int `json:"terminating,omitempty"`
	Initialising int `json:"initialising,omitempty"`
	// NodeClaimsWithoutNode counts the report's NodeClaims that have no Node, and
	// NodeClaimsNotJoined those of them whose launch failed or that never registered;
	// NodeClaimsByStatus counts them by status (launch failed, not registered, launching...).
	NodeClaimsWithoutNode int            `json:"nodeClaimsWithoutNode,omitempty"`
	NodeClaimsNotJoined   int            `json:"nodeClaimsNotJoined,omitempty"`
	NodeClaimsByStatus    map[string]int `json:"nodeClaimsByStatus,omitempty"`
	// Findings counts all findings by severity name.
	Findings map[string]int `json:"findings"`
}

// NodeStatuses returns every node status, in the order views print them: the checked
// statuses from ok to critical, then skipped.
func NodeStatuses() []string {
	return []string{StatusOK, StatusInitialising, StatusTerminating, Info.String(), Warning.String(), Critical.String(), StatusSkipped}
}

// NewSummary returns a Summary with every status and severity counted at zero.
func NewSummary() Summary {
	s := Summary{Statuses: map[string]int{}, Findings: map[string]int{}}
	for _, st := range NodeStatuses() {
		s.Statuses[st] = 0
	}
	for sev := Info; sev <= Critical; sev++ {
		s.Findings[sev.String()] = 0
	}
	return s
}

// CountNode counts one listed node of status st; compute is its kind when skipped, and
// terminating and initialising its lifecycle, counted whatever its findings.
func (s *Summary) CountNode(st, compute string, terminating, initialising bool) {
	s.Listed++
	s.Statuses[st]++
	switch st {
	case StatusSkipped:
		s.Skipped++
		if s.SkippedBy == nil {
			s.SkippedBy = map[string]int{}
		}
		s.SkippedBy[compute]++
		return
	case StatusOK, StatusInitialising, StatusTerminating:
		s.Clean++
	case Info.String():
		s.WithInfo++
	case Warning.String():
		s.WithWarnings++
	default:
		s.WithCritical++
	}
	s.Nodes++
	if terminating {
		s.Terminating++
	}
	if initialising {
		s.Initialising++
	}
}

// CountClaim counts one NodeClaim without a Node of status st.
func (s *Summary) CountClaim(st string) {
	s.NodeClaimsWithoutNode++
	if ClaimNotJoined(st) {
		s.NodeClaimsNotJoined++
	}
	if s.NodeClaimsByStatus == nil {
		s.NodeClaimsByStatus = map[string]int{}
	}
	s.NodeClaimsByStatus[st]++
}

// Add returns s with every count of b added.
func (s Summary) Add(b Summary) Summary {
	s.Listed += b.Listed
	s.Nodes += b.Nodes
	s.Clean += b.Clean
	s.WithInfo += b.WithInfo
	s.WithWarnings += b.WithWarnings
	s.WithCritical += b.WithCritical
	s.Skipped += b.Skipped
	s.Terminating += b.Terminating
	s.Initialising += b.Initialising
	s.NodeClaimsWithoutNode += b.NodeClaimsWithoutNode
	s.NodeClaimsNotJoined += b.NodeClaimsNotJoined
	s.SkippedBy = addCounts(s.SkippedBy, b.SkippedBy)
	s.Statuses = addCounts(s.Statuses, b.Statuses)
	s.NodeClaimsByStatus = addCounts(s.NodeClaimsByStatus, b.NodeClaimsByStatus)
	s.Findings = addCounts(s.Findings, b.Findings)
	return s
}

// addCounts returns a copy of a with b's counts added; nil when both are nil.
func addCounts(a, b map[string]int) map[string]int {
	if a == nil && b == nil {
		return nil
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]int{}
	}
	for k, v := range b {
		out[k] += v
	}
	return out
}

// ByStatus returns Statuses, or for a Summary made without them (a report built by hand, or
// by an older karpnet) the counts its other fields give: clean nodes as ok.
func (s Summary) ByStatus() map[string]int {
	if s.Statuses != nil {
		return s.Statuses
	}
	out := NewSummary().Statuses
	out[StatusOK], out[Info.String()], out[Warning.String()] = s.Clean, s.WithInfo, s.WithWarnings
	out[Critical.String()], out[StatusSkipped] = s.WithCritical, s.Skipped
	return out
}

// Total returns the nodes the summary counts: Listed, or for a Summary made without it the
// checked and skipped nodes.
func (s Summary) Total() int {
	if s.Statuses != nil {
		return s.Listed
	}
	return s.Nodes + s.Skipped
}
