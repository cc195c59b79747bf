package snapshot

import (
	"fmt"
	"strings"
)

// providerIDPrefix starts every providerID of an EC2 instance: aws:///ZONE/INSTANCE-ID.
const providerIDPrefix = "aws:///"

// ProviderID is a parsed EC2 providerID, aws:///ZONE/INSTANCE-ID.
type ProviderID struct {
	Zone       string
	InstanceID string
}

// ParseProviderID parses an EC2 providerID such as aws:///us-west-2a/i-0123456789abcdef0, as
// the AWS cloud provider and Karpenter write it: a zone, and an instance ID of i- and 8 or 17
// lowercase hex digits. It returns an error naming what is wrong for anything else, including
// the empty string. Diagnosis parses with it: a node whose providerID it refuses cannot be
// matched to an instance, and is reported so.
func ParseProviderID(id string) (ProviderID, error) {
	zone, instance, err := splitProviderID(id)
	if err != nil {
		return ProviderID{}, err
	}
	if !validInstanceID(instance) {
		return ProviderID{}, fmt.Errorf("providerID %q has no valid instance ID (i- and 8 or 17 hex digits)", id)
	}
	return ProviderID{Zone: zone, InstanceID: instance}, nil
}

// ParseProviderIDLeniently parses a providerID as collection reads it to know which instance
// to describe, and in which zone and Region: what ParseProviderID accepts and, beyond it, an
// instance ID that is i- and anything else but a slash (another length, upper case, other
// letters). Collection still asks EC2 about such an instance, so that the snapshot holds
// whatever EC2 knows of it, while diagnosis, which parses with ParseProviderID, reports the
// providerID as one it cannot match. ok is false for whatever ParseProviderID refuses for
// another reason than its instance ID.
func ParseProviderIDLeniently(id string) (p ProviderID, ok bool) {
	zone, instance, err := splitProviderID(id)
	if err != nil || !strings.HasPrefix(instance, "i-") {
		return ProviderID{}, false
	}
	return ProviderID{Zone: zone, InstanceID: instance}, true
}

// IsEC2ProviderID reports whether a providerID belongs to the aws provider, parsable or not.
func IsEC2ProviderID(id string) bool { return strings.HasPrefix(id, "aws:") }

// splitProviderID splits aws:///ZONE/INSTANCE into its zone and instance, with an error
// naming what is wrong when it is not of that form or has no zone.
func splitProviderID(id string) (zone, instance string, err error) {
	if id == "" {
		return "", "", fmt.Errorf("providerID is empty")
	}
	rest, ok := strings.CutPrefix(id, providerIDPrefix)
	if !ok {
		return "", "", fmt.Errorf("providerID %q does not start with %s", id, providerIDPrefix)
	}
	zone, instance, ok = strings.Cut(rest, "/")
	if !ok || strings.Contains(instance, "/") {
		return "", "", fmt.Errorf("providerID %q is not aws:///ZONE/INSTANCE-ID", id)
	}
	if zone == "" {
		return "", "", fmt.Errorf("providerID %q has no zone", id)
	}
	return zone, instance, nil
}

// ValidInstanceID reports whether s is an EC2 instance ID: i- and 8 or 17 lowercase hex digits.
func ValidInstanceID(s string) bool { return validInstanceID(s) }

// validInstanceID reports whether s is an EC2 instance ID: i- and 8 or 17 lowercase hex
// digits.
func validInstanceID(s string) bool {
	hex, ok := strings.CutPrefix(s, "i-")
	if !ok || (len(hex) != 8 && len(hex) != 17) {
		return false
	}
	for _, r := range hex {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
