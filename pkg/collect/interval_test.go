package collect

import (
	"testing"
	"time"
)

func TestIntervalRaisesShortIntervalsToTheFloor(t *testing.T) {
	for _, c := range []struct {
		in     time.Duration
		want   time.Duration
		raised bool
	}{
		{0, 0, false},
		{-time.Second, 0, false},
		{time.Second, MinInterval, true},
		{MinInterval - time.Nanosecond, MinInterval, true},
		{MinInterval, MinInterval, false},
		{time.Minute, time.Minute, false},
	} {
		got, raised := Interval(c.in)
		if got != c.want || raised != c.raised {
			t.Errorf("Interval(%s) = %s, %v; want %s, %v", c.in, got, raised, c.want, c.raised)
		}
	}
}
