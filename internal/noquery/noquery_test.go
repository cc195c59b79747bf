package noquery

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// childEnv makes the test binary report what init and Restore did to CI, instead of testing.
const childEnv = "KARPNET_NOQUERY_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		during, _ := os.LookupEnv("CI")
		Restore()
		after, set := os.LookupEnv("CI")
		fmt.Printf("during=%q after=%q set=%v\n", during, after, set)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestInitSetsCIAndRestoreGivesItBack starts the test binary with CI unset, empty and set: init
// makes CI non-empty, so termenv does not query the terminal, and Restore puts it back.
func TestInitSetsCIAndRestoreGivesItBack(t *testing.T) {
	tests := []struct {
		name string
		ci   []string
		want string
	}{
		{name: "unset", want: `during="karpnet-noquery-unset" after="" set=false`},
		{name: "empty", ci: []string{"CI="}, want: `during="karpnet-noquery-empty" after="" set=true`},
		{name: "set", ci: []string{"CI=true"}, want: `during="true" after="true" set=true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "CI=") })
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
			cmd.Env = append(append(env, childEnv+"=1"), tt.ci...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("running the test binary as a child: %v", err)
			}
			if got := strings.TrimSpace(string(out)); got != tt.want {
				t.Errorf("child said %s, want %s", got, tt.want)
			}
		})
	}
}
