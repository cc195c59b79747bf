package aptinstall

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// errNotFound is what the fake lookPath answers for a program that is not there.
var errNotFound = errors.New("executable file not found in $PATH")

// fakeSystem is a machine with the programs on PATH in have, running as euid; apt-get
// answers each call from results in turn (nil: success), and installing puts the tool on PATH
// unless noBinary.
type fakeSystem struct {
	have     map[string]bool
	euid     int
	results  []error
	noBinary bool
	calls    []string
	log      bytes.Buffer
}

func (f *fakeSystem) system(tool Tool) system {
	return system{
		lookPath: func(name string) (string, error) {
			if f.have[name] {
				return "/usr/bin/" + name, nil
			}
			return "", errNotFound
		},
		euid: func() int { return f.euid },
		aptGet: func(_ context.Context, args ...string) ([]byte, error) {
			f.calls = append(f.calls, strings.Join(args, " "))
			var err error
			if len(f.results) > 0 {
				err, f.results = f.results[0], f.results[1:]
			}
			if err == nil && args[0] == "install" && !f.noBinary {
				f.have[tool.Binary] = true
			}
			if err != nil {
				return []byte("E: Unable to locate package " + tool.Package + "\n"), err
			}
			return []byte("ok\n"), nil
		},
		log: &f.log,
	}
}

// TestFindInstallsWhenMissing walks the install decision: a program on PATH is used as it
// is; a missing one is installed as root, after apt-get update when the first install fails;
// without root, apt-get, or when the install fails, the error says why and what to run.
func TestFindInstallsWhenMissing(t *testing.T) {
	xmllint := Tool{Binary: "xmllint", Package: "libxml2-utils"}
	failed := errors.New("exit status 100")
	for _, tt := range []struct {
		name     string
		fake     fakeSystem
		calls    []string
		wantPath bool
		errParts []string
	}{
		{name: "on PATH: nothing installed", fake: fakeSystem{have: map[string]bool{"xmllint": true}}, wantPath: true},
		{name: "missing, root: installed", fake: fakeSystem{have: map[string]bool{"apt-get": true}},
			calls: []string{"install -y --no-install-recommends libxml2-utils"}, wantPath: true},
		{name: "missing, stale lists: update, then installed",
			fake: fakeSystem{have: map[string]bool{"apt-get": true}, results: []error{failed, nil, nil}},
			calls: []string{"install -y --no-install-recommends libxml2-utils", "update",
				"install -y --no-install-recommends libxml2-utils"}, wantPath: true},
		{name: "missing, not root", fake: fakeSystem{have: map[string]bool{"apt-get": true}, euid: 1000},
			errParts: []string{"xmllint is not on PATH", "needs root", "run apt-get install libxml2-utils"}},
		{name: "missing, no apt-get", fake: fakeSystem{have: map[string]bool{}},
			errParts: []string{"there is no apt-get", "libxml2-utils"}},
		{name: "install fails twice",
			fake: fakeSystem{have: map[string]bool{"apt-get": true}, results: []error{failed, nil, failed}},
			calls: []string{"install -y --no-install-recommends libxml2-utils", "update",
				"install -y --no-install-recommends libxml2-utils"},
			errParts: []string{"apt-get install libxml2-utils failed", "Unable to locate package", "run apt-get install libxml2-utils"}},
		{name: "update fails", fake: fakeSystem{have: map[string]bool{"apt-get": true}, results: []error{failed, failed}},
			calls:    []string{"install -y --no-install-recommends libxml2-utils", "update"},
			errParts: []string{"apt-get update failed"}},
		{name: "installed but still missing", fake: fakeSystem{have: map[string]bool{"apt-get": true}, noBinary: true},
			calls:    []string{"install -y --no-install-recommends libxml2-utils"},
			errParts: []string{"apt-get installed libxml2-utils but xmllint is still not on PATH"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.fake
			path, err := f.system(xmllint).find(t.Context(), xmllint)
			if strings.Join(f.calls, "; ") != strings.Join(tt.calls, "; ") {
				t.Errorf("apt-get calls %q, want %q", f.calls, tt.calls)
			}
			if tt.wantPath != (path == "/usr/bin/xmllint") {
				t.Errorf("path %q, want found %v", path, tt.wantPath)
			}
			if len(f.calls) > 0 && !strings.Contains(f.log.String(), "running apt-get install -y libxml2-utils") {
				t.Errorf("log %q: want it to say what it installs", f.log.String())
			}
			if len(tt.errParts) == 0 {
				if err != nil {
					t.Errorf("error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one with %q", tt.errParts)
			}
			for _, p := range tt.errParts {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("error %q lacks %q", err, p)
				}
			}
		})
	}
}
