package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// maxPodsTypes are real DescribeInstanceTypes limits: a small Nitro type, a Xen type, a bare
// metal one and p5.48xlarge with 32 network cards of 2 interfaces.
func maxPodsTypes() []snapshot.InstanceType {
	card0 := func(enis int32) []snapshot.NetworkCard { return []snapshot.NetworkCard{{Index: 0, MaxENIs: enis}} }
	p5 := snapshot.InstanceType{Name: "p5.48xlarge", Hypervisor: "nitro", VCPUs: 192, MaxENIs: 64, IPv4PerENI: 50,
		EFASupported: true, MaxEFAInterfaces: 32}
	for i := range int32(32) {
		p5.NetworkCards = append(p5.NetworkCards, snapshot.NetworkCard{Index: i, MaxENIs: 2})
	}
	return []snapshot.InstanceType{
		{Name: "m5.large", Hypervisor: "nitro", VCPUs: 2, MaxENIs: 3, IPv4PerENI: 10, NetworkCards: card0(3)},
		{Name: "c6i.2xlarge", Hypervisor: "nitro", VCPUs: 8, MaxENIs: 4, IPv4PerENI: 15, NetworkCards: card0(4)},
		{Name: "m4.large", Hypervisor: "xen", VCPUs: 2, MaxENIs: 2, IPv4PerENI: 10, NetworkCards: card0(2)},
		{Name: "c5.metal", BareMetal: true, VCPUs: 96, MaxENIs: 15, IPv4PerENI: 50, NetworkCards: card0(15)},
		p5,
	}
}

// maxPodsEC2 serves maxPodsTypes from a simulated EC2 that the standard AWS configuration
// chain reaches through AWS_ENDPOINT_URL_EC2, with static credentials and, unless region is
// empty, AWS_REGION. The machine's AWS configuration is never read.
func maxPodsEC2(t *testing.T, region string) *ec2sim.Server {
	t.Helper()
	sim := ec2sim.New()
	sim.AddInstanceTypes(maxPodsTypes()...)
	empty := filepath.Join(t.TempDir(), "aws-config")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE": empty, "AWS_SHARED_CREDENTIALS_FILE": empty, "AWS_PROFILE": "", "AWS_DEFAULT_REGION": "",
		"AWS_ENDPOINT_URL_EC2": sim.Start(t), "AWS_ENDPOINT_URL": "", "AWS_REGION": region,
		"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "",
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
	return sim
}

func TestMaxPodsGolden(t *testing.T) {
	sim := maxPodsEC2(t, "us-west-2")
	x9 := maxPodsTypes()[0]
	x9.Name = "x9.huge" // a type newer than the embedded table
	sim.AddInstanceTypes(x9)
	all := []string{"m5.large", "c6i.2xlarge", "m4.large", "c5.metal", "p5.48xlarge"}
	tests := []struct {
		name string
		args []string
	}{
		{"maxpods-default.golden", all},
		{"maxpods-prefix-delegation.golden", append([]string{"--prefix-delegation"}, all...)},
		{"maxpods-custom-networking.golden", []string{"c6i.2xlarge", "m5.large", "--custom-networking", "--reserved-enis", "1"}},
		{"maxpods-pod-eni.golden", []string{"m5.large", "c6i.2xlarge", "--pod-eni", "--prefix-delegation"}},
		{"maxpods-efa-only.golden", []string{"p5.48xlarge", "--efa-only", "1", "--prefix-delegation", "--max-allowed"}},
		{"maxpods-json.golden", append([]string{"-o", "json"}, all...)},
		{"maxpods-live.golden", append([]string{"--live"}, all...)},
		{"maxpods-mixed.golden", []string{"m5.large", "x9.huge", "-o", "json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, append([]string{"max-pods"}, tc.args...)...)
			wantCode(t, r, ExitOK)
			if r.stderr != "" {
				t.Errorf("stderr: got %q, want nothing", r.stderr)
			}
			testutil.Assert(t, filepath.Join("testdata", tc.name), r.stdout)
		})
	}
}

// TestMaxPodsJSON checks the figures behind the JSON output, including the default card only
// on p5.48xlarge and no prefix value on Xen.
func TestMaxPodsJSON(t *testing.T) {
	sim := maxPodsEC2(t, "")
	r := run(t, "max-pods", "--live", "--region", "eu-west-1", "-o", "json", "p5.48xlarge", "m4.large", "p5.48xlarge")
	wantCode(t, r, ExitOK)
	var got []maxpods.Row
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("decoding -o json: %v\n%s", err, r.stdout)
	}
	pd := int64(250)
	want := []maxpods.Row{
		{InstanceType: "p5.48xlarge", ENIs: 2, IPv4PerENI: 50, VCPUs: 192, Nitro: true, SecondaryIP: 100,
			PrefixDelegation: &pd, Recommended: 100, Karpenter: 100, Source: "ec2", Region: "eu-west-1"},
		{InstanceType: "m4.large", ENIs: 2, IPv4PerENI: 10, VCPUs: 2, SecondaryIP: 20, Recommended: 20, Karpenter: 20,
			Source: "ec2", Region: "eu-west-1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("max pods mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(r.stdout, `"prefixDelegation": null`) {
		t.Errorf("stdout: got %s, want m4.large's prefixDelegation to be null", r.stdout)
	}
	reqs := sim.Requests()
	if len(reqs) != 1 || reqs[0].Action != ec2sim.DescribeInstanceTypes || reqs[0].Region != "eu-west-1" || reqs[0].Values() != 2 {
		t.Errorf("EC2 requests: got %+v, want one DescribeInstanceTypes of 2 types in eu-west-1", reqs)
	}
}

func TestMaxPodsErrors(t *testing.T) {
	tests := []struct {
		name   string
		region string
		fail   string
		args   []string
		code   int
		want   []string
	}{
		{name: "unknown types", region: "us-west-2", args: []string{"m5.large", "x9.huge", "zz.top"}, code: ExitUsage,
			want: []string{"EC2 does not know instance type x9.huge, zz.top in us-west-2", "--region"}},
		{name: "unknown types live", region: "us-west-2", args: []string{"--live", "m5.large", "x9.huge"}, code: ExitUsage,
			want: []string{"EC2 does not know instance type x9.huge in us-west-2", "--region"}},
		{name: "no Region", args: []string{"--live", "m5.large"}, code: ExitUsage, want: []string{"no AWS Region", "pass --region"}},
		{name: "unknown type, no Region", args: []string{"m5.large", "x9.huge"}, code: ExitUsage,
			want: []string{"karpnet's table (2026-05-01) does not know instance type x9.huge", "pass --region"}},
		{name: "misspelt type, no Region", args: []string{"m5.lrge"}, code: ExitUsage,
			want: []string{"does not know instance type m5.lrge: did you mean m5.large", "--region"}},
		{name: "type in capitals, no Region", args: []string{"M5.LARGE"}, code: ExitUsage,
			want: []string{"does not know instance type M5.LARGE: did you mean m5.large?"}},
		{name: "two misspelt types", args: []string{"m5.lrge", "c5.xlarg"}, code: ExitUsage,
			want: []string{"did you mean m5.large for m5.lrge, c5.xlarge for c5.xlarg?"}},
		{name: "misspelt type that EC2 does not know", region: "us-west-2", args: []string{"m5.large", "m5.xlarg"}, code: ExitUsage,
			want: []string{"EC2 does not know instance type m5.xlarg in us-west-2: did you mean m5.xlarge"}},
		{name: "no type", region: "us-west-2", code: ExitUsage, want: []string{"requires at least 1 arg", "max-pods --help"}},
		{name: "bad output", region: "us-west-2", args: []string{"m5.large", "-o", "yaml"}, code: ExitUsage,
			want: []string{"-o/--output", `"yaml"`, "table or json"}},
		{name: "negative reserved ENIs", region: "us-west-2", args: []string{"m5.large", "--reserved-enis", "-1"}, code: ExitUsage,
			want: []string{"cannot be negative"}},
		{name: "snapshot", region: "us-west-2", args: []string{"m5.large", "--snapshot", "x.json"}, code: ExitUsage,
			want: []string{"drop --snapshot"}},
		{name: "refused", region: "us-west-2", fail: "UnauthorizedOperation", args: []string{"--live", "m5.large"}, code: ExitCollect,
			want: []string{"describing instance types in us-west-2: UnauthorizedOperation", "allow ec2:DescribeInstanceTypes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sim := maxPodsEC2(t, tc.region)
			if tc.fail != "" {
				sim.Fail(ec2sim.DescribeInstanceTypes, tc.fail, 0)
			}
			r := run(t, append([]string{"max-pods"}, tc.args...)...)
			wantCode(t, r, tc.code)
			if r.stdout != "" {
				t.Errorf("stdout: got %q, want nothing", r.stdout)
			}
			wantOneErrorLine(t, r, tc.want...)
		})
	}
}

// TestMaxPodsOffline checks that the types of the embedded table are answered with no Region,
// no credentials and no AWS configuration at all: nothing asked of EC2, nothing on standard
// error, and the source and its date in the table and in JSON.
func TestMaxPodsOffline(t *testing.T) {
	sim := maxPodsEC2(t, "")
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE"} {
		t.Setenv(k, "")
	}
	r := run(t, "max-pods", "m5.large", "p5.48xlarge")
	wantCode(t, r, ExitOK)
	if r.stderr != "" {
		t.Errorf("stderr: got %q, want nothing", r.stderr)
	}
	for _, want := range []string{
		"m5.large     3     10        2      yes    29            110                29           29\n",
		"p5.48xlarge  2     50        192    yes    100           250                100          100\n",
		"Source: EC2 DescribeInstanceTypes data embedded in karpnet (moto 5.2.1), as of 2026-05-01; --live asks EC2\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout: got\n%s\nwant it to contain %q", r.stdout, want)
		}
	}
	r = run(t, "max-pods", "-o", "json", "m5.large")
	wantCode(t, r, ExitOK)
	var got []maxpods.Row
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("decoding -o json: %v\n%s", err, r.stdout)
	}
	pd := int64(110)
	want := []maxpods.Row{{InstanceType: "m5.large", ENIs: 3, IPv4PerENI: 10, VCPUs: 2, Nitro: true, SecondaryIP: 29,
		PrefixDelegation: &pd, Recommended: 29, Karpenter: 29, Source: "embedded", SourceDate: "2026-05-01"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("max pods mismatch (-want +got):\n%s", diff)
	}
	if reqs := sim.Requests(); len(reqs) != 0 {
		t.Errorf("EC2 requests: got %+v, want none", reqs)
	}
}
