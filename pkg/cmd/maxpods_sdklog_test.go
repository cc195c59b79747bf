package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// osStderr runs f with the process's standard error sent to a file and returns what was
// written there: the SDK's default logger writes to os.Stderr, not to the command's streams.
func osStderr(t *testing.T, f func()) string {
	t.Helper()
	file, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	saved := os.Stderr
	os.Stderr = file
	defer func() { os.Stderr = saved }()
	f()
	b, err := os.ReadFile(file.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMaxPodsSDKLog checks that the AWS SDK's own log lines ("WARN falling back to IMDSv1",
// from an instance metadata service that refuses tokens, while no credentials are found) reach
// standard error only with -v, prefixed aws-sdk:, and that the offline answer says nothing
// there at all.
func TestMaxPodsSDKLog(t *testing.T) {
	maxPodsEC2(t, "us-west-2")
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		t.Setenv(k, "")
	}
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) }))
	t.Cleanup(imds.Close)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "")
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.URL)
	const warn = "aws-sdk: WARN falling back to IMDSv1"

	var r result
	if got := osStderr(t, func() { r = run(t, "max-pods", "m5.large", "p5.48xlarge") }); got != "" {
		t.Errorf("offline: process stderr: got %q, want nothing", got)
	}
	wantCode(t, r, ExitOK)
	if r.stderr != "" {
		t.Errorf("offline: stderr: got %q, want nothing", r.stderr)
	}

	if got := osStderr(t, func() { r = run(t, "max-pods", "--live", "m5.large") }); got != "" {
		t.Errorf("--live: process stderr: got %q, want nothing", got)
	}
	wantCode(t, r, ExitCollect)
	wantOneErrorLine(t, r, "describing instance types in us-west-2")

	if got := osStderr(t, func() { r = run(t, "max-pods", "--live", "-v", "m5.large") }); got != "" {
		t.Errorf("--live -v: process stderr: got %q, want nothing", got)
	}
	wantCode(t, r, ExitCollect)
	if !strings.Contains(r.stderr, warn) {
		t.Errorf("--live -v: stderr: got %q, want it to contain %q", r.stderr, warn)
	}
}
