package cmd

import "testing"

func TestWatchFlagIsOnTheRootTUIAndDemo(t *testing.T) {
	for _, args := range [][]string{
		{"--watch", "-5s"}, {"tui", "--watch", "-5s"}, {"demo", "--watch", "-5s"}, {"demo", "tui", "--watch=-1m"},
	} {
		r := run(t, args...)
		wantCode(t, r, ExitUsage)
		wantOneErrorLine(t, r, "--watch", "negative", "30s")
	}
}

func TestWatchFlagTakesADuration(t *testing.T) {
	r := run(t, "tui", "--watch", "often")
	wantCode(t, r, ExitUsage)
	wantOneErrorLine(t, r, "--watch")
}
