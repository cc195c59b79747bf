package diagnose

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkHostileLaunchMessage analyses a NodeClaim whose launch error is 1 MiB: the finding
// quotes 300 bytes of it.
func BenchmarkHostileLaunchMessage(b *testing.B) {
	s := edited(healthy(), unjoined(time.Minute, false, launchErr("LaunchFailed", strings.Repeat("é", 1<<19))))
	b.ReportAllocs()
	var n int
	for b.Loop() {
		r := Analyze(s, Options{})
		n = len(r.Findings[0].Message)
	}
	b.ReportMetric(float64(n), "msgbytes")
}

func TestClipText(t *testing.T) {
	if got := clipText("short"); got != "short" {
		t.Errorf("clipText(short) = %q", got)
	}
	got := clipText(strings.Repeat("é", 200)) // 400 bytes, 2 per rune
	if want := strings.Repeat("é", 150) + "..."; got != want {
		t.Errorf("clipText cut %d bytes, want %d on a rune boundary", len(got), len(want))
	}
	got = clipText("a" + strings.Repeat("é", 200)) // byte 300 is inside a rune
	if want := "a" + strings.Repeat("é", 149) + "..."; got != want {
		t.Errorf("clipText cut %q..., want the cut before the split rune", got[len(got)-6:])
	}
}
