package cmd

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestVersion(t *testing.T) {
	t.Run("text", func(t *testing.T) {
		r := run(t, "version")
		wantCode(t, r, ExitOK)
		if !strings.HasPrefix(r.stdout, "karpnet dev ") || strings.Count(r.stdout, "\n") != 1 {
			t.Errorf("stdout: got %q, want one line starting with \"karpnet dev \"", r.stdout)
		}
		if !strings.Contains(r.stdout, runtime.Version()) {
			t.Errorf("stdout: got %q, want the Go version %s", r.stdout, runtime.Version())
		}
	})
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			r := run(t, "version", "-o", format)
			wantCode(t, r, ExitOK)
			var info map[string]any
			var err error
			if format == "json" {
				err = json.Unmarshal([]byte(r.stdout), &info)
			} else {
				err = yaml.Unmarshal([]byte(r.stdout), &info)
			}
			if err != nil {
				t.Fatalf("decoding version -o %s: %v\n%s", format, err, r.stdout)
			}
			for _, key := range []string{"version", "commit", "date", "goVersion"} {
				if s, _ := info[key].(string); s == "" {
					t.Errorf("%s: got %v, want a non-empty string", key, info[key])
				}
			}
			if info["version"] != "dev" || info["goVersion"] != runtime.Version() {
				t.Errorf("got version %v, goVersion %v, want dev and %s", info["version"], info["goVersion"], runtime.Version())
			}
		})
	}
	t.Run("xml", func(t *testing.T) {
		r := run(t, "version", "-o", "xml")
		wantCode(t, r, ExitUsage)
		wantOneErrorLine(t, r, `"xml"`, "json or yaml")
		if r.stdout != "" {
			t.Errorf("stdout: got %q, want nothing", r.stdout)
		}
	})
}
