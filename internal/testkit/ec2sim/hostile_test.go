package ec2sim

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestHostileTokens(t *testing.T) {
	for _, tc := range []struct {
		tokens Tokens
		want   []string
	}{
		{CycleTokens, []string{"cycle-a", "cycle-b", "cycle-a", "cycle-b"}},
		{EndlessTokens, []string{"endless-1", "endless-2", "endless-3", "endless-4"}},
	} {
		sim := New()
		sim.AddSubnets(snapshot.Subnet{ID: "subnet-1"}, snapshot.Subnet{ID: "subnet-2"})
		sim.SetPageSize(1)
		sim.SetTokens(DescribeSubnets, tc.tokens)
		client := NewClient(sim.Start(t), "us-west-2")
		var got []string
		var token *string
		for range len(tc.want) {
			out, err := client.DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{NextToken: token})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Subnets) != 1 || aws.ToString(out.Subnets[0].SubnetId) != "subnet-1" {
				t.Errorf("page %d: got %d subnets, want the first page (subnet-1) every time", len(got), len(out.Subnets))
			}
			token = out.NextToken
			got = append(got, aws.ToString(token))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("tokens (-want +got):\n%s", diff)
		}
	}
}

func TestHostileBody(t *testing.T) {
	sim := New()
	sim.SetBody(DescribeInstances, http.StatusOK, "text/html", "<html><body>Sign in to the guest network</body></html>")
	resp, err := http.PostForm(sim.Start(t), url.Values{"Action": {DescribeInstances}, "Version": {APIVersion}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html" || !strings.Contains(string(body), "guest network") {
		t.Errorf("got %d %q %q, want the raw HTML answer", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if sim.Count(DescribeInstances) != 1 {
		t.Errorf("requests: got %d, want the raw answer counted", sim.Count(DescribeInstances))
	}
}

func TestHostileExtraInstances(t *testing.T) {
	sim := New()
	sim.AddInstances(testInstance(1), testInstance(2))
	sim.SetExtraInstances(1000)
	client := NewClient(sim.Start(t), "us-west-2")
	out, err := client.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{
		Filters: []types.Filter{{Name: aws.String("instance-id"), Values: []string{testInstance(1).ID}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Reservations) != 1001 || aws.ToString(out.Reservations[0].Instances[0].InstanceId) != testInstance(1).ID {
		t.Fatalf("got %d reservations, want the instance asked for then 1000 more", len(out.Reservations))
	}
	ids := map[string]bool{}
	for _, r := range out.Reservations {
		ids[aws.ToString(r.Instances[0].InstanceId)] = true
	}
	if len(ids) != 1001 {
		t.Errorf("distinct instance IDs: got %d, want 1001", len(ids))
	}
}

func TestHostileActionLatency(t *testing.T) {
	sim := New()
	sim.SetActionLatency(DescribeSubnets, time.Minute)
	client := NewClient(sim.Start(t), "us-west-2", func(o *ec2.Options) { o.RetryMaxAttempts = 1 })
	if _, err := client.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{}); err != nil {
		t.Fatalf("DescribeInstances is not slowed: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := client.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
		t.Errorf("slow DescribeSubnets: got %v after %s, want the caller's deadline", err, time.Since(start))
	}
}
