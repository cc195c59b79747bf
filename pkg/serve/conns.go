package serve

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimit is a listener that keeps at most max connections open. Past it, a new connection
// closes the keep-alive connection that has been idle longest and takes its slot, so that idle
// clients never starve a scrape or a probe; when none is idle it waits until one closes.
type connLimit struct {
	net.Listener
	sem       chan struct{} // one token per open connection
	done      chan struct{} // closed with the listener
	closeOnce sync.Once

	mu sync.Mutex
	// idle holds the connections waiting for their next request, with when they started to.
	idle map[*limitedConn]time.Time
	// waiting is set while a new connection waits for a slot: a connection that goes idle
	// meanwhile is closed for it.
	waiting bool
}

func newConnLimit(ln net.Listener, max int) *connLimit {
	return &connLimit{Listener: ln, sem: make(chan struct{}, max), done: make(chan struct{}),
		idle: map[*limitedConn]time.Time{}}
}

// Accept accepts a connection and returns it once it holds a slot.
func (l *connLimit) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	select {
	case l.sem <- struct{}{}:
		return &limitedConn{Conn: c, l: l}, nil
	default:
	}
	l.mu.Lock()
	l.waiting = true
	oldest := l.takeOldestIdle()
	l.mu.Unlock()
	if oldest != nil {
		_ = oldest.Close() // its slot is freed as it closes
	}
	defer func() {
		l.mu.Lock()
		l.waiting = false
		l.mu.Unlock()
	}()
	select {
	case l.sem <- struct{}{}:
		return &limitedConn{Conn: c, l: l}, nil
	case <-l.done:
		c.Close()
		return nil, net.ErrClosed
	}
}

// Close closes the listener; connections open stay open.
func (l *connLimit) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// takeOldestIdle returns the connection idle longest, if any, and forgets it; l.mu is held.
// The caller closes it.
func (l *connLimit) takeOldestIdle() *limitedConn {
	var oldest *limitedConn
	var since time.Time
	for c, t := range l.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	if oldest != nil {
		delete(l.idle, oldest)
	}
	return oldest
}

// connState follows the server's connections (http.Server.ConnState): which are idle.
func (l *connLimit) connState(nc net.Conn, state http.ConnState) {
	c, ok := nc.(*limitedConn)
	if !ok {
		return
	}
	var oldest *limitedConn
	l.mu.Lock()
	switch state {
	case http.StateIdle:
		l.idle[c] = time.Now()
		if l.waiting {
			oldest = l.takeOldestIdle()
		}
	default:
		delete(l.idle, c)
	}
	l.mu.Unlock()
	if oldest != nil {
		_ = oldest.Close() // its slot is freed as it closes
	}
}

// limitedConn gives its slot back when it closes.
type limitedConn struct {
	net.Conn
	l    *connLimit
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.idle, c)
		c.l.mu.Unlock()
		<-c.l.sem
	})
	return err
}
