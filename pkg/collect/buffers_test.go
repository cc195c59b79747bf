package collect

import (
	"bytes"
	"sync"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
)

// TestAnswerBuffersComeWithRoomForTheLongestAnswer reads an answer longer than any before it:
// the next buffer handed out, new or pooled, has room for it without growing.
func TestAnswerBuffersComeWithRoomForTheLongestAnswer(t *testing.T) {
	var answers answerBuffers
	long := 3 << 20
	buf := answers.Get()
	if _, err := buf.ReadFrom(bytes.NewReader(make([]byte, long))); err != nil {
		t.Fatal(err)
	}
	answers.Read(buf.Len())
	answers.Read(10) // a shorter answer leaves the size alone
	if got := answers.longest.Load(); got != int64(long) {
		t.Fatalf("longest answer recorded: %d, want %d", got, long)
	}
	answers.Put(buf)
	for _, next := range []*bytes.Buffer{answers.Get(), answers.Get()} {
		if next.Len() != 0 || next.Cap() < long+bytes.MinRead {
			t.Errorf("buffer handed out: length %d, room %d, want empty with room for %d", next.Len(), next.Cap(), long+bytes.MinRead)
		}
	}
}

// TestNilAnswerBuffersPoolNothing: without a Collector's buffers (a call made outside a
// collection) each answer gets a new buffer, and giving it back or recording its length does
// nothing.
func TestNilAnswerBuffersPoolNothing(t *testing.T) {
	var none *answerBuffers
	buf := none.Get()
	buf.WriteString("answer")
	none.Read(buf.Len())
	none.Put(buf)
	if again := none.Get(); again == buf || again.Len() != 0 {
		t.Fatalf("got the buffer given back (%q), want a new empty one", again.String())
	}
}

// TestCollectorsKeepTheirOwnAnswerBuffers collects two clusters at once, as a run over several
// contexts does, each with its own Collector: each Collector's buffers are sized by its own
// answers only, and one that has not collected yet has none of the other's. A Collector that
// collects again, as serve's loop does with its one Collector, keeps the room its earlier
// collections needed.
func TestCollectorsKeepTheirOwnAnswerBuffers(t *testing.T) {
	collector := func() *Collector {
		c := kubeHostileCollector(t, kubeHostile(t), 0, 0)
		c.EC2, c.Region = ec2sim.NewClient(ec2sim.New().Start(t), "us-west-2"), "us-west-2"
		return c
	}
	collect := func(c *Collector) {
		if _, err := c.Collect(t.Context(), Scope{}); err != nil {
			t.Error(err)
		}
	}
	a, b, idle := collector(), collector(), collector()
	var wg sync.WaitGroup
	for _, c := range []*Collector{a, b} {
		wg.Go(func() { collect(c) })
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for name, c := range map[string]*Collector{"a": a, "b": b} {
		if c.kubePages.longest.Load() == 0 || c.ec2Answers.longest.Load() == 0 {
			t.Errorf("collector %s: longest node list page %d bytes, DescribeInstances answer %d: want both read into its buffers",
				name, c.kubePages.longest.Load(), c.ec2Answers.longest.Load())
		}
	}
	if idle.kubePages.longest.Load() != 0 || idle.ec2Answers.longest.Load() != 0 {
		t.Errorf("a collector that has not collected has buffers sized for %d and %d bytes, want none: it shares another's",
			idle.kubePages.longest.Load(), idle.ec2Answers.longest.Load())
	}
	if &a.kubePages == &b.kubePages || &a.ec2Answers == &b.ec2Answers {
		t.Fatal("two collectors share their buffers")
	}

	kube, ec2 := a.kubePages.longest.Load(), a.ec2Answers.longest.Load()
	for range 2 {
		collect(a)
	}
	if a.kubePages.longest.Load() < kube || a.ec2Answers.longest.Load() < ec2 {
		t.Errorf("after collecting again: longest page %d, answer %d; want at least the %d and %d of the first collection",
			a.kubePages.longest.Load(), a.ec2Answers.longest.Load(), kube, ec2)
	}
	if next := a.kubePages.Get(); next.Cap() < int(kube) {
		t.Errorf("a page buffer of the collector that collected again has room for %d bytes, want %d", next.Cap(), kube)
	}
}
