package printer

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// ListKind is the kind of the object `describe` writes as JSON or YAML for more than one
// subject: {"kind": "List", "apiVersion": ..., "items": [...]}.
const ListKind = "List"

// sheetList is the JSON and YAML shape of several sheets.
type sheetList[T any] struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Items      []T    `json:"items"`
}

// printSheets writes sheets to w in format f: each rendered by render as text, a blank line
// between them; as JSON or YAML the one sheet itself, or a List of them. what names the
// sheets in errors.
func printSheets[T any](w io.Writer, sheets []T, f Format, st *style.Styles, what string, render func(*text, T)) error {
	switch {
	case f == JSON || f == YAML:
		if len(sheets) == 1 {
			return writeObject(w, sheets[0], f)
		}
		return writeObject(w, sheetList[T]{Kind: ListKind, APIVersion: sheet.SheetAPIVersion, Items: nonNil(sheets)}, f)
	case !f.text():
		_, err := ParseFormat(string(f))
		if err == nil {
			err = fmt.Errorf("unsupported output format %q", f)
		}
		return err
	}
	if _, err := io.WriteString(w, sheetsText(sheets, 0, false, st, render)); err != nil {
		return fmt.Errorf("writing the %s: %w", what, err)
	}
	return nil
}

// sheetsText renders sheets as text whose lines fit width columns (at least 40; zero or less
// means st's Width, and that zero Width), their strings escaped as PrintReport does; screen
// wraps long commands and leaves out the "See also" section, for a view that cuts lines at its
// edge and lists a sheet's References as links of its own.
func sheetsText[T any](sheets []T, width int, screen bool, st *style.Styles, render func(*text, T)) string {
	t := newText(st, width)
	t.screen, t.links = screen, screen
	for i, sh := range sheets {
		if i > 0 {
			t.blank()
		}
		render(t, style.PrintableCopy(sh))
	}
	return t.b.String()
}

// subjectTitle writes a sheet's title line: ref and the badge of the worst finding, or ok.
func subjectTitle(t *text, ref string, list []diagnose.Finding) {
	status := style.LevelOK
	if worst, ok := diagnose.Worst(list); ok {
		status = worst.String()
	}
	title, badge := t.st.Title.Render(ref), t.st.Level(status).Badge()
	if width(title)+2+width(badge) <= t.limit() {
		t.line(title + "  " + badge)
		return
	}
	t.para(0, ref)
	t.para(0, ansi.Strip(badge))
}

// membersSection writes the nodes and NodeClaims without a Node of a subject, each as a
// kind/name line with its status, then its instance, zone, subnet, IP and, when partitions,
// partition; none says what an empty list means.
func membersSection(t *text, title string, list []sheet.Member, none string, partitions bool) {
	t.header(title)
	if len(list) == 0 {
		t.para(indent, none)
		return
	}
	for _, m := range list {
		t.hanging(indent, t.st.Strong.Render(m.Kind+"/"+m.Name)+"  ", orUnknown(m.Status))
		inst := "instance " + orUnknown(m.InstanceID)
		if m.InstanceState != "" {
			inst += " (" + m.InstanceState + ")"
		}
		parts := []string{inst, "zone " + orUnknown(m.Zone), firstOf(m.SubnetID, "subnet unknown"), "IP " + orUnknown(m.PrivateIP)}
		if partitions {
			parts = append(parts, "partition "+partitionText(m.Partition))
		}
		t.para(indent+4, strings.Join(parts, ", "))
	}
}

// partitionText renders a partition number, "unknown" for 0.
func partitionText(p int32) string {
	if p == 0 {
		return "unknown"
	}
	return strconv.Itoa(int(p))
}

// conditionsSection writes Kubernetes status conditions, one per line with reason and message.
func conditionsSection(t *text, list []snapshot.Condition) {
	t.header("Conditions")
	if len(list) == 0 {
		t.para(indent, "none written yet")
		return
	}
	tw, sw := 0, 0
	for _, cd := range list {
		tw, sw = max(tw, min(width(cd.Type), maxColumn)), max(sw, min(width(cd.Status), maxColumn))
	}
	for _, cd := range list {
		head := pad(t.st.Strong.Render(cd.Type), tw) + "  " + pad(orUnknown(cd.Status), sw) + "  "
		t.hanging(indent, head, cd.Reason)
		if cd.Message != "" {
			t.para(indent+4, cd.Message)
		}
	}
}

// terms renders selector terms as "id subnet-1; tags a=b, c=d; name x", "none" when empty.
func terms(list []snapshot.SelectorTerm) string {
	if len(list) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(list))
	for _, term := range list {
		var p []string
		if term.ID != "" {
			p = append(p, "id "+term.ID)
		}
		if term.Name != "" {
			p = append(p, "name "+term.Name)
		}
		if len(term.Tags) > 0 {
			keys := make([]string, 0, len(term.Tags))
			for k := range term.Tags {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			tags := make([]string, len(keys))
			for i, k := range keys {
				tags[i] = k + "=" + term.Tags[k]
			}
			p = append(p, "tags "+strings.Join(tags, ", "))
		}
		parts = append(parts, orNone(strings.Join(p, " ")))
	}
	return strings.Join(parts, "; ")
}

// subjectFindings writes the findings of subject ref with their remedies, naming each finding's
// node and, for one ref inherits (Finding.Inherits), the resource it is on.
func subjectFindings(t *text, ref string, list []diagnose.Finding) {
	t.header("Findings")
	if len(list) == 0 {
		t.line(strings.Repeat(" ", indent) + t.st.OK.Mark() + " none")
		return
	}
	for _, f := range list {
		var subj []string
		if f.Node != "" {
			subj = append(subj, "node/"+escapeNewlines(f.Node))
		}
		if f.Inherits(ref) {
			// A finding the subject inherits names what it is on: the class of a NodePool, the
			// interface in a subnet.
			subj = append(subj, "through "+escapeNewlines(f.Resource))
		}
		finding(t, indent, f, strings.Join(subj, "  "), true)
	}
}

// references writes the describe commands that open the subjects a sheet names (its
// References), unless the text is for a view that lists them as links (text.links).
func references(t *text, refs sheet.References) {
	list := refs.All()
	if len(list) == 0 || t.links {
		return
	}
	t.header("See also (describe KIND NAME)")
	for _, l := range pack(list, "  ", t.limit()-indent) {
		t.para(indent, l)
	}
}
