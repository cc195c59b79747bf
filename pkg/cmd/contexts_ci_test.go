package cmd

import (
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/cischema"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
)

// TestContextsCIFormats checks JUnit and SARIF over several clusters: both validate, the same
// node name in two clusters is two test cases, each named with its context, and the finding
// of one cluster is its own SARIF result located in its context, with a fingerprint of its own.
func TestContextsCIFormats(t *testing.T) {
	m := standardClusters(t)
	junit := m.run(t, "check", "--contexts", "a,b,c", "-o", "junit", "--allow-unreachable")
	wantCode(t, junit, ExitFindings)
	cischema.ValidateJUnit(t, []byte(junit.stdout))
	testutil.Assert(t, filepath.Join("testdata", "contexts-check.junit.golden"), cischema.JUnitGolden(t, junit.stdout))
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(junit.stdout), &doc); err != nil {
		t.Fatalf("parsing the JUnit report: %v", err)
	}
	cases := map[string]bool{}
	for _, s := range doc.Suites {
		if s.Name != "instance-not-found" {
			continue
		}
		for _, c := range s.Cases {
			cases[c.Name] = c.Failure != nil
		}
	}
	for name, failed := range map[string]bool{"a: node/" + liveNodeB: false, "b: node/" + liveNodeB: true} {
		if got, ok := cases[name]; !ok || got != failed {
			t.Errorf("instance-not-found test case %q: present %v failed %v, want present and failed %v (cases %v)", name, ok, got, failed, cases)
		}
	}

	sarif := m.run(t, "check", "--contexts", "a,b,c", "-o", "sarif")
	wantCode(t, sarif, ExitCollect) // c could not be read
	cischema.ValidateSARIF(t, []byte(sarif.stdout))
	testutil.Assert(t, filepath.Join("testdata", "contexts-check.sarif.golden"), cischema.SARIFGolden(t, sarif.stdout))
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					Physical struct {
						Artifact struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Fingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarif.stdout), &log); err != nil {
		t.Fatalf("parsing the SARIF log: %v", err)
	}
	prints := map[string]string{}
	found := false
	for _, r := range log.Runs[0].Results {
		uri := r.Locations[0].Physical.Artifact.URI
		if !strings.HasPrefix(uri, "context/") {
			t.Errorf("result %s at %q is not located in its context", r.RuleID, uri)
		}
		if r.RuleID == "instance-not-found" && uri == "context/b/node/"+liveNodeB {
			found = true
		}
		for _, fp := range r.Fingerprints {
			if other, dup := prints[fp]; dup {
				t.Errorf("results at %s and %s share a fingerprint", other, uri)
			}
			prints[fp] = uri
		}
	}
	if !found {
		t.Errorf("no instance-not-found result at context/b/node/%s", liveNodeB)
	}
}
