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

// TestTUIExitsAsCheckWhenNothingLoads: a terminal UI that never loaded a report exits with
// check's code and error once quit; one that loaded exits 0.
func TestTUIExitsAsCheckWhenNothingLoads(t *testing.T) {
	o, _, _ := newTestOptions()
	r := runTUIUntil(t, o, []string{"tui"}, "could not load the report")
	wantCode(t, r, ExitCollect)
	wantOneErrorLine(t, r, "terminal UI: nothing could be loaded", "no cluster in this test")

	o, _, _ = newTestOptions()
	r = runTUIUntil(t, o, []string{"demo"}, "ip-10-0-")
	wantCode(t, r, ExitOK)
}
