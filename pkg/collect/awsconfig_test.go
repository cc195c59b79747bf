package collect

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2IsolateAWSEnv gives the test empty AWS config and credentials files and clears every
// AWS variable that could reach a real account or the instance metadata service.
func ec2IsolateAWSEnv(t *testing.T, config string) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(dir, "credentials")
	if err := os.WriteFile(creds, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", cfg)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for _, v := range []string{"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL",
		"AWS_ENDPOINT_URL_EC2", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI"} {
		t.Setenv(v, "")
	}
}

func TestLoadEC2WithStandardConfig(t *testing.T) {
	w := newEC2World(t, 3)
	ec2IsolateAWSEnv(t, "[profile dev]\nregion = eu-west-1\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = secret\n")
	t.Setenv("AWS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt")
	t.Setenv("AWS_ENDPOINT_URL_EC2", w.url)

	api, err := LoadEC2(t.Context(), "", "dev")
	if err != nil {
		t.Fatalf("LoadEC2: %v", err)
	}
	opts := api.(*ec2.Client).Options()
	if opts.Region != "eu-west-1" {
		t.Errorf("got Region %q from the profile, want eu-west-1", opts.Region)
	}
	if got := opts.Retryer.MaxAttempts(); got != ec2MaxAttempts {
		t.Errorf("got %d attempts, want %d", got, ec2MaxAttempts)
	}

	(&Collector{EC2: api}).collectEC2(t.Context(), w.snap)

	if len(w.snap.Gaps) != 0 || len(w.snap.Instances) != 3 {
		t.Errorf("got %d instances and gaps %+v, want 3 and none", len(w.snap.Instances), w.snap.Gaps)
	}
	// The profile's Region is eu-west-1, the nodes' providerIDs name us-west-2: the nodes win,
	// and a note says so once.
	if w.snap.Region != "us-west-2" {
		t.Errorf("got Region %q, want the nodes' us-west-2 (providerIDs come before the configuration)", w.snap.Region)
	}
	wantNotes := []string{"the AWS configuration's Region is eu-west-1, but the nodes' providerIDs are in us-west-2: " +
		"EC2 was read there (pass --region to choose)"}
	if diff := cmp.Diff(wantNotes, w.snap.Notes); diff != "" {
		t.Errorf("notes mismatch (-want +got):\n%s", diff)
	}
	for _, r := range w.sim.Requests() {
		if r.Region != "us-west-2" {
			t.Errorf("got a %s request signed for %q, want us-west-2", r.Action, r.Region)
		}
	}
}

func TestLoadEC2RegionFlagWins(t *testing.T) {
	ec2IsolateAWSEnv(t, "")
	t.Setenv("AWS_REGION", "ap-south-1")
	api, err := LoadEC2(t.Context(), "us-east-2", "")
	if err != nil {
		t.Fatalf("LoadEC2: %v", err)
	}
	if got := api.(*ec2.Client).Options().Region; got != "us-east-2" {
		t.Errorf("got Region %q, want us-east-2", got)
	}
}

func TestLoadEC2UnknownProfile(t *testing.T) {
	ec2IsolateAWSEnv(t, "[profile dev]\nregion = eu-west-1\n")
	tests := []struct {
		name, env, flag, want string
	}{
		{"flag", "", "nope", `AWS profile "nope" not found in ` + os.Getenv("AWS_CONFIG_FILE") +
			": pass an existing --profile"},
		{"AWS_PROFILE", "gone", "", `AWS profile "gone" not found in ` + os.Getenv("AWS_CONFIG_FILE") +
			": pass an existing --profile or unset AWS_PROFILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("AWS_PROFILE", tt.env)
			_, err := LoadEC2(t.Context(), "us-west-2", tt.flag)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got error %v, want %s", err, tt.want)
			}
		})
	}
}

func TestLoadEC2WithoutCredentials(t *testing.T) {
	sim := ec2sim.New()
	ec2IsolateAWSEnv(t, "")
	t.Setenv("AWS_ENDPOINT_URL_EC2", sim.Start(t))
	api, err := LoadEC2(t.Context(), "us-west-2", "")
	if err != nil {
		t.Fatalf("LoadEC2: %v", err)
	}
	s := snapshot.New(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	s.Nodes = append(s.Nodes, ec2Node("n", "us-west-2a", ec2InstanceID(1), "m5.large"))
	s.ENIConfigs = []snapshot.ENIConfig{{Name: "us-west-2a", Subnet: "subnet-a", SecurityGroups: []string{"sg-a"}}}

	(&Collector{EC2: api}).collectEC2(t.Context(), s)

	if len(s.Gaps) != 1 {
		t.Fatalf("got gaps %+v, want one", s.Gaps)
	}
	want := snapshot.Gap{Source: snapshot.SourceEC2, Reason: s.Gaps[0].Reason, Remedy: ec2CredentialsRemedy}
	if diff := cmp.Diff(want, s.Gaps[0]); diff != "" {
		t.Errorf("gap (-want +got):\n%s", diff)
	}
	if sim.Total() != 0 {
		t.Errorf("got %d requests sent without credentials, want 0", sim.Total())
	}
}
