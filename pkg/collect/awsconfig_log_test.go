package collect

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
)

// imdsWithoutTokens starts an instance metadata service that refuses IMDSv2 tokens (404, as
// some proxies and old emulators answer) and has no role, and points the SDK at it: the SDK
// then logs "WARN falling back to IMDSv1" while it looks for credentials.
func imdsWithoutTokens(t *testing.T) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.NotFound(w, nil)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "")
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", srv.URL)
}

// captureStderr runs f with os.Stderr sent to a file and returns what was written there.
func captureStderr(t *testing.T, f func()) string {
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

// TestLoadEC2SDKLog checks that the SDK's own log lines never reach standard error, and go
// where WithSDKLog says, with AWS_CA_BUNDLE set as it is in the field.
func TestLoadEC2SDKLog(t *testing.T) {
	tests := []struct {
		name    string
		options []EC2Option
		want    string // in the log given to WithSDKLog
	}{
		{name: "default"},
		{name: "dropped", options: []EC2Option{WithSDKLog(nil, false)}},
		{name: "to -v", want: "aws-sdk: WARN falling back to IMDSv1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ec2IsolateAWSEnv(t, "")
			t.Setenv("AWS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt")
			sim := ec2sim.New()
			t.Setenv("AWS_ENDPOINT_URL_EC2", sim.Start(t))
			imdsWithoutTokens(t)
			var log bytes.Buffer
			options := tt.options
			if tt.want != "" {
				options = []EC2Option{WithSDKLog(&log, true)}
			}
			stderr := captureStderr(t, func() {
				api, err := LoadEC2(t.Context(), "us-west-2", "", options...)
				if err != nil {
					t.Fatalf("LoadEC2: %v", err)
				}
				if _, err := api.DescribeInstanceTypes(t.Context(), &ec2.DescribeInstanceTypesInput{}); err == nil {
					t.Fatal("DescribeInstanceTypes: got no error without credentials, want one")
				}
			})
			if stderr != "" {
				t.Errorf("standard error: got %q, want nothing", stderr)
			}
			if tt.want == "" && log.Len() > 0 {
				t.Errorf("log: got %q, want nothing", log.String())
			}
			if !strings.Contains(log.String(), tt.want) {
				t.Errorf("log: got %q, want it to contain %q", log.String(), tt.want)
			}
			for line := range strings.Lines(log.String()) {
				if !strings.HasPrefix(line, "aws-sdk: ") {
					t.Errorf("log line %q does not start with %q", line, "aws-sdk: ")
				}
			}
			if sim.Total() != 0 {
				t.Errorf("got %d requests sent without credentials, want 0", sim.Total())
			}
		})
	}
}
