package collect

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// inFlight is an EC2 endpoint (a simulated EC2 behind a counter) that records the most
// requests it answered at once.
type inFlight struct {
	sim      *ec2sim.Server
	now, max atomic.Int32
}

func (f *inFlight) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.now.Add(1)
	for {
		m := f.max.Load()
		if n <= m || f.max.CompareAndSwap(m, n) {
			break
		}
	}
	defer f.now.Add(-1)
	f.sim.ServeHTTP(w, r)
}

// startInFlight starts a simulated EC2 that answers after latency, holding one instance.
func startInFlight(t *testing.T, latency time.Duration) (*inFlight, string) {
	t.Helper()
	sim := ec2sim.New()
	sim.AddInstances(snapshot.Instance{ID: "i-0000000000000000a", Type: "m5.large", State: "running",
		Zone: "us-west-2a", SubnetID: "subnet-a"})
	sim.AddSubnets(snapshot.Subnet{ID: "subnet-a", CIDR: "10.0.0.0/24", Zone: "us-west-2a"})
	sim.SetLatency(latency)
	f := &inFlight{sim: sim}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

// burst makes n DescribeSubnets calls at once through each client, in region, and waits.
func burst(t *testing.T, n int, region string, clients ...*BudgetedEC2) {
	t.Helper()
	var wg sync.WaitGroup
	for _, c := range clients {
		for range n {
			wg.Go(func() {
				_, err := c.DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{}, func(o *ec2.Options) { o.Region = region })
				if err != nil {
					t.Errorf("DescribeSubnets: %v", err)
				}
			})
		}
	}
	wg.Wait()
}

// TestBudgetSharedPerAccountAndRegion counts, at the endpoint, the requests in flight when two
// clusters read EC2 at once: one account and Region never has more than BudgetInFlight
// between them, two accounts (or two Regions) have a gate each.
func TestBudgetSharedPerAccountAndRegion(t *testing.T) {
	tests := []struct {
		name      string
		accounts  [2]string
		regions   [2]string
		wantMax   int32
		wantGates map[string]int
	}{
		{name: "same account and Region share one gate", accounts: [2]string{"111122223333", "111122223333"},
			regions: [2]string{"us-west-2", "us-west-2"}, wantMax: BudgetInFlight,
			wantGates: map[string]int{"account:111122223333/us-west-2": 16}},
		{name: "two accounts have a gate each", accounts: [2]string{"111122223333", "444455556666"},
			regions: [2]string{"us-west-2", "us-west-2"}, wantMax: 2 * BudgetInFlight,
			wantGates: map[string]int{"account:111122223333/us-west-2": 8, "account:444455556666/us-west-2": 8}},
		{name: "two Regions of one account have a gate each", accounts: [2]string{"111122223333", "111122223333"},
			regions: [2]string{"us-west-2", "eu-west-1"}, wantMax: 2 * BudgetInFlight,
			wantGates: map[string]int{"account:111122223333/us-west-2": 8, "account:111122223333/eu-west-1": 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, url := startInFlight(t, 30*time.Millisecond)
			b := NewEC2Budget()
			var wg sync.WaitGroup
			for i := range 2 {
				c := b.Client(ec2sim.NewClient(url, "us-west-2"), "profile p"+string(rune('a'+i)), tt.accounts[i], "us-west-2")
				wg.Go(func() { burst(t, 8, tt.regions[i], c) })
			}
			wg.Wait()
			if got := f.max.Load(); got != tt.wantMax {
				t.Errorf("most requests in flight at the endpoint: got %d, want %d", got, tt.wantMax)
			}
			use := b.Use()
			for key, want := range tt.wantGates {
				if got := use[key]; got.Requests != want || int32(got.MaxInFlight) > BudgetInFlight {
					t.Errorf("gate %s: got %+v, want %d requests and at most %d in flight", key, got, want, BudgetInFlight)
				}
			}
			if len(use) != len(tt.wantGates) {
				t.Errorf("gates: got %v, want only %v", use, tt.wantGates)
			}
		})
	}
}

// TestBudgetLearnsTheAccount checks the keying when no profile names the account: each
// identity goes one request at a time until a DescribeInstances answer names the owner, then
// both identities share that account's gate.
func TestBudgetLearnsTheAccount(t *testing.T) {
	f, url := startInFlight(t, 20*time.Millisecond)
	b := NewEC2Budget()
	a := b.Client(ec2sim.NewClient(url, "us-west-2"), "profile a", "", "us-west-2")
	c := b.Client(ec2sim.NewClient(url, "us-west-2"), "profile b", "", "us-west-2")
	burst(t, 3, "us-west-2", a) // before the account is known: one at a time
	if got := f.max.Load(); got != 1 {
		t.Errorf("in flight before the account is known: got %d, want 1", got)
	}
	if got := a.Account(); got != "" {
		t.Errorf("Account before any DescribeInstances: got %q, want none", got)
	}
	for _, cl := range []*BudgetedEC2{a, c} {
		if _, err := cl.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{InstanceIds: []string{"i-0000000000000000a"}}); err != nil {
			t.Fatal(err)
		}
		if got := cl.Account(); got != "123456789012" {
			t.Fatalf("Account after DescribeInstances: got %q, want the reservation's owner 123456789012", got)
		}
	}
	f.max.Store(0)
	burst(t, 8, "us-west-2", a, c)
	if got := f.max.Load(); got != BudgetInFlight {
		t.Errorf("in flight once the account is known, both identities at once: got %d, want %d", got, BudgetInFlight)
	}
	use := b.Use()
	want := map[string]int{"identity:profile a/us-west-2": 4, "identity:profile b/us-west-2": 1, "account:123456789012/us-west-2": 16}
	for key, n := range want {
		if use[key].Requests != n {
			t.Errorf("gate %s: got %d requests, want %d (all gates: %v)", key, use[key].Requests, n, use)
		}
	}
}

func TestAccountOfARN(t *testing.T) {
	for arn, want := range map[string]string{
		"arn:aws:iam::111122223333:role/eks-admin":               "111122223333",
		"arn:aws-us-gov:iam::444455556666:role/x":                "444455556666",
		"arn:aws:sts::111122223333:assumed-role/eks-admin/alice": "111122223333",
		"arn:aws:eks:us-west-2:111122223333:cluster/prod":        "",
		"":              "",
		"not an arn":    "",
		"arn:aws:iam::": "",
	} {
		if got := AccountOfARN(arn); got != want {
			t.Errorf("AccountOfARN(%q) = %q, want %q", arn, got, want)
		}
	}
}

func TestEC2BudgetSharesOnePacerPerAccountAndRegion(t *testing.T) {
	b := NewEC2Budget()
	a := b.Pacer("profile a", "111122223333", "us-west-2")
	if b.Pacer("profile b", "111122223333", "us-west-2") != a {
		t.Error("two profiles of one known account in one Region got two pacers")
	}
	if b.Pacer("profile a", "111122223333", "eu-west-1") == a {
		t.Error("another Region shares the pacer")
	}
	c := b.Pacer("profile c", "", "us-west-2")
	if c == a || b.Pacer("profile c", "", "us-west-2") != c {
		t.Error("an identity of unknown account does not get a pacer of its own, kept across clusters")
	}
}
