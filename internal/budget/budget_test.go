package budget

import (
	"testing"
	"time"
)

func TestInterval(t *testing.T) {
	for _, c := range []struct {
		in, floor, want time.Duration
		raised          bool
	}{
		{0, Floor, 0, false},
		{-time.Second, Floor, 0, false},
		{time.Second, Floor, Floor, true},
		{Floor - time.Nanosecond, Floor, Floor, true},
		{Floor, Floor, Floor, false},
		{time.Minute, Floor, time.Minute, false},
		{time.Second, 2 * time.Second, 2 * time.Second, true},
	} {
		got, raised := Interval(c.in, c.floor)
		if got != c.want || raised != c.raised {
			t.Errorf("Interval(%s, %s) = %s, %v; want %s, %v", c.in, c.floor, got, raised, c.want, c.raised)
		}
	}
}
