package collect

import (
	"bytes"
	"sync"
	"sync/atomic"
)

// answerBuffers hands out the buffers answers are read into (DescribeInstances pages, node
// list pages: MBs each, two or more at a time), each reused by a later answer, with room for
// the longest answer read so far: when the collector has emptied the pool (a collection every
// few pages at 10,000 nodes) a new buffer is made once at about that size, not grown from
// nothing by doubling.
//
// A Collector owns its own (Collector.ec2Answers, Collector.kubePages), kept from one of its
// collections to the next: serve's loop reuses its Collector's, and the clusters of a run over
// several each have their own. A nil *answerBuffers pools nothing: each buffer is new.
type answerBuffers struct {
	pool    sync.Pool
	longest atomic.Int64
}

// Get returns an empty buffer with room for the longest answer read so far.
func (a *answerBuffers) Get() *bytes.Buffer {
	if a == nil {
		return new(bytes.Buffer)
	}
	buf, _ := a.pool.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	buf.Grow(int(a.longest.Load()) + bytes.MinRead)
	return buf
}

// Put gives a buffer back, once nothing refers to what it holds.
func (a *answerBuffers) Put(buf *bytes.Buffer) {
	if a != nil && buf != nil {
		a.pool.Put(buf)
	}
}

// Read records the length of an answer read into one of the buffers.
func (a *answerBuffers) Read(n int) {
	if a == nil {
		return
	}
	for {
		old := a.longest.Load()
		if int64(n) <= old || a.longest.CompareAndSwap(old, int64(n)) {
			return
		}
	}
}
