//go:build karpnet_testseams

package cmd

import "time"

// testSeamFloor is the interval floor serveFloorEnv sets in a build with the karpnet_testseams
// tag (the end-to-end and scale suites' binary); zero when it is unset.
func testSeamFloor(getenv func(string) string) (time.Duration, error) {
	if v := getenv(serveFloorEnv); v != "" {
		return parseServeFloor(v)
	}
	return 0, nil
}
