package printer

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// claimStatuses returns the statuses of NodeClaims without a Node in the order the summary
// line counts them.
func claimStatuses() []string {
	return []string{
		diagnose.ClaimLaunchFailed, diagnose.ClaimNotRegistered, diagnose.ClaimLaunching,
		diagnose.ClaimRegistering, diagnose.ClaimNodeDeleted, diagnose.ClaimDeleting,
	}
}

// claimSummary returns the summary line's parts on NodeClaims without a Node: "2 NodeClaims not
// joined (1 launch failed, 1 not registered)" for the failures to join, then "1 more without a
// Node (1 launching)" (or "1 NodeClaim without a Node (…)" when none failed) for the rest;
// nothing when s counts none. The counts by status are the summary's; for a summary made
// without them they come from claims, and are left out when claims does not add up to s.
func claimSummary(st *style.Styles, s diagnose.Summary, claims []diagnose.NodeClaimReport) []string {
	if s.NodeClaimsWithoutNode == 0 {
		return nil
	}
	byStatus := map[string]int{}
	worst, failed := diagnose.Info, false
	for _, c := range claims {
		byStatus[c.Status]++
		if w, ok := diagnose.Worst(c.Findings); ok && isNotJoined(c.Status) {
			worst, failed = max(worst, w), true
		}
	}
	exact := len(claims) == s.NodeClaimsWithoutNode
	if s.NodeClaimsByStatus != nil {
		byStatus, exact = s.NodeClaimsByStatus, true
	}
	breakdown := func(joined bool) string {
		if !exact {
			return ""
		}
		var parts []string
		for _, status := range claimStatuses() {
			if n := byStatus[status]; n > 0 && isNotJoined(status) == !joined {
				parts = append(parts, fmt.Sprintf("%d %s", n, status))
			}
		}
		return " (" + strings.Join(parts, ", ") + ")"
	}
	var out []string
	if n := s.NodeClaimsNotJoined; n > 0 {
		txt := fmt.Sprintf("%d %s not joined%s", n, claimNoun(n), breakdown(false))
		if failed {
			txt = st.Level(worst.String()).Style.Render(txt)
		}
		out = append(out, txt)
	}
	if n := s.NodeClaimsWithoutNode - s.NodeClaimsNotJoined; n > 0 {
		if len(out) > 0 {
			out = append(out, fmt.Sprintf("%d more without a Node%s", n, breakdown(true)))
		} else {
			out = append(out, fmt.Sprintf("%d %s without a Node%s", n, claimNoun(n), breakdown(true)))
		}
	}
	return out
}

// isNotJoined reports whether a NodeClaim status is a failure to join.
func isNotJoined(status string) bool {
	return status == diagnose.ClaimLaunchFailed || status == diagnose.ClaimNotRegistered
}

// claimNoun is "NodeClaim" or "NodeClaims" for n of them.
func claimNoun(n int) string {
	if n == 1 {
		return "NodeClaim"
	}
	return "NodeClaims"
}
