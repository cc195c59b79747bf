package collect

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAWSFromExec(t *testing.T) {
	tests := []struct {
		name    string
		command string
		args    []string
		env     map[string]string
		want    ExecAWS
	}{
		{name: "aws eks update-kubeconfig --profile --region", command: "aws",
			args: []string{"--region", "eu-west-1", "eks", "get-token", "--cluster-name", "prod", "--output", "json", "--profile", "prod-admin"},
			want: ExecAWS{Profile: "prod-admin", Region: "eu-west-1"}},
		{name: "flag=value and a path", command: "/usr/local/bin/aws",
			args: []string{"eks", "get-token", "--cluster-name=prod", "--region=us-east-2", "--profile=ops"},
			want: ExecAWS{Profile: "ops", Region: "us-east-2"}},
		{name: "AWS_PROFILE in the plugin's env", command: "aws",
			args: []string{"--region", "us-west-2", "eks", "get-token", "--cluster-name", "dev"},
			env:  map[string]string{"AWS_PROFILE": "dev"}, want: ExecAWS{Profile: "dev", Region: "us-west-2"}},
		{name: "an argument wins over the env", command: "aws",
			args: []string{"eks", "get-token", "--profile", "arg"}, env: map[string]string{"AWS_PROFILE": "env", "AWS_REGION": "ap-south-1"},
			want: ExecAWS{Profile: "arg", Region: "ap-south-1"}},
		{name: "aws-iam-authenticator takes the env", command: "aws-iam-authenticator",
			args: []string{"token", "-i", "prod", "--region", "us-east-1"},
			env:  map[string]string{"AWS_DEFAULT_PROFILE": "legacy", "AWS_DEFAULT_REGION": "us-east-1"},
			want: ExecAWS{Profile: "legacy", Region: "us-east-1"}},
		{name: "aws, but not get-token", command: "aws", args: []string{"sts", "get-caller-identity", "--profile", "x"}},
		{name: "another plugin", command: "kubelogin", args: []string{"get-token", "--profile", "x"}},
		{name: "a flag without a value", command: "aws", args: []string{"eks", "get-token", "--profile", "--region", "us-west-2"},
			want: ExecAWS{Region: "us-west-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AWSFromExec(tt.command, tt.args, tt.env); got != tt.want {
				t.Errorf("AWSFromExec(%q, %q, %v) = %+v, want %+v", tt.command, tt.args, tt.env, got, tt.want)
			}
		})
	}
}

func TestProfileAccount(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config")
	if err := os.WriteFile(config, []byte(`[default]
region = us-west-2

[profile role]
role_arn = arn:aws:iam::111122223333:role/eks-read
source_profile = default

[profile sso]
sso_account_id = 444455556666
sso_role_name = ReadOnly
sso_region = us-east-1
sso_start_url = https://example.awsapps.com/start

[profile keys]
region = us-west-2
`), 0o600); err != nil {
		t.Fatal(err)
	}
	credentials := filepath.Join(dir, "credentials")
	if err := os.WriteFile(credentials, []byte("[default]\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", config)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", credentials)
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_DEFAULT_PROFILE", "")
	t.Setenv("AWS_ROLE_ARN", "")
	for profile, want := range map[string]string{"role": "111122223333", "sso": "444455556666", "keys": "", "missing": "", "": ""} {
		if got := ProfileAccount(t.Context(), profile); got != want {
			t.Errorf("ProfileAccount(%q) = %q, want %q", profile, got, want)
		}
	}
	t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::777788889999:role/irsa")
	if got := ProfileAccount(t.Context(), ""); got != "777788889999" {
		t.Errorf("ProfileAccount of the default chain with AWS_ROLE_ARN: got %q, want 777788889999", got)
	}
	t.Setenv("AWS_ROLE_ARN", "")
	t.Setenv("AWS_PROFILE", "role")
	if got := ProfileAccount(t.Context(), ""); got != "111122223333" {
		t.Errorf("ProfileAccount of the default chain with AWS_PROFILE=role: got %q, want 111122223333", got)
	}
}
