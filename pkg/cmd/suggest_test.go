package cmd

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

func TestSuggestions(t *testing.T) {
	ids := diagnose.CheckIDs()
	tests := []struct {
		typed      string
		candidates []string
		want       []string
	}{
		{"chek", []string{"check", "describe", "diff"}, []string{"check"}},
		{"subnet-ip-exhaustoin", ids, []string{"subnet-ip-exhaustion"}},
		{"eniconfig", ids, []string{"eniconfig-missing", "eniconfig-zone-mismatch", "eniconfig-subnet-mismatch"}},
		{"no-such-check", ids, []string{}},
		{"subnet-0714a16d895e97a4", []string{"subnet-0714a16d895e97a48", "subnet-0a1b2c3d4e5f60718"}, []string{"subnet-0714a16d895e97a48"}},
		{"ab", []string{"abc", "xyz"}, []string{"abc"}},
		{"a", []string{"abc", "b", "wxyz"}, []string{"b", "abc"}},
		{"same", []string{"same"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.typed, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, suggestions(tt.typed, tt.candidates)); diff != "" {
				t.Errorf("suggestions(%q) (-want +got):\n%s", tt.typed, diff)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"", "abc", 3}, {"chek", "check", 1}, {"kitten", "sitting", 3}, {"exhaustoin", "exhaustion", 2}} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestDidYouMean checks the suggestions of misspelt commands (at the root and nested), check
// IDs, describe kinds and the names of nodes, subnets, NodePools and NodeClasses, each one
// error line that exits 2.
func TestDidYouMean(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"chek"}, []string{`unknown command "chek" for "kubectl karpnet"`, "did you mean check", "kubectl karpnet --help"}},
		{[]string{"describ", "node"}, []string{`unknown command "describ"`, "did you mean describe?"}},
		{[]string{"demo", "chek"}, []string{`unknown command "chek" for "kubectl karpnet demo"`, "did you mean check?"}},
		{[]string{"describe", "nod", "x"}, []string{`unknown command "nod" for "kubectl karpnet describe"`, "did you mean node,", "kubectl karpnet describe --help"}},
		{[]string{"demo", "describe", "subnett", "x"}, []string{`unknown command "subnett"`, "did you mean subnet?"}},
		{[]string{"explain", "subnet-ip-exhaustoin"}, []string{`unknown check ID "subnet-ip-exhaustoin": did you mean subnet-ip-exhaustion?`}},
		{[]string{"demo", "check", "--only", "eniconfig"}, []string{`--only: unknown check ID "eniconfig": did you mean eniconfig-missing, eniconfig-zone-mismatch or eniconfig-subnet-mismatch?`}},
		{[]string{"demo", "check", "--skip", "subnet-not-selectd"}, []string{`--skip: unknown check ID "subnet-not-selectd": did you mean subnet-not-selected?`}},
		{[]string{"demo", "check", "--skip", "subnet-not-selectd,zone-mismatc"}, []string{`--skip: unknown check IDs "subnet-not-selectd", "zone-mismatc" ("subnet-not-selectd": did you mean subnet-not-selected?; "zone-mismatc": did you mean zone-mismatch?)`}},
		{[]string{"demo", "describe", "subnet", "subnet-0714a16d895e97a4"}, []string{`subnet "subnet-0714a16d895e97a4" not found: did you mean subnet-0714a16d895e97a48?`}},
		{[]string{"demo", "describe", "node", "ip-10-0-1-69"}, []string{`node "ip-10-0-1-69" not found: did you mean ` + demoNode + "?"}},
		{[]string{"demo", "describe", "nodepool", "genral"}, []string{`nodepool "genral" not found: did you mean general?`}},
		{[]string{"demo", "check", "--nodepool", "genral"}, []string{`NodePool "genral" not found: did you mean general?`}},
		{[]string{"demo", "describe", "nodeclass", "defualt"}, []string{`nodeclass "defualt" not found: did you mean default?`}},
		{[]string{"get", "node"}, []string{`unknown command "get" for "kubectl karpnet": did you mean describe?`}},
		{[]string{"doctor"}, []string{`unknown command "doctor" for "kubectl karpnet": did you mean check?`}},
		{[]string{"frobnicate"}, []string{`unknown command "frobnicate" for "kubectl karpnet": see 'kubectl karpnet --help'`}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, tt.args...)
			wantCode(t, r, ExitUsage)
			wantOneErrorLine(t, r, tt.want...)
			if r.stdout != "" {
				t.Errorf("stdout: got %q, want nothing", r.stdout)
			}
		})
	}
}

// TestValidValuesWrapped checks that an unknown check ID with none close lists every check ID
// under the error, wrapped to 80 columns when standard error is not a terminal.
func TestValidValuesWrapped(t *testing.T) {
	ids := diagnose.CheckIDs()
	tests := []struct {
		args  []string
		first string
	}{
		{[]string{"explain", "no-such-id"}, `error: unknown check ID "no-such-id": use one of the`},
		{[]string{"demo", "check", "--only", "subnet-full"}, `error: --only: unknown check ID "subnet-full": use one of the`},
		{[]string{"demo", "check", "--skip", "a,b,subnet-not-selected"}, `error: --skip: unknown check IDs "a", "b": use one of the`},
		{[]string{"demo", "serve", "--only", "no-such-check"}, `error: --only: unknown check ID "no-such-check"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, tt.args...)
			wantCode(t, r, ExitUsage)
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if !strings.HasPrefix(lines[0], tt.first) {
				t.Fatalf("first line: got %q, want it to start with %q", lines[0], tt.first)
			}
			var listed []string
			for _, l := range lines[1:] {
				if len(l) > 80 || !strings.HasPrefix(l, "  ") {
					t.Errorf("list line %q: want at most 80 columns, indented by two spaces", l)
				}
				for _, f := range strings.Fields(l) {
					listed = append(listed, strings.TrimSuffix(f, ","))
				}
			}
			if diff := cmp.Diff(ids, listed); diff != "" {
				t.Errorf("listed IDs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidValuesWrappedToTheTerminal checks that the list takes the terminal's width.
func TestValidValuesWrappedToTheTerminal(t *testing.T) {
	for _, tc := range []struct{ width, want int }{{120, 120}, {0, 80}, {10, 80}} {
		o, _, _ := newTestOptions()
		o.isTerminal = func(any) bool { return true }
		o.termWidth = func(any) int { return tc.width }
		r := runWith(t, o, "explain", "no-such-id")
		wantCode(t, r, ExitUsage)
		longest := 0
		for _, l := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")[1:] {
			longest = max(longest, len(l))
		}
		if longest > tc.want || longest <= tc.want-30 {
			t.Errorf("terminal of %d columns: the longest list line has %d columns, want at most %d and near it", tc.width, longest, tc.want)
		}
	}
}

func TestWrapList(t *testing.T) {
	got := wrapList([]string{"aaa", "bbb", "ccc", "a-very-long-value-that-overflows"}, 12)
	want := []string{"  aaa, bbb,", "  ccc,", "  a-very-long-value-that-overflows"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wrapList (-want +got):\n%s", diff)
	}
}
