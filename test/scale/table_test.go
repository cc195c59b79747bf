package scale

import (
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

func TestWriteTable(t *testing.T) {
	r := Result{
		Nodes: 5000, Seed: 15 * time.Second,
		Check: Measure{Wall: 1800 * time.Millisecond, PeakRSS: 204 << 20,
			EC2:  map[string]int{"DescribeInstances": 25, "DescribeSubnets": 1},
			Kube: map[string]int{"list nodes": 10, "list nodeclaims": 1}},
		Describe: Measure{Wall: 120 * time.Millisecond, EC2: map[string]int{"DescribeInstances": 1}, Kube: map[string]int{"get nodes": 1}},
		Baseline: &Measure{Wall: 270 * time.Second, PeakRSS: 252 << 20,
			EC2: map[string]int{"DescribeInstances": 5000}, Kube: map[string]int{"list nodes": 10}},
		Findings:  map[string]int{"subnet-not-selected": 1},
		Etcd:      harness.ProcMemory{RSS: 300 << 20, Peak: 310 << 20},
		APIServer: harness.ProcMemory{RSS: 900 << 20, Peak: 1000 << 20},
	}
	var b strings.Builder
	if err := WriteTable(&b, Conditions{Latency: 50 * time.Millisecond, Throttle: true}, []Result{r}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"EC2: 50ms latency per request, throttle on (100 burst, 20/s)",
		"26 (44)", "11 (29)", "1.80s", "204 MiB", "5000/10", "270.00s", "252 MiB", "150x",
		"5000 nodes: check EC2 DescribeInstances=25 DescribeSubnets=1; Kubernetes list nodeclaims=1 list nodes=10; " +
			"findings subnet-not-selected=1; gaps 0; seeded in 15.00s; etcd 300 MiB (peak 310 MiB), kube-apiserver 900 MiB (peak 1000 MiB)",
		"5000 nodes: describe node EC2 DescribeInstances=1; Kubernetes get nodes=1",
		"5000 nodes: baseline EC2 DescribeInstances=5000; Kubernetes list nodes=10; RequestLimitExceeded 0",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}

func TestBudgets(t *testing.T) {
	for _, tt := range []struct{ n, ec2, kube int }{{1, 16, 20}, {500, 18, 20}, {501, 18, 21}, {5000, 44, 29}, {10000, 74, 39}} {
		if got := EC2Budget(tt.n); got != tt.ec2 {
			t.Errorf("EC2Budget(%d) = %d, want %d", tt.n, got, tt.ec2)
		}
		if got := KubeBudget(tt.n); got != tt.kube {
			t.Errorf("KubeBudget(%d) = %d, want %d", tt.n, got, tt.kube)
		}
	}
}
