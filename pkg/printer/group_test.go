package printer

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestLeakedENIsGrouped: text output shows three eni-leaked findings in full and names the
// rest in one line; wide shows each with its remedy; four or fewer are never grouped.
func TestLeakedENIsGrouped(t *testing.T) {
	report := func(n int) diagnose.Report {
		r := diagnose.Report{Findings: []diagnose.Finding{{ID: "subnet-ip-exhaustion", Severity: diagnose.Critical,
			Resource: "subnet/subnet-0a", Message: "full"}}}
		for i := range n {
			r.Findings = append(r.Findings, diagnose.Finding{ID: "eni-leaked", Severity: diagnose.Warning,
				Resource: fmt.Sprintf("eni/eni-%d", i), Message: fmt.Sprintf("eni-%d is available", i),
				Remedy: fmt.Sprintf("aws ec2 delete-network-interface --network-interface-id eni-%d", i)})
		}
		return r
	}
	render := func(r diagnose.Report, f Format) string {
		var b bytes.Buffer
		if err := PrintReport(&b, r, f, nil); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	got := strings.Join(strings.Fields(render(report(6), Table)), " ")
	for i := range 3 {
		if !strings.Contains(got, fmt.Sprintf("eni-%d is available", i)) {
			t.Errorf("text lacks finding %d in full:\n%s", i, got)
		}
	}
	if strings.Contains(got, "eni-3 is available") {
		t.Errorf("text shows the fourth finding in full:\n%s", got)
	}
	if !strings.Contains(got, "... and 3 more eni-leaked findings: eni/eni-3, eni/eni-4, eni/eni-5 (-o wide shows each with its remedy)") {
		t.Errorf("text lacks the line naming the rest:\n%s", got)
	}
	if !strings.Contains(got, "full") {
		t.Errorf("text lost the other finding:\n%s", got)
	}
	wide := render(report(6), Wide)
	if strings.Contains(wide, "more eni-leaked") || !strings.Contains(wide, "--network-interface-id eni-5") {
		t.Errorf("wide groups or lacks a remedy:\n%s", wide)
	}
	if four := render(report(4), Table); strings.Contains(four, "more eni-leaked") || !strings.Contains(four, "eni-3 is available") {
		t.Errorf("four findings are grouped:\n%s", four)
	}
}

// TestGroupingFollowsTheSpec: text output groups the findings of exactly the checks whose Spec
// says Grouped (eni-leaked among them), whatever their ID.
func TestGroupingFollowsTheSpec(t *testing.T) {
	groupedIDs := 0
	for _, c := range diagnose.Checks() {
		var r diagnose.Report
		for i := range groupAfter + 3 {
			r.Findings = append(r.Findings, diagnose.Finding{ID: c.ID, Severity: c.Severity,
				Resource: fmt.Sprintf("subnet/subnet-%d", i), Message: fmt.Sprintf("finding %d", i)})
		}
		var b bytes.Buffer
		if err := PrintReport(&b, r, Table, nil); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "more "+c.ID+" findings"); got != c.Spec.Grouped {
			t.Errorf("%s: grouped %v, want Spec.Grouped %v:\n%s", c.ID, got, c.Spec.Grouped, b.String())
		}
		if c.Spec.Grouped {
			groupedIDs++
		}
	}
	if spec, ok := diagnose.SpecOf("eni-leaked"); !ok || !spec.Grouped || groupedIDs == 0 {
		t.Error("eni-leaked's Spec does not say Grouped")
	}
}
