package diagnose

import (
	"fmt"
	"strings"
)

// ProviderID is a parsed EC2 providerID, aws:///ZONE/INSTANCE-ID.
type ProviderID struct {
	Zone       string
	InstanceID string
}

// ParseProviderID parses an EC2 providerID such as aws:///us-west-2a/i-0123456789abcdef0.
// It returns an error naming what is wrong for anything else, including the empty string.
func ParseProviderID(id string) (ProviderID, error) {
	const prefix = "aws:///"
	if id == "" {
		return ProviderID{}, fmt.Errorf("providerID is empty")
	}
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return ProviderID{}, fmt.Errorf("providerID %q does not start with %s", id, prefix)
	}
	zone, instance, ok := strings.Cut(rest, "/")
	if !ok || strings.Contains(instance, "/") {
		return ProviderID{}, fmt.Errorf("providerID %q is not aws:///ZONE/INSTANCE-ID", id)
	}
	if zone == "" {
		return ProviderID{}, fmt.Errorf("providerID %q has no zone", id)
	}
	if !validInstanceID(instance) {
		return ProviderID{}, fmt.Errorf("providerID %q has no valid instance ID (i- and 8 or 17 hex digits)", id)
	}
	return ProviderID{Zone: zone, InstanceID: instance}, nil
}

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

// isEC2ProviderID reports whether a providerID belongs to the aws provider (parsable or not).
func isEC2ProviderID(id string) bool { return strings.HasPrefix(id, "aws:") }
