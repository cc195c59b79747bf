package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// CatalogueMarkdown writes the checks as the catalogue table of docs/checks.md: one row per check with
// its ID, severities, when it fires, what it does not fire on, why it matters and the remedy, with
// what the remedy's commands change where they change objects other nodes share, and the sources
// without which the check is not run (Spec.Needs).
func CatalogueMarkdown(w io.Writer, checks []diagnose.Check) error {
	var b strings.Builder
	b.WriteString("| id | severity | fires when | does not fire on | why it matters | remedy |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, c := range checks {
		var sev []string
		for _, s := range c.Severities() {
			sev = append(sev, s.String())
		}
		remedy := c.Remedy
		if c.Scope != "" {
			remedy += ". *What the commands change:* " + c.Scope
		}
		notOn := c.NotOn
		if len(c.Needs) > 0 {
			needs := "*Not run without* `" + strings.Join(c.Needs, "`, `") + "`"
			if notOn != "" {
				needs = notOn + ". " + needs
			}
			notOn = needs
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", c.ID, strings.Join(sev, " / "),
			cell(c.FiresWhen), cell(notOn), cell(c.Why), cell(remedy))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell makes text safe in a Markdown table cell: pipes escaped, no line breaks, "-" for none.
func cell(text string) string {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\n", " "))
	if text == "" {
		return "-"
	}
	return strings.ReplaceAll(text, "|", `\|`)
}

// LedgerMarkdown writes the ledger of docs/checks.md: each upstream project with its repository,
// the version every check's rules were verified against, and how many checks name a file of it;
// then the release facts that checks compare versions with.
func LedgerMarkdown(w io.Writer, checks []diagnose.Check) error {
	uses := map[diagnose.Upstream]int{}
	for _, c := range checks {
		seen := map[diagnose.Upstream]bool{}
		for _, v := range c.Verified {
			if !seen[v.Project] {
				seen[v.Project] = true
				uses[v.Project]++
			}
		}
	}
	var b strings.Builder
	b.WriteString("| upstream | repository | verified at | checks |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, p := range diagnose.Ledger() {
		fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", p.Project, p.Repository, p.Version, uses[p.Project])
	}
	b.WriteString("\nThe release facts checks compare a cluster's images with, each read at the tag named:\n\n")
	b.WriteString("| upstream | from release | file (tag) | fact |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, f := range diagnose.VersionFacts() {
		fmt.Fprintf(&b, "| %s | %s | %s (%s) | %s |\n", f.Project, f.Since, f.File, f.Read, f.Fact)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
