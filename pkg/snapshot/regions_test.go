package snapshot

import "testing"

func TestRegionOfZone(t *testing.T) {
	tests := map[string]string{
		"us-west-2a":              "us-west-2",
		"eu-central-1c":           "eu-central-1",
		"us-gov-west-1a":          "us-gov-west-1",
		"ap-southeast-4b":         "ap-southeast-4",
		"us-west-2-lax-1a":        "us-west-2",
		"us-east-1-bos-1a":        "us-east-1",
		"us-east-1-wl1-bos-wlz-1": "us-east-1",
		"zz-bogus0-1a":            "zz-bogus0-1",
		"usw2-az1":                "",
		"":                        "",
		"zone-a":                  "",
	}
	for zone, want := range tests {
		if got := RegionOfZone(zone); got != want {
			t.Errorf("RegionOfZone(%q) = %q, want %q", zone, got, want)
		}
	}
}

// TestPartitionRegion: the Regions of every partition are known, invented ones are not.
func TestPartitionRegion(t *testing.T) {
	tests := map[string]bool{
		"us-west-2": true, "eu-central-1": true, "ap-southeast-4": true, "il-central-1": true, "mx-central-1": true,
		"cn-north-1": true, "us-gov-west-1": true, "us-iso-east-1": true, "us-isob-east-1": true, "us-isof-south-1": true,
		"eu-isoe-west-1": true, "eusc-de-east-1": true,
		"zz-bogus0-1": false, "xx-west-1": false, "us-west": false, "us-west-2a": false, "": false, "eusc-fr-east-1": false,
	}
	for region, want := range tests {
		if got := PartitionRegion(region); got != want {
			t.Errorf("PartitionRegion(%q) = %v, want %v", region, got, want)
		}
	}
}

// TestUnavailableIgnoresRegionGaps: a gap of one Region leaves the source readable elsewhere.
func TestUnavailableIgnoresRegionGaps(t *testing.T) {
	s := &Snapshot{Gaps: []Gap{{Source: SourceEC2, Region: "eu-west-1", Reason: "InvalidRegion"}}}
	if s.Unavailable(SourceDescribeInstances) || s.Unavailable(SourceEC2) {
		t.Errorf("a Region's gap made the source unavailable everywhere")
	}
	if g := s.RegionGap("eu-west-1"); g == nil || g.Reason != "InvalidRegion" {
		t.Errorf("RegionGap(eu-west-1) = %v, want the gap", g)
	}
	if g := s.RegionGap("us-west-2"); g != nil {
		t.Errorf("RegionGap(us-west-2) = %v, want nil", g)
	}
	if g := s.ZoneGap("eu-west-1b"); g == nil || g.Subject() != "ec2 in eu-west-1" {
		t.Errorf("ZoneGap(eu-west-1b) = %v, want the gap, ec2 in eu-west-1", g)
	}
	if g := (&Snapshot{Gaps: []Gap{{Source: SourceEC2}}}).ZoneGap("eu-west-1b"); g != nil {
		t.Errorf("ZoneGap without Region gaps = %v, want nil", g)
	}
	s.Gaps = append(s.Gaps, Gap{Source: SourceEC2, Reason: "no credentials"})
	if !s.Unavailable(SourceDescribeInstances) {
		t.Errorf("the whole-EC2 gap did not count")
	}
	if got := s.Gaps[1].Subject(); got != SourceEC2 {
		t.Errorf("Subject of the whole-EC2 gap = %q, want %q", got, SourceEC2)
	}
}
