package serve

import (
	"cmp"
	"net/http"
	"time"
)

// The HTTP server's defaults: a scrape or a /report request is one small GET, answered from
// memory, so a client that is slower than these is gone or hostile.
const (
	// DefaultReadHeaderTimeout bounds the wait for a request's headers, on a new connection too.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds reading a whole request.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds writing an answer: a /report of 10,000 nodes is about 25 MB.
	DefaultWriteTimeout = 2 * time.Minute
	// DefaultIdleTimeout closes a keep-alive connection with no request for this long; a
	// Prometheus scraping every 30 s keeps its connection.
	DefaultIdleTimeout = 90 * time.Second
	// DefaultMaxHeaderBytes bounds a request's headers (a larger one gets 431).
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultMaxConnections bounds the connections open at once; past it, new ones wait
	// until one closes.
	DefaultMaxConnections = 128
)

// HTTPLimits bound the HTTP server: its timeouts, header size and open connections.
type HTTPLimits struct {
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	MaxHeaderBytes, MaxConnections                            int
}

// withDefaults returns l with every zero field set to its default.
func (l HTTPLimits) withDefaults() HTTPLimits {
	return HTTPLimits{
		ReadHeaderTimeout: cmp.Or(l.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		ReadTimeout:       cmp.Or(l.ReadTimeout, DefaultReadTimeout),
		WriteTimeout:      cmp.Or(l.WriteTimeout, DefaultWriteTimeout),
		IdleTimeout:       cmp.Or(l.IdleTimeout, DefaultIdleTimeout),
		MaxHeaderBytes:    cmp.Or(l.MaxHeaderBytes, DefaultMaxHeaderBytes),
		MaxConnections:    cmp.Or(l.MaxConnections, DefaultMaxConnections),
	}
}

// httpServer returns the server of Handler with the limits of s's options.
func (s *Server) httpServer() *http.Server {
	l := s.opts.HTTP
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		WriteTimeout:      l.WriteTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    l.MaxHeaderBytes,
	}
}
