package collect

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// p5 is a multi-card instance type: 32 network cards of 2 interfaces each.
func p5() snapshot.InstanceType {
	t := snapshot.InstanceType{Name: "p5.48xlarge", Hypervisor: "nitro", VCPUs: 192, MaxENIs: 64, IPv4PerENI: 50,
		IPv6PerENI: 50, EFASupported: true, MaxEFAInterfaces: 32, NetworkPerformance: "3200 Gigabit"}
	for i := range int32(32) {
		t.NetworkCards = append(t.NetworkCards, snapshot.NetworkCard{Index: i, MaxENIs: 2})
	}
	return t
}

func TestDescribeInstanceTypes(t *testing.T) {
	sim := ec2sim.New()
	var names []string
	for i := range 250 {
		name := fmt.Sprintf("t%03d.large", i)
		names = append(names, name)
		sim.AddInstanceTypes(snapshot.InstanceType{Name: name, Hypervisor: "nitro", VCPUs: 2, MaxENIs: 3, IPv4PerENI: 10,
			NetworkCards: []snapshot.NetworkCard{{Index: 0, MaxENIs: 3}}})
	}
	sim.AddInstanceTypes(p5())
	api := ec2sim.NewClient(sim.Start(t), "")

	t.Run("converts every field the checks read", func(t *testing.T) {
		got, err := DescribeInstanceTypes(t.Context(), api, "us-west-2", []string{"p5.48xlarge"})
		if err != nil {
			t.Fatalf("DescribeInstanceTypes: %v", err)
		}
		if diff := cmp.Diff([]snapshot.InstanceType{p5()}, got); diff != "" {
			t.Errorf("instance types mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("batches of 100 leave unknown names out", func(t *testing.T) {
		before := len(sim.Requests())
		ask := append([]string{"zz9.nope", "p5.48xlarge", "t000.large"}, names...) // t000.large twice
		got, err := DescribeInstanceTypes(t.Context(), api, "us-west-2", ask)
		if err != nil {
			t.Fatalf("DescribeInstanceTypes: %v", err)
		}
		if len(got) != 251 || got[0].Name != "p5.48xlarge" || got[250].Name != "t249.large" {
			t.Fatalf("got %d types from %q to %q, want 251 sorted from p5.48xlarge to t249.large",
				len(got), got[0].Name, got[len(got)-1].Name)
		}
		requests := sim.Requests()[before:]
		// 252 distinct names: batches of 100, 100 and 52; the one with zz9.nope is retried without it.
		if len(requests) != 4 {
			t.Errorf("got %d DescribeInstanceTypes requests, want 4", len(requests))
		}
		for _, r := range requests {
			if r.Action != ec2sim.DescribeInstanceTypes || r.Values() > 100 || r.Region != "us-west-2" {
				t.Errorf("got request %s with %d values in %q, want DescribeInstanceTypes with at most 100 in us-west-2",
					r.Action, r.Values(), r.Region)
			}
		}
	})

	t.Run("no names make no request", func(t *testing.T) {
		before := len(sim.Requests())
		got, err := DescribeInstanceTypes(t.Context(), api, "us-west-2", nil)
		if err != nil || got != nil {
			t.Errorf("got %v, %v, want nil, nil", got, err)
		}
		if n := len(sim.Requests()) - before; n != 0 {
			t.Errorf("got %d requests, want none", n)
		}
	})

	t.Run("a refused call says which permission is missing", func(t *testing.T) {
		sim.Fail(ec2sim.DescribeInstanceTypes, "UnauthorizedOperation", 0)
		defer sim.ClearFailures()
		_, err := DescribeInstanceTypes(t.Context(), api, "us-west-2", []string{"p5.48xlarge"})
		if err == nil {
			t.Fatal("got no error, want UnauthorizedOperation")
		}
		for _, want := range []string{"describing instance types in us-west-2: UnauthorizedOperation", "allow ec2:DescribeInstanceTypes"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("got error %q, want it to contain %q", err, want)
			}
		}
	})
}
