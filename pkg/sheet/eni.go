package sheet

import (
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ENISheetKind is the kind of an ENISheet in JSON and YAML.
const ENISheetKind = "ENI"

// ENISheet is `describe eni`'s view of one interface karpnet read on its own (in a subnet
// prefixes are carved from, or left available): where it is, what it holds, the security
// groups it pins, who created it and when, and its findings.
type ENISheet struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	ID         string `json:"id"`
	VpcID      string `json:"vpcID,omitempty"`
	SubnetID   string `json:"subnetID"`
	Zone       string `json:"zone,omitempty"`
	// Status is available (attached to nothing), attaching, in-use or detaching.
	Status        string `json:"status"`
	InterfaceType string `json:"interfaceType,omitempty"`
	Description   string `json:"description,omitempty"`
	InstanceID    string `json:"instanceID,omitempty"`
	// PrivateIPs, IPv4Prefixes, IPv6Addresses and IPv6Prefixes are the addresses it holds.
	PrivateIPs    []string `json:"privateIPs"`
	IPv4Prefixes  []string `json:"ipv4Prefixes"`
	IPv6Addresses []string `json:"ipv6Addresses,omitempty"`
	IPv6Prefixes  []string `json:"ipv6Prefixes,omitempty"`
	// SecurityGroups are the groups it pins: none of them can be deleted while it exists.
	SecurityGroups []snapshot.GroupRef `json:"securityGroups"`
	// Creator names what created it (from its description and tags); Age how long ago the
	// VPC CNI created it (its createdAt tag); ForInstance the instance its creator tagged it for.
	Creator     string             `json:"creator,omitempty"`
	Age         string             `json:"age,omitempty"`
	ForInstance string             `json:"forInstance,omitempty"`
	Tags        map[string]string  `json:"tags,omitempty"`
	Findings    []diagnose.Finding `json:"findings"`
}

// DescribeENI builds the sheet of interface id from x and r, the Report Analyze made of the
// same snapshot with no selection; false when karpnet did not read the interface on its own.
func DescribeENI(x *diagnose.Index, r diagnose.Report, id string) (ENISheet, bool) {
	e := x.Interface(id)
	if e == nil {
		return ENISheet{}, false
	}
	sh := ENISheet{
		Kind: ENISheetKind, APIVersion: SheetAPIVersion,
		ID: e.ID, VpcID: e.VpcID, SubnetID: e.SubnetID, Zone: e.Zone, Status: e.Status, InterfaceType: e.InterfaceType,
		Description: e.Description, InstanceID: e.InstanceID,
		PrivateIPs: nonNilStrings(e.PrivateIPs), IPv4Prefixes: nonNilStrings(e.IPv4Prefixes),
		IPv6Addresses: e.IPv6Addresses, IPv6Prefixes: e.IPv6Prefixes,
		SecurityGroups: e.SecurityGroups, Creator: diagnose.ENICreator(e), Age: diagnose.ENIAge(e, x.Snapshot.Taken),
		ForInstance: e.Tags[snapshot.TagCNIInstanceID], Tags: e.Tags,
		Findings: r.About("eni/" + e.ID),
	}
	if sh.SecurityGroups == nil {
		sh.SecurityGroups = []snapshot.GroupRef{}
	}
	return sh, true
}

// nonNilStrings returns s, or an empty list for nil, so that JSON shows [].
func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
