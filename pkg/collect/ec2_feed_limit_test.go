package collect

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	corev1 "k8s.io/api/core/v1"
)

// ec2HeldInstances is an EC2API whose DescribeInstances calls wait for release, counting how
// many run at once.
type ec2HeldInstances struct {
	EC2API
	release chan struct{}

	mu              sync.Mutex
	calls, inFlight int
	most            int
}

func (h *ec2HeldInstances) DescribeInstances(ctx context.Context, _ *ec2.DescribeInstancesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	h.mu.Lock()
	h.calls++
	h.inFlight++
	h.most = max(h.most, h.inFlight)
	h.mu.Unlock()
	select {
	case <-h.release:
	case <-ctx.Done():
	}
	h.mu.Lock()
	h.inFlight--
	h.mu.Unlock()
	return &ec2.DescribeInstancesOutput{}, nil
}

func (h *ec2HeldInstances) running() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.inFlight
}

// TestEC2FeedLimitsCallsWithoutBlockingAdd feeds ten full batches while every call is held:
// adding returns at once, at most ec2Concurrency calls run, and all ten run once released.
func TestEC2FeedLimitsCallsWithoutBlockingAdd(t *testing.T) {
	h := &ec2HeldInstances{release: make(chan struct{})}
	f := newEC2Feed(t.Context(), ec2Call{api: h, region: "us-west-2"}, &ec2Result{}, nil)
	nodes := make([]corev1.Node, 10*ec2FilterBatch)
	for i := range nodes {
		nodes[i].Spec.ProviderID = fmt.Sprintf("aws:///us-west-2a/i-%017x", i)
	}
	added := make(chan struct{})
	go func() {
		f.add(nodes)
		close(added)
	}()
	select {
	case <-added:
	case <-time.After(5 * time.Second):
		close(h.release)
		t.Fatal("add blocked while the DescribeInstances calls were held")
	}
	waitFor(t, func() bool { return h.running() == ec2Concurrency })
	time.Sleep(50 * time.Millisecond) // room for a call beyond the limit to start
	close(h.release)
	f.wait()
	if h.most != ec2Concurrency || h.calls != 10 {
		t.Errorf("got %d DescribeInstances calls, at most %d at once; want 10, at most %d", h.calls, h.most, ec2Concurrency)
	}
}
