package snapshot

import (
	"regexp"
	"slices"
	"strings"
)

// RegionOfZone returns the Region of an Availability Zone, Local Zone or Wavelength Zone
// name: us-west-2a, us-west-2-lax-1a and us-east-1-wl1-bos-wlz-1 all give the Region of their
// first numbered part (us-west-2, us-west-2, us-east-1). It returns "" for anything else.
func RegionOfZone(zone string) string {
	parts := strings.Split(zone, "-")
	for i, p := range parts {
		if p == "" || p[0] < '0' || p[0] > '9' {
			continue
		}
		if i < 2 {
			return ""
		}
		digits := strings.TrimRightFunc(p, func(r rune) bool { return r < '0' || r > '9' })
		if strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return ""
		}
		return strings.Join(parts[:i], "-") + "-" + digits
	}
	return ""
}

// partitionRegions matches the Region names of every AWS partition (aws, aws-cn, aws-us-gov,
// the ISO partitions and the European Sovereign Cloud), as the AWS SDK for Go's partition
// list (aws-sdk-go-v2 internal/endpoints/awsrulesfn) names them.
var partitionRegions = regexp.MustCompile(`^(?:(?:us|eu|ap|sa|ca|me|af|il|mx|cn)-\w+|us-gov-\w+|us-iso-\w+|us-isob-\w+|us-isof-\w+|eu-isoe-\w+|eusc-de-\w+)-\d+$`)

// PartitionRegion reports whether region has the form of a Region of some AWS partition;
// a providerID that names another (zz-bogus0-1) was not written by AWS.
func PartitionRegion(region string) bool { return partitionRegions.MatchString(region) }

// ZoneGap returns the gap that says EC2 could not be read in the Region of zone (a Gap with
// that Region), or nil; without such gaps it costs no work per zone.
func (s *Snapshot) ZoneGap(zone string) *Gap {
	if !slices.ContainsFunc(s.Gaps, func(g Gap) bool { return g.Region != "" }) {
		return nil
	}
	return s.RegionGap(RegionOfZone(zone))
}

// RegionGap returns the gap that says EC2 could not be read in region (a Gap with that Region),
// or nil.
func (s *Snapshot) RegionGap(region string) *Gap {
	if region == "" {
		return nil
	}
	for i := range s.Gaps {
		if s.Gaps[i].Region == region {
			return &s.Gaps[i]
		}
	}
	return nil
}

// Subject names what the gap covers: its source, or "SOURCE in REGION" for one Region's.
func (g Gap) Subject() string {
	if g.Region != "" {
		return g.Source + " in " + g.Region
	}
	return g.Source
}
