package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// CheckDoc is a check's catalogue entry as `explain` prints it in JSON and YAML.
type CheckDoc struct {
	ID         string   `json:"id"`
	Severities []string `json:"severities"`
	Family     string   `json:"family"`
	Title      string   `json:"title"`
	FiresWhen  string   `json:"firesWhen"`
	NotOn      string   `json:"notOn,omitempty"`
	Why        string   `json:"why"`
	Remedy     string   `json:"remedy"`
	// Scope says which shared objects the remedy's commands change and whom they reach.
	Scope   string   `json:"scope,omitempty"`
	Sources []string `json:"sources"`
	// Needs lists the snapshot sources without which the check is not run (Report.NotRun).
	Needs []string `json:"needs,omitempty"`
	// Verified lists the upstream files, at the ledger's pinned versions, the check's rules were
	// read in.
	Verified []VerifiedDoc `json:"verified,omitempty"`
}

// VerifiedDoc is one upstream file a check was verified against, at the ledger's version.
type VerifiedDoc struct {
	Project    string `json:"project"`
	Repository string `json:"repository"`
	Version    string `json:"version"`
	File       string `json:"file"`
	Fact       string `json:"fact"`
}

// String is the entry as one line: "REPOSITORY VERSION FILE: FACT".
func (v VerifiedDoc) String() string {
	return v.Repository + " " + v.Version + " " + v.File + ": " + v.Fact
}

// Docs returns the catalogue entries of checks.
func Docs(checks []diagnose.Check) []CheckDoc {
	out := make([]CheckDoc, 0, len(checks))
	for _, c := range checks {
		d := CheckDoc{ID: c.ID, Family: string(c.Family), Title: c.Title, FiresWhen: c.FiresWhen, NotOn: c.NotOn,
			Why: c.Why, Remedy: c.Remedy, Scope: c.Scope, Sources: append([]string{}, c.Sources...),
			Needs: slices.Clone(c.Needs)}
		for _, s := range c.Severities() {
			d.Severities = append(d.Severities, s.String())
		}
		for _, v := range c.Verified {
			pin, _ := diagnose.PinOf(v.Project)
			d.Verified = append(d.Verified, VerifiedDoc{Project: string(v.Project), Repository: pin.Repository,
				Version: pin.Version, File: v.File, Fact: v.Fact})
		}
		out = append(out, d)
	}
	return out
}

// ExplainFormat is an output format of `explain`.
type ExplainFormat string

// The formats of `explain`.
const (
	ExplainText     ExplainFormat = "text"
	ExplainJSON     ExplainFormat = "json"
	ExplainYAML     ExplainFormat = "yaml"
	ExplainMarkdown ExplainFormat = "markdown"
)

// PrintExplain writes what each check means in format: in text, a sheet per check that fits
// Width columns; in Markdown, a section per check.
func PrintExplain(w io.Writer, checks []diagnose.Check, format ExplainFormat, st *style.Styles) error {
	docs := Docs(checks)
	switch format {
	case ExplainJSON:
		b, err := json.MarshalIndent(emptyLists(docs), "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case ExplainYAML:
		b, err := yaml.Marshal(emptyLists(docs))
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case ExplainMarkdown:
		var b strings.Builder
		for i, d := range docs {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "### `%s`\n\n%s (%s, %s)\n\n", d.ID, d.Title, strings.Join(d.Severities, " / "), d.Family)
			for _, f := range docFields(d) {
				fmt.Fprintf(&b, "- **%s** %s\n", f[0]+":", f[1])
			}
			if len(d.Sources) > 0 {
				b.WriteString("- **Sources:**\n")
				for _, s := range d.Sources {
					fmt.Fprintf(&b, "  - %s\n", s)
				}
			}
			if len(d.Verified) > 0 {
				b.WriteString("- **Verified against:**\n")
				for _, v := range d.Verified {
					fmt.Fprintf(&b, "  - %s %s `%s`: %s\n", v.Repository, v.Version, v.File, v.Fact)
				}
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	var b strings.Builder
	for i, d := range docs {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(ExplainSheet(d, Width, st))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ExplainSheet renders one check's entry as text of at most width columns: its ID, severities,
// family and title, then each field wrapped under its label. The TUI shows the same sheet.
func ExplainSheet(d CheckDoc, width int, st *style.Styles) string {
	var b strings.Builder
	b.WriteString(st.Title.Render(d.ID) + "  " + strings.Join(d.Severities, " / ") + "  " + d.Family + "\n")
	for _, line := range wrap(plainMarkdown(d.Title), width) {
		b.WriteString(line + "\n")
	}
	const indent = "  "
	for _, f := range docFields(d) {
		b.WriteString("\n" + st.Label.Render(f[0]) + "\n")
		for _, line := range wrap(plainMarkdown(f[1]), width-len(indent)) {
			b.WriteString(indent + line + "\n")
		}
	}
	writeList(&b, st.Label.Render("Sources"), d.Sources, width)
	var verified []string
	for _, v := range d.Verified {
		verified = append(verified, v.String())
	}
	writeList(&b, st.Label.Render("Verified against"), verified, width)
	return b.String()
}

// writeList writes a labelled list of items, each wrapped to width under a "- ".
func writeList(b *strings.Builder, label string, items []string, width int) {
	if len(items) == 0 {
		return
	}
	const indent = "  "
	b.WriteString("\n" + label + "\n")
	for _, s := range items {
		for j, line := range wrap(plainMarkdown(s), width-4) {
			lead := indent + "- "
			if j > 0 {
				lead = indent + "  "
			}
			b.WriteString(lead + line + "\n")
		}
	}
}

// docFields are the labelled texts of an entry, in the order they are shown.
func docFields(d CheckDoc) [][2]string {
	fields := [][2]string{{"Fires when", d.FiresWhen}}
	if d.NotOn != "" {
		fields = append(fields, [2]string{"Does not fire on", d.NotOn})
	}
	fields = append(fields, [2]string{"Why it matters", d.Why}, [2]string{"Remedy", d.Remedy})
	if d.Scope != "" {
		fields = append(fields, [2]string{"What the commands change", d.Scope})
	}
	if len(d.Needs) > 0 {
		what := "it"
		if len(d.Needs) > 1 {
			what = "one of them"
		}
		fields = append(fields, [2]string{"Needs", "`" + strings.Join(d.Needs, "`, `") +
			"`: the check is not run when karpnet could not read " + what + " (the report lists it under not run)"})
	}
	return fields
}

// plainMarkdown drops the backticks of Markdown code spans for the terminal.
func plainMarkdown(s string) string { return strings.ReplaceAll(s, "`", "") }
