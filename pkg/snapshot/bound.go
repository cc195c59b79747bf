package snapshot

import (
	"fmt"
	"reflect"
)

// Whatever a live run keeps, its snapshot reads back: Bound holds a snapshot read from a
// cluster and from EC2 to the bounds Read takes, before it is analysed or saved, and says
// what it cut. The bounds are Read's own, so the two cannot drift apart:
//
//   - a number out of range (validate) is left out, with a gap that names the field;
//   - a string longer than MaxString once written as JSON is cut to CutString, with a note;
//   - a list longer than MaxElements(DefaultMaxBytes) keeps its first elements, with a gap.

// CutString is what a string too long for a snapshot is cut to (its JSON text, escapes
// counted): enough of an event message or a ConfigMap value to recognise it.
const CutString = 64 << 10

// maxBoundGaps is how many out-of-range values a run names one by one; one more gap counts
// the rest, so a cluster of hostile answers cannot grow the gap list without bound.
const maxBoundGaps = 20

// SourceBound is the Source of a gap Bound adds to count what it did not name one by one
// (values out of range past the first 20, gaps past a list's bound).
const SourceBound = "answers past karpnet's bounds"

// listSources maps a snapshot list to the source it is read from: a list cut is a gap of that
// source, so the checks that need all of it are skipped. Lists not named are gaps of
// SourceBound.
var listSources = map[string]string{
	"nodes": SourceNodes, "nodeClaims": SourceNodeClaims, "nodePools": SourceNodePools, "nodeClasses": SourceNodeClasses,
	"eniConfigs": SourceENIConfigs, "cniNodes": SourceCNINodes,
	"securityGroupPolicies": SourceSecurityGroupPolicies, "ciliumNodes": SourceCiliumNodes,
	"sandboxFailures": SourceEvents, "events": SourceEvents, "nodeEvents": SourceEvents,
	"networkPolicies": SourceNetworkPolicies, "instances": SourceDescribeInstances, "subnets": SourceDescribeSubnets,
	"securityGroups": SourceDescribeSecurityGroups, "placementGroups": SourceDescribePlacementGroups,
	"instanceTypes": SourceDescribeInstanceTypes, "routeTables": SourceDescribeRouteTables,
	"natGateways": SourceDescribeNatGateways, "vpcEndpoints": SourceDescribeVpcEndpoints,
	"networkACLs": SourceDescribeNetworkAcls, "networkInterfaces": SourceSubnetInterfaces,
	"cidrReservations": SourceCIDRReservations, "interfaceOwners": SourceInterfaceOwners,
	"vpcs": SourceDescribeVpcs, "dhcpOptions": SourceDescribeDhcpOptions, "coreDNS": SourceCoreDNSPods,
	"policyAgentPods": SourceAWSNodePods,
}

// Bound holds a live snapshot to the bounds Read takes (see above), in every cluster of a
// snapshot of several. What it leaves out or cuts is a Gap or a Note, never silent.
func (s *Snapshot) Bound() {
	for i := range s.Clusters {
		s.Clusters[i].Bound()
	}
	v := &validator{live: true}
	v.kubernetes(s)
	v.ec2(s)
	for i, r := range v.ranges {
		if i == maxBoundGaps {
			s.Gaps = append(s.Gaps, Gap{Source: SourceBound,
				Reason: fmt.Sprintf("%d more values out of range were left out", len(v.ranges)-maxBoundGaps),
				Remedy: rangeRemedy})
			break
		}
		s.Gaps = append(s.Gaps, Gap{Source: r.source, Reason: r.text + ": left out, no check uses it", Remedy: rangeRemedy})
	}
	c := &cutter{}
	c.walk(reflect.ValueOf(s).Elem())
	if len(c.cuts) > 0 {
		s.Notes = append(s.Notes, c.note())
	}
	s.capLists()
}

// rangeRemedy is the remedy of a gap for a number out of range: no real cluster or account
// answers one, so what answered is not what it seems.
const rangeRemedy = "no AWS or Kubernetes object holds such a number: check what answered for the API (a proxy, a mock, a webhook)"

// capLists keeps the first MaxElements(DefaultMaxBytes) elements of every list Read counts
// (the snapshot's lists of objects), with a gap for each list cut.
func (s *Snapshot) capLists() {
	limit := MaxElements(DefaultMaxBytes)
	v := reflect.ValueOf(s).Elem()
	for _, f := range jsonFields(v.Type()) {
		fv := v.Field(f.index)
		if fv.Kind() != reflect.Slice || fv.Type().Elem().Kind() != reflect.Struct || int64(fv.Len()) <= limit {
			continue
		}
		n := fv.Len()
		if f.key == "gaps" {
			// The gaps themselves: the last kept one counts the rest.
			s.Gaps = append(s.Gaps[:limit-1], Gap{Source: SourceBound,
				Reason: fmt.Sprintf("%s more gaps, past the %s a snapshot holds, were left out", thousands(int64(n)-limit+1), thousands(limit))})
			continue
		}
		fv.Set(fv.Slice3(0, int(limit), int(limit)))
		source := listSources[f.key]
		if source == "" {
			source = SourceBound
		}
		s.Gaps = append(s.Gaps, Gap{Source: source,
			Reason: fmt.Sprintf("%s holds %s elements, more than the %s a snapshot holds: the first %s are kept", f.key,
				thousands(int64(n)), thousands(limit), thousands(limit)),
			Remedy: "narrow the run (--selector, --nodepool, node names) so fewer objects are read"})
	}
	if int64(len(s.Gaps)) > limit {
		s.Gaps = append(s.Gaps[:limit-1], Gap{Source: SourceBound,
			Reason: fmt.Sprintf("%s more gaps, past the %s a snapshot holds, were left out", thousands(int64(len(s.Gaps))-limit+1), thousands(limit))})
	}
}

// InRangeInstanceTypes returns types without those holding a number out of the range a
// snapshot takes, and what is out of range in each left out ("instanceTypes[m5.large].maxENIs:
// 2147483647 is out of range (0 to 1024)"): the check Read and Bound make, for the live
// answers that go into no snapshot (max-pods --live).
func InRangeInstanceTypes(types []InstanceType) ([]InstanceType, []string) {
	v := &validator{live: true}
	s := &Snapshot{InstanceTypes: types}
	v.ec2(s)
	var out []string
	for _, r := range v.ranges {
		out = append(out, r.text)
	}
	return s.InstanceTypes, out
}
