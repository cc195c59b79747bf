package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// demoInfoMessages are from the messages of the demo's info findings (nodeclaim-drifted,
// max-pods-below-ip-capacity); JUnit and SARIF name every check that ran, so the test looks for
// the findings themselves.
var demoInfoMessages = []string{"NodeClaim general-kdbmg is Drifted=True", "so it could run 250 pods"}

// TestCheckMinSeverity: --min-severity lists only the findings at or above it, in every
// format; the summary still counts every finding, and the text line says how many it leaves
// out; info, the default, lists them all.
func TestCheckMinSeverity(t *testing.T) {
	all := run(t, "demo", "check")
	same := run(t, "demo", "check", "--min-severity", "info")
	if all.stdout != same.stdout || all.code != same.code {
		t.Errorf("--min-severity info differs from the default")
	}
	for _, format := range []string{"table", "wide", "json", "yaml", "junit", "sarif"} {
		t.Run(format, func(t *testing.T) {
			r := run(t, "demo", "check", "--min-severity", "warning", "-o", format)
			wantCode(t, r, ExitFindings)
			for _, m := range demoInfoMessages {
				if strings.Contains(r.stdout, m) {
					t.Errorf("-o %s --min-severity warning lists the info finding %q", format, m)
				}
				if !strings.Contains(run(t, "demo", "check", "-o", format).stdout, m) {
					t.Errorf("-o %s without --min-severity lacks the info finding %q", format, m)
				}
			}
			for _, id := range []string{"subnet-ip-exhaustion", "instance-type-mismatch"} {
				if !strings.Contains(r.stdout, id) {
					t.Errorf("-o %s --min-severity warning lacks %s", format, id)
				}
			}
		})
	}
	r := run(t, "demo", "check", "--min-severity", "warning")
	if want := "findings: 11 critical, 8 warning, 4 info (4 info not listed)"; !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
		t.Errorf("summary line lacks %q:\n%s", want, r.stdout)
	}
	for _, format := range []string{"json", "yaml"} {
		r := run(t, "demo", "check", "--min-severity", "critical", "-o", format)
		b := []byte(r.stdout)
		if format == "yaml" {
			var err error
			if b, err = yaml.YAMLToJSON(b); err != nil {
				t.Fatal(err)
			}
		}
		var rep diagnose.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		if len(rep.Findings) != 11 || rep.Summary.Findings["warning"] != 8 || rep.Summary.Findings["info"] != 4 {
			t.Errorf("-o %s: %d findings listed, summary %v", format, len(rep.Findings), rep.Summary.Findings)
		}
		for _, n := range rep.Nodes {
			for _, f := range n.Findings {
				if f.Severity != diagnose.Critical {
					t.Errorf("-o %s: node %s lists %s %s", format, n.Identity.Node, f.Severity, f.ID)
				}
			}
		}
	}
}

// TestCheckMinSeverityFailOn: --fail-on judges every finding, listed or not; a bad value is a
// usage error.
func TestCheckMinSeverityFailOn(t *testing.T) {
	r := run(t, "demo", "check", "--only", "instance-type-mismatch", "--min-severity", "critical", "--fail-on", "warning")
	wantCode(t, r, ExitFindings)
	if !strings.Contains(r.stdout, "(1 warning not listed)") {
		t.Errorf("the hidden warning that fails the run is not said:\n%s", r.stdout)
	}
	r = run(t, "demo", "check", "--min-severity", "warn")
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, `--min-severity "warn": use critical, warning or info`) {
		t.Errorf("stderr: %q", r.stderr)
	}
}
