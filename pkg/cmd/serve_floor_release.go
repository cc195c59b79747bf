//go:build !karpnet_testseams

package cmd

import "time"

// testSeamFloor is zero in a release build: serve's interval floor is budget.Floor, whatever
// the environment says.
func testSeamFloor(func(string) string) (time.Duration, error) { return 0, nil }
