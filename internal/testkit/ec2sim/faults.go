package ec2sim

import (
	"context"
	"net/http"
	"time"
)

// faults holds the failures, latency and throttle a Server applies. Guarded by Server.mu.
type faults struct {
	failures map[string]*failure
	latency  time.Duration
	bucket   *bucket
	// throttled counts the requests the bucket refused.
	throttled int
	// hostile bends answers: tokens, raw bodies, per-action latency, extra instances.
	hostile hostile
	// regions are the Regions whose every request fails, with the error of each.
	regions map[string]apiError
}

// failure is an injected error answer for one action.
type failure struct {
	apiError
	// remaining is how many more requests fail; negative means every one.
	remaining int
}

// apiError is an EC2 error answer.
type apiError struct {
	status  int
	code    string
	message string
}

// bucket is a token bucket: each request takes a token; tokens come back at refill per second
// up to capacity.
type bucket struct {
	capacity float64
	refill   float64
	tokens   float64
	last     time.Time
}

// Fail makes the next times requests of action fail with the EC2 error code (for example
// UnauthorizedOperation or RequestLimitExceeded); times <= 0 fails every request. The HTTP
// status follows EC2: 403 for UnauthorizedOperation and AccessDenied, 401 for AuthFailure,
// 503 for RequestLimitExceeded and Unavailable, 500 for InternalError, 400 otherwise.
func (s *Server) Fail(action, code string, times int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.failures == nil {
		s.faults.failures = map[string]*failure{}
	}
	if times <= 0 {
		times = -1
	}
	s.faults.failures[action] = &failure{
		apiError:  apiError{status: statusFor(code), code: code, message: messageFor(code, action)},
		remaining: times,
	}
}

// ClearFailures removes every injected failure.
func (s *Server) ClearFailures() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.failures = nil
}

// SetLatency delays every answer by d (a canceled request stops waiting).
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.latency = d
}

// SetThrottle limits requests with a token bucket of capacity tokens that refills at
// refillPerSecond, answering RequestLimitExceeded when it is empty, as EC2 does for its
// per-account request rate. A capacity of 0 removes the throttle.
func (s *Server) SetThrottle(capacity int, refillPerSecond float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if capacity <= 0 {
		s.faults.bucket = nil
		return
	}
	s.faults.bucket = &bucket{
		capacity: float64(capacity), refill: refillPerSecond, tokens: float64(capacity), last: s.now(),
	}
}

// Throttled returns how many requests the throttle answered with RequestLimitExceeded.
func (s *Server) Throttled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults.throttled
}

// fault waits the configured latency, then returns the throttle or injected error the request
// gets, or nil.
// FailRegion makes every request signed for region fail with the EC2 error code, as EC2 answers
// a Region the account has not enabled (AuthFailure, OptInRequired).
func (s *Server) FailRegion(region, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.regions == nil {
		s.faults.regions = map[string]apiError{}
	}
	s.faults.regions[region] = apiError{status: statusFor(code), code: code, message: messageFor(code, region)}
}

func (s *Server) fault(ctx context.Context, action, region string) *apiError {
	s.mu.Lock()
	latency := s.faults.latency
	s.mu.Unlock()
	if latency > 0 {
		t := time.NewTimer(latency)
		select {
		case <-ctx.Done():
			t.Stop()
			return &apiError{status: http.StatusServiceUnavailable, code: "RequestCanceled", message: "request canceled"}
		case <-t.C:
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.faults.bucket; b != nil && !b.take(s.now()) {
		s.faults.throttled++
		return &apiError{status: http.StatusServiceUnavailable, code: "RequestLimitExceeded", message: "Request limit exceeded."}
	}
	if e, ok := s.faults.regions[region]; ok {
		return &e
	}
	if f := s.faults.failures[action]; f != nil && f.remaining != 0 {
		if f.remaining > 0 {
			f.remaining--
		}
		e := f.apiError
		return &e
	}
	return nil
}

// take refills the bucket for the time since the last request and takes one token.
func (b *bucket) take(now time.Time) bool {
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = min(b.capacity, b.tokens+elapsed*b.refill)
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

func statusFor(code string) int {
	switch code {
	case "UnauthorizedOperation", "AccessDenied", "AccessDeniedException":
		return http.StatusForbidden
	case "AuthFailure", "ExpiredToken", "RequestExpired":
		return http.StatusUnauthorized
	case "RequestLimitExceeded", "Unavailable", "ServiceUnavailable":
		return http.StatusServiceUnavailable
	case "InternalError", "InternalFailure":
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

func messageFor(code, action string) string {
	switch code {
	case "UnauthorizedOperation":
		return "You are not authorized to perform this operation. User: arn:aws:iam::123456789012:user/karpnet is not authorized to perform: ec2:" + action + " because no identity-based policy allows the ec2:" + action + " action"
	case "RequestLimitExceeded":
		return "Request limit exceeded."
	case "AuthFailure":
		return "AWS was not able to validate the provided access credentials"
	}
	return code + " injected for " + action
}
