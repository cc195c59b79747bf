// Package budget holds how often karpnet may read a cluster again: the floor under the terminal
// UI's and check's --watch and serve's --interval. Both re-run the whole collection, whose Describe calls
// come out of the EC2 request budget an account and Region share with Karpenter.
package budget

import "time"

// Floor is the shortest interval between two collections. A collection's EC2 request count
// is not known before it runs, so the floor is fixed: 15 s keeps the Describe calls of a large
// cluster's collection (69 at 10,000 nodes, see docs/scale.md) well inside EC2's
// refill of 20 requests a second, leaving the bucket to Karpenter.
const Floor = 15 * time.Second

// Interval returns the interval to re-collect on for a requested one: at least floor, and
// whether the request was raised to it. Zero or less means never.
func Interval(requested, floor time.Duration) (time.Duration, bool) {
	if requested <= 0 {
		return 0, false
	}
	if requested < floor {
		return floor, true
	}
	return requested, false
}
