package cmd

import "time"

// parseServeFloor reads the interval floor a test build takes from serveFloorEnv: a positive
// duration, else a usage error naming the variable.
func parseServeFloor(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, usageErrorf("%s=%q is not a positive duration: unset it (it is for tests only)", serveFloorEnv, v)
	}
	return d, nil
}
