package diagnose

import "github.com/karpnet/kubectl-karpnet/pkg/snapshot"

// ProviderID is a parsed EC2 providerID, aws:///ZONE/INSTANCE-ID (snapshot.ProviderID).
type ProviderID = snapshot.ProviderID

// ParseProviderID parses an EC2 providerID strictly (snapshot.ParseProviderID): an error
// names what is wrong for anything but aws:///ZONE/i- and 8 or 17 hex digits.
func ParseProviderID(id string) (ProviderID, error) { return snapshot.ParseProviderID(id) }

// isEC2ProviderID reports whether a providerID belongs to the aws provider (parsable or not).
func isEC2ProviderID(id string) bool { return snapshot.IsEC2ProviderID(id) }
