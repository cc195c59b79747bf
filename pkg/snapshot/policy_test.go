package snapshot

import "testing"

// The agent's allowance is read in its own message and behind client-go's combined prefix; a
// look-alike without the colon, or another issue, is none.
func TestAllowance(t *testing.T) {
	const pps = `PPSExceeded: pps_allowance_exceeded increased on interface "ens5" from 0 to 512`
	for _, tc := range []struct {
		message, want string
		combined      bool
	}{
		{pps, AllowancePPS, false},
		{"(combined from similar events): " + pps, AllowancePPS, true},
		{"(combined from similar events): IPAMDNotRunning: ipamd is not running", "", true},
		{"PPSExceeded", "", false},
		{"PPSExceededSoon: no", "", false},
		{"MissingDefaultRoutes: no default route", "", false},
	} {
		if got := Allowance(tc.message); got != tc.want {
			t.Errorf("Allowance(%q) = %q, want %q", tc.message, got, tc.want)
		}
		if got := Combined(tc.message); got != tc.combined {
			t.Errorf("Combined(%q) = %v, want %v", tc.message, got, tc.combined)
		}
	}
}
