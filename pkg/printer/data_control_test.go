package printer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostiletext"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestDataOutputKeepsControlCharacters prints reports whose strings hold every control
// character YAML's reader refuses raw (DEL, C1, U+FFFE): JSON and YAML both succeed, keep
// each string whole and decode to the same report.
func TestDataOutputKeepsControlCharacters(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0xa0; r++ {
		all.WriteRune(r)
	}
	all.WriteString("\u2028\u2029\ufeff\ufffe\uffff\U0001F600")
	tests := []struct {
		name   string
		report diagnose.Report
	}{
		{name: "every string hostile", report: hostiletext.Poison(findingsReport())},
		{name: "every control character", report: func() diagnose.Report {
			r := findingsReport()
			r.Findings[0].Message = all.String()
			r.Context = "ctx\x7f\u0085\u009b"
			return r
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var j, y bytes.Buffer
			if err := PrintReport(&j, tt.report, JSON, nil); err != nil {
				t.Fatalf("printing JSON: %v", err)
			}
			if err := PrintReport(&y, tt.report, YAML, nil); err != nil {
				t.Fatalf("printing YAML: %v", err)
			}
			var fromJSON, fromYAML diagnose.Report
			if err := json.Unmarshal(j.Bytes(), &fromJSON); err != nil {
				t.Fatalf("decoding JSON: %v", err)
			}
			if err := yaml.Unmarshal(y.Bytes(), &fromYAML); err != nil {
				t.Fatalf("decoding YAML: %v\n%s", err, y.String())
			}
			if diff := cmp.Diff(fromJSON, fromYAML); diff != "" {
				t.Errorf("YAML and JSON carry different data (-json +yaml):\n%s", diff)
			}
			// JSON has no way to carry a byte that is not UTF-8: it becomes U+FFFD.
			want := strings.ToValidUTF8(tt.report.Findings[0].Message, "\ufffd")
			if got := fromJSON.Findings[0].Message; got != want {
				t.Errorf("JSON message = %q, want %q", got, want)
			}
			// Machine output escapes what terminals interpret; it keeps bidirectional marks.
			noBidi := strings.NewReplacer("\u202e", "", "\u202a", "", "\u2066", "")
			for format, out := range map[string]string{"JSON": j.String(), "YAML": y.String()} {
				if bad := hostiletext.RawControls(noBidi.Replace(out), false); len(bad) > 0 {
					t.Errorf("%s carries %d raw control characters, e.g. %q", format, len(bad), bad[0])
				}
			}
		})
	}
}
