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
type answerBuffers struct {
	pool    sync.Pool
	longest atomic.Int64
}

// ec2Answers holds DescribeInstances answers, kubePages node list pages.
var ec2Answers, kubePages answerBuffers

// get returns an empty buffer with room for the longest answer read so far.
func (a *answerBuffers) get() *bytes.Buffer {
	buf, _ := a.pool.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	buf.Grow(int(a.longest.Load()) + bytes.MinRead)
	return buf
}

// put gives a buffer back, once nothing refers to what it holds.
func (a *answerBuffers) put(buf *bytes.Buffer) { a.pool.Put(buf) }

// read records the length of an answer read into one of the buffers.
func (a *answerBuffers) read(n int) {
	for {
		old := a.longest.Load()
		if int64(n) <= old || a.longest.CompareAndSwap(old, int64(n)) {
			return
		}
	}
}
