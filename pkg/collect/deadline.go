package collect

import (
	"fmt"
	"time"
)

// DefaultDeadline is the whole-collection deadline of one cluster when the command line sets
// none: the largest measured collection, 100,000 nodes read by ID, takes 48 s (docs/scale.md).
const DefaultDeadline = 5 * time.Minute

// deadlineGrace is how long a collection past its deadline gets to end with what it read
// before Collect gives up on it.
const deadlineGrace = time.Second

// DeadlineError is a collection that did not finish within its Collector's Deadline.
type DeadlineError struct {
	Deadline time.Duration
	Err      error
}

func (e *DeadlineError) Error() string {
	return fmt.Sprintf("the collection did not finish within %s (the deadline of one cluster): %v", e.Deadline, e.Err)
}

func (e *DeadlineError) Unwrap() error { return e.Err }
