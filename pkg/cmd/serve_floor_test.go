//go:build !karpnet_testseams

package cmd

import (
	"strings"
	"testing"
	"time"
)

// TestServeFloorIsNoSwitchInARelease: a release build ignores the tests' floor variable, so
// --interval 1s is still below the minimum; a test build's value must be a positive duration.
func TestServeFloorIsNoSwitchInARelease(t *testing.T) {
	o, _, _ := newTestOptions()
	o.getenv = env{serveFloorEnv: "1ms"}.get
	s := &serveOptions{check: &checkOptions{commonOptions: o}, interval: time.Second}
	if _, err := s.every(); err == nil || !strings.Contains(err.Error(), "below the minimum") {
		t.Errorf("--interval 1s with %s=1ms: got %v, want the minimum's usage error", serveFloorEnv, err)
	}
	for _, v := range []string{"soon", "0s", "-1s"} {
		if _, err := parseServeFloor(v); err == nil || !strings.Contains(err.Error(), serveFloorEnv) {
			t.Errorf("parseServeFloor(%q): got %v, want an error naming %s", v, err, serveFloorEnv)
		}
	}
	if d, err := parseServeFloor("2s"); err != nil || d != 2*time.Second {
		t.Errorf("parseServeFloor(2s): got %v, %v", d, err)
	}
}
