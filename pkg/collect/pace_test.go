package collect

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
)

// fakeClock is a clock whose sleeps advance it at once.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	return nil
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func fakePacer(burst int, rate float64) (*Pacer, *fakeClock) {
	clock := &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := NewPacer(burst, rate)
	p.now, p.sleep = clock.Now, clock.Sleep
	return p, clock
}

func TestPacerBurstThenRefill(t *testing.T) {
	p, clock := fakePacer(50, 10)
	for i := range 50 {
		if d, err := p.Wait(t.Context()); d != 0 || err != nil {
			t.Fatalf("call %d of the burst waited %s (%v), want no wait", i+1, d, err)
		}
	}
	// Past the burst every call waits one refill interval, 100 ms, after the one before it.
	for i := range 10 {
		d, err := p.Wait(t.Context())
		if err != nil || d < 99*time.Millisecond || d > 101*time.Millisecond {
			t.Fatalf("call %d past the burst waited %s (%v), want 100ms", i+1, d, err)
		}
	}
	if s := p.Stats(); s.Calls != 60 || s.Waits != 10 || s.Waited < 990*time.Millisecond || s.Waited > 1010*time.Millisecond {
		t.Errorf("stats %+v, want 60 calls, 10 waits, 1s waited", s)
	}
	// Five idle seconds refill the bucket to its burst, not beyond.
	clock.advance(5 * time.Second)
	for i := range 50 {
		if d, _ := p.Wait(t.Context()); d != 0 {
			t.Fatalf("call %d after 5s idle waited %s", i+1, d)
		}
	}
	if d, _ := p.Wait(t.Context()); d == 0 {
		t.Error("call 51 after 5s idle did not wait: the bucket grew past its burst")
	}
}

// TestPacerKeepsUnderEC2Bucket: callers that share a Pacer never take more than EC2's bucket
// allows: at most burst + rate x t calls by any time t.
func TestPacerKeepsUnderEC2Bucket(t *testing.T) {
	p, clock := fakePacer(PacerBurst, PacerRefill)
	start := clock.Now()
	for range 500 {
		if _, err := p.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := clock.Now().Sub(start).Seconds()
	if allowed := PacerBurst + PacerRefill*elapsed; 500 > allowed+1e-6 {
		t.Errorf("500 calls in %.1fs: more than the %.0f the bucket allows", elapsed, allowed)
	}
	if want := float64(500-PacerBurst) / PacerRefill; elapsed < want-0.01 || elapsed > want+0.01 {
		t.Errorf("500 calls took %.2fs, want %.2fs", elapsed, want)
	}
}

func TestPacerCancelledGivesTheTokenBack(t *testing.T) {
	p, _ := fakePacer(1, 1)
	if _, err := p.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait on a cancelled context: %v, want context.Canceled", err)
	}
	if s := p.Stats(); s.Calls != 1 || s.Waits != 0 {
		t.Errorf("stats %+v after a cancelled wait, want 1 call and no wait", s)
	}
}

// TestPacedCallsAreNotThrottled: 100 concurrent DescribeSubnets through the pacer against
// ec2sim's bucket of EC2's size (100, 20/s) are never throttled, and the meter counts them.
func TestPacedCallsAreNotThrottled(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 5s of paced calls; runs without -short")
	}
	sim := ec2sim.New()
	sim.SetThrottle(100, 20)
	url := sim.Start(t)
	meter := &Meter{}
	api := ec2Paced{api: ec2sim.NewClient(url, "us-west-2"), pacer: NewDefaultPacer(), meter: meter}
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = api.DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{})
		}()
	}
	wg.Wait()
	if n := sim.Throttled(); n != 0 {
		t.Errorf("%d calls throttled, want none", n)
	}
	p := meter.Progress()
	if p.EC2Calls != 100 || p.Paced != 50 || p.PacedWait < 50*time.Millisecond {
		t.Errorf("meter %+v: want 100 calls, 50 of them paced", p)
	}
}
