package collect

import "time"

// MinInterval is the shortest interval between two collections of a repeating mode (the
// terminal UI's and check's --watch). A collection of a large cluster spends tens of EC2
// Describe calls from the account's per-Region budget, which refills at 20 calls a second and
// which Karpenter and the VPC CNI share; 15 s between collections leaves that budget refilled
// before the next one starts.
const MinInterval = 15 * time.Second

// Interval returns the interval a repeating mode collects on for a requested one: at least
// MinInterval, and whether the request was raised to it. Zero or less means no repetition.
func Interval(requested time.Duration) (every time.Duration, raised bool) {
	if requested <= 0 {
		return 0, false
	}
	if requested < MinInterval {
		return MinInterval, true
	}
	return requested, false
}
