package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/enimaxpods"
)

// maxPodsBatch is how many instance types one `max-pods` run is given.
const maxPodsBatch = 250

// maxPodsRow is what the test reads of `max-pods -o json`.
type maxPodsRow struct {
	InstanceType     string `json:"instanceType"`
	ENIs             int32  `json:"enis"`
	SecondaryIP      int64  `json:"secondaryIP"`
	PrefixDelegation *int64 `json:"prefixDelegation"`
	Karpenter        int64  `json:"karpenter"`
}

// eniMaxPods returns the VPC CNI's eni-max-pods.txt table.
func eniMaxPods(t *testing.T) map[string]int64 {
	t.Helper()
	pods, err := enimaxpods.Table()
	if err != nil {
		t.Fatal(err)
	}
	return pods
}

// motoInstanceTypes lists every instance type moto's DescribeInstanceTypes knows.
func motoInstanceTypes(t *testing.T) []string {
	t.Helper()
	pages := ec2.NewDescribeInstanceTypesPaginator(env.moto.EC2(t.Context(), region), &ec2.DescribeInstanceTypesInput{})
	var names []string
	for pages.HasMorePages() {
		page, err := pages.NextPage(t.Context())
		if err != nil {
			t.Fatalf("listing moto's instance types: %v", err)
		}
		for _, it := range page.InstanceTypes {
			names = append(names, string(it.InstanceType))
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// TestMaxPodsMatchesENIMaxPods runs `kubectl karpnet max-pods --live -o json` over every instance type
// that both moto (real DescribeInstanceTypes data) and the VPC CNI's eni-max-pods.txt know, and
// expects the plain secondary-IP value, and Karpenter's, to equal the file's for each.
func TestMaxPodsMatchesENIMaxPods(t *testing.T) {
	file := eniMaxPods(t)
	var names []string
	for _, n := range motoInstanceTypes(t) {
		if _, ok := file[n]; ok {
			names = append(names, n)
		}
	}
	if len(names) < 1000 {
		t.Fatalf("moto and eni-max-pods.txt share %d instance types, want more than 1000", len(names))
	}
	got := map[string]maxPodsRow{}
	for batch := range slices.Chunk(names, maxPodsBatch) {
		before, err := env.moto.Requests(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		r := karpnet(t, runOpts{}, append([]string{"max-pods", "--live", "-o", "json"}, batch...)...)
		wantCode(t, r, 0)
		after, err := env.moto.Requests(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		// DescribeInstanceTypes takes at most 100 types per call.
		calls, want := after["DescribeInstanceTypes"]-before["DescribeInstanceTypes"], (len(batch)+99)/100
		if calls != want {
			t.Errorf("max-pods of %d types made %d DescribeInstanceTypes calls, want %d", len(batch), calls, want)
		}
		var rows []maxPodsRow
		if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
			t.Fatalf("decoding max-pods -o json: %v\n%s", err, r.stdout)
		}
		for _, row := range rows {
			got[row.InstanceType] = row
		}
	}
	var mismatches []string
	for _, n := range names {
		row, ok := got[n]
		switch {
		case !ok:
			mismatches = append(mismatches, n+": missing from the output")
		case row.SecondaryIP != file[n] || row.Karpenter != file[n]:
			mismatches = append(mismatches, fmt.Sprintf("%s: secondary-IP %d, Karpenter %d, eni-max-pods.txt %d (ENIs %d)",
				n, row.SecondaryIP, row.Karpenter, file[n], row.ENIs))
		}
	}
	t.Logf("compared %d instance types (moto knows %d of the %d in eni-max-pods.txt); %d mismatches",
		len(names), len(names), len(file), len(mismatches))
	for _, m := range mismatches {
		t.Errorf("mismatch: %s", m)
	}
	if p5 := got["p5.48xlarge"]; p5.ENIs != 2 || p5.SecondaryIP != 100 {
		t.Errorf("p5.48xlarge: got %d ENIs and %d pods, want the default card's 2 ENIs and 100 pods", p5.ENIs, p5.SecondaryIP)
	}
}

// TestMaxPodsUnknownType expects a misspelt type to be named, with exit code 2 and nothing on
// stdout.
func TestMaxPodsUnknownType(t *testing.T) {
	r := karpnet(t, runOpts{}, "max-pods", "m5.large", "m5.largest")
	wantCode(t, r, 2)
	if r.stdout != "" || !strings.Contains(r.stderr, "m5.largest") || strings.Contains(r.stderr, "m5.large,") {
		t.Errorf("got stdout %q and stderr %q, want only an error naming m5.largest", r.stdout, r.stderr)
	}
}

// TestMaxPodsOffline runs `kubectl karpnet max-pods m5.large p5.48xlarge` with no Region, no
// credentials, no profile and the instance metadata service off: the embedded table answers,
// nothing reaches standard error and EC2 is not asked.
func TestMaxPodsOffline(t *testing.T) {
	before, err := env.moto.Requests(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	r := karpnet(t, runOpts{env: []string{"AWS_REGION=", "AWS_DEFAULT_REGION=", "AWS_PROFILE=", "AWS_ACCESS_KEY_ID=",
		"AWS_SECRET_ACCESS_KEY=", "AWS_SESSION_TOKEN=", "AWS_EC2_METADATA_DISABLED=true"}}, "max-pods", "m5.large", "p5.48xlarge")
	wantCode(t, r, 0)
	if r.stderr != "" {
		t.Errorf("stderr: got %q, want nothing", r.stderr)
	}
	for _, want := range []string{"m5.large ", "p5.48xlarge ", "as of 2026-05-01"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout: got\n%s\nwant it to contain %q", r.stdout, want)
		}
	}
	after, err := env.moto.Requests(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n := after["DescribeInstanceTypes"] - before["DescribeInstanceTypes"]; n != 0 {
		t.Errorf("max-pods made %d DescribeInstanceTypes calls, want none", n)
	}
}
