package harness

import (
	"errors"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// motoTestFaults injects a refusal (every call until cleared) and a throttle (two calls) on
// DescribeSubnets and checks the error the SDK sees, its retries, and the request counts.
func motoTestFaults(t *testing.T, m *Moto, c *ec2.Client, w motoWorld) {
	ctx := t.Context()
	before, err := m.Requests(ctx)
	if err != nil {
		t.Fatalf("Requests: %v", err)
	}
	in := &ec2.DescribeSubnetsInput{SubnetIds: []string{w.subnetA}}
	if err := m.Fail(ctx, "DescribeSubnets", "UnauthorizedOperation", 403, -1); err != nil {
		t.Fatalf("Fail: %v", err)
	}
	for range 2 {
		_, err := c.DescribeSubnets(ctx, in)
		var re *smithyhttp.ResponseError
		if code := motoErrorCode(err); code != "UnauthorizedOperation" || !errors.As(err, &re) || re.HTTPStatusCode() != 403 {
			t.Fatalf("DescribeSubnets with the fault set: got %v, want UnauthorizedOperation (HTTP 403)", err)
		}
	}
	if err := m.Fail(ctx, "DescribeSubnets", "", 0, 0); err != nil {
		t.Fatalf("Fail count 0: %v", err)
	}
	if _, err := c.DescribeSubnets(ctx, in); err != nil {
		t.Fatalf("DescribeSubnets after clearing the fault: %v", err)
	}
	if err := m.Fail(ctx, "DescribeSubnets", "RequestLimitExceeded", 503, 2); err != nil {
		t.Fatalf("Fail: %v", err)
	}
	quick := func(o *ec2.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
		})
	}
	if _, err := c.DescribeSubnets(ctx, in, quick); err != nil {
		t.Fatalf("DescribeSubnets throttled twice: got %v, want the SDK's third attempt to succeed", err)
	}
	after, err := m.Requests(ctx)
	if err != nil {
		t.Fatalf("Requests: %v", err)
	}
	if got, want := after["DescribeSubnets"]-before["DescribeSubnets"], 2+1+3; got != want {
		t.Errorf("DescribeSubnets requests: got %d, want %d (2 refused, 1 answered, 2 throttled + 1 retried)", got, want)
	}
}

// motoErrorCode returns the EC2 error code of err, or "" for none.
func motoErrorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

// motoTestRequests holds moto's request counts for the actions motoBuild sends to what the
// world needs. An attempt the SDK retried (logged with its cause) may or may not have reached
// moto before it failed, so moto's count may exceed the need by at most the retries.
func motoTestRequests(t *testing.T, m *Moto, attempts *motoAttempts) {
	counts, err := m.Requests(t.Context())
	if err != nil {
		t.Fatalf("Requests: %v", err)
	}
	need := map[string]int{"CreateVpc": 1, "CreateSubnet": 2, "CreatePlacementGroup": 2, "RunInstances": 4,
		"CreateNetworkInterface": 1, "AttachNetworkInterface": 1}
	sent, failed := attempts.counts()
	for _, f := range failed {
		if _, ok := need[f.action]; ok {
			t.Logf("a %s attempt failed: %s", f.action, f.err)
		}
	}
	for _, action := range slices.Sorted(maps.Keys(need)) {
		n, got := need[action], counts[action]
		if got < n || got > max(n, sent[action]) {
			t.Errorf("moto counted %d %s requests; want %d (the client sent %d attempts)",
				got, action, n, sent[action])
		}
	}
}

func motoTestMany(t *testing.T, c *ec2.Client, w motoWorld) {
	out, err := c.RunInstances(t.Context(), &ec2.RunInstancesInput{
		ImageId: aws.String("ami-0123456789abcdef0"), InstanceType: types.InstanceTypeM5Large,
		MinCount: aws.Int32(46), MaxCount: aws.Int32(46), SubnetId: aws.String(w.subnetB)})
	if err != nil {
		t.Fatalf("RunInstances x46: %v", err)
	}
	ids := []string{w.prefixed, w.efa, w.trunked, w.partitioned}
	for _, in := range out.Instances {
		ids = append(ids, aws.ToString(in.InstanceId))
	}
	start := time.Now()
	got := motoDescribe(t, c, ids)
	t.Logf("DescribeInstances of %d instances took %s", len(ids), time.Since(start).Round(time.Millisecond))
	if len(got) != len(ids) {
		t.Errorf("DescribeInstances of %d IDs: got %d instances", len(ids), len(got))
	}
}

func motoTestReset(t *testing.T, m *Moto, c *ec2.Client) {
	ctx := t.Context()
	if err := m.Fail(ctx, "DescribeInstances", "InternalError", 0, -1); err != nil {
		t.Fatalf("Fail: %v", err)
	}
	if err := m.Reset(ctx); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	counts, err := m.Requests(ctx)
	if err != nil {
		t.Fatalf("Requests: %v", err)
	}
	if len(counts) != 0 {
		t.Errorf("request counts after Reset: got %v, want none", counts)
	}
	instances, err := c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{})
	if err != nil {
		t.Fatalf("DescribeInstances after Reset (the fault should be gone): %v", err)
	}
	groups, err := c.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{})
	if err != nil {
		t.Fatalf("DescribePlacementGroups after Reset: %v", err)
	}
	if n, g := len(instances.Reservations), len(groups.PlacementGroups); n != 0 || g != 0 {
		t.Errorf("after Reset: got %d reservations and %d placement groups, want none", n, g)
	}
}

func motoTestClose(t *testing.T, m *Moto) {
	pid := m.proc.pid()
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d after Close: got %v, want ESRCH (no process left)", pid, err)
	}
	if conn, err := net.DialTimeout("tcp", strings.TrimPrefix(m.URL, "http://"), time.Second); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections after Close", m.URL)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: got %v, want nil", err)
	}
}

// TestStartMotoFails checks that StartMoto fails with the launcher's message, and leaves
// nothing running, when python3 or the right moto is missing.
func TestStartMotoFails(t *testing.T) {
	for _, tc := range []struct {
		name, moto, want string
		noPython         bool
	}{
		{name: "no python3", noPython: true, want: "finding python3"},
		{name: "no moto", moto: "raise ImportError('No module named moto')\n", want: "moto is not installed"},
		{name: "other moto", moto: "__version__ = '4.2.0'\n", want: "moto 5.2.1 is required, found moto 4.2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := t.TempDir()
			if tc.noPython {
				t.Setenv("PATH", fake)
			} else {
				if err := os.MkdirAll(filepath.Join(fake, "moto"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(fake, "moto", "__init__.py"), []byte(tc.moto), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Setenv("PYTHONPATH", fake)
			}
			m, err := StartMoto(t.Context(), t.TempDir())
			if err == nil {
				m.Close()
				t.Fatalf("StartMoto: got a running server, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("StartMoto error: got %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
