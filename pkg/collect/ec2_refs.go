package collect

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2RegionOfNodes returns the Region most of the nodes' providerIDs are in (ties go to the
// first in name order), or "".
func ec2RegionOfNodes(nodes []corev1.Node) string {
	counts := map[string]int{}
	for _, n := range nodes {
		if p, ok := snapshot.ParseProviderIDLeniently(n.Spec.ProviderID); ok {
			if r := snapshot.RegionOfZone(p.Zone); r != "" {
				counts[r]++
			}
		}
	}
	best := ""
	for r, n := range counts {
		if n > counts[best] || (n == counts[best] && r < best) {
			best = r
		}
	}
	return best
}

// ec2HasInstance reports whether the node's providerID names an EC2 instance to describe
// (snapshot.ParseProviderIDLeniently).
func ec2HasInstance(n corev1.Node) bool {
	_, ok := snapshot.ParseProviderIDLeniently(n.Spec.ProviderID)
	return ok
}

// ec2IDSet collects IDs and returns them sorted and unique.
type ec2IDSet map[string]struct{}

func (s ec2IDSet) add(ids ...string) {
	for _, id := range ids {
		if id != "" {
			s[id] = struct{}{}
		}
	}
}

func (s ec2IDSet) sorted() []string {
	out := make([]string, 0, len(s))
	for id := range s {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// ec2Refs are the IDs and names the second round of EC2 calls describes.
type ec2Refs struct {
	subnets        []string
	securityGroups []string
	// placementNames and placementIDs are placement groups to describe by name and by ID.
	placementNames []string
	placementIDs   []string
	instanceTypes  []string
	// subnetTagTerms are the podSubnetSelectorTerms of Auto Mode NodeClasses that select by
	// tags, and with aws-node's subnet discovery on the kubernetes.io/role/cni=1 tag, one
	// DescribeSubnets call each.
	subnetTagTerms []map[string]string
	// capped are the gaps of sources that named more than ec2MaxIDsPerSource IDs.
	capped []snapshot.Gap
}

// ec2MaxIDsPerSource is the most subnet or security group IDs karpnet reads from one selector
// source (an EC2NodeClass's status, an ENIConfig, the Auto Mode NodeClasses' pod subnet terms):
// one DescribeSubnets or DescribeSecurityGroups call. Karpenter resolves a few dozen at most;
// a status of 20,000 subnets would cost 100 calls of the Describe budget Karpenter shares. The
// first IDs are read and the source becomes a gap of the call's source.
const ec2MaxIDsPerSource = 200

// ec2CapIDs returns the first ec2MaxIDsPerSource of ids, adding to capped a gap of source
// (what, named by owner) when there are more.
func ec2CapIDs(capped *[]snapshot.Gap, source, owner, what string, ids []string) []string {
	if len(ids) <= ec2MaxIDsPerSource {
		return ids
	}
	*capped = append(*capped, snapshot.Gap{Source: source,
		Reason: fmt.Sprintf("%s lists %s %s; karpnet reads the first %d of one source", owner, ec2Thousands(len(ids)), what,
			ec2MaxIDsPerSource),
		Remedy: "narrow its selector terms to the " + what + " the nodes use"})
	return ids[:ec2MaxIDsPerSource]
}

// ec2Thousands writes n with a comma between thousands: 20,000.
func ec2Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// ec2References gathers what the instances, nodes, EC2NodeClasses, Auto Mode NodeClasses
// (including their pod subnets) and ENIConfigs refer to, and the subnets tagged for the VPC
// CNI's subnet discovery when it is on.
func ec2References(s *snapshot.Snapshot, instances []snapshot.Instance) ec2Refs {
	subnets, groups, typeSet := ec2IDSet{}, ec2IDSet{}, ec2IDSet{}
	names, ids := ec2IDSet{}, ec2IDSet{}
	nameOfID := map[string]string{}
	var capped []snapshot.Gap
	for i := range instances {
		in := &instances[i]
		subnets.add(in.SubnetID)
		for _, g := range in.SecurityGroups {
			groups.add(g.ID)
		}
		for _, eni := range in.ENIs {
			subnets.add(eni.SubnetID)
			for _, g := range eni.SecurityGroups {
				groups.add(g.ID)
			}
		}
		name, id := in.Placement.GroupName, in.Placement.GroupID
		switch {
		case name != "":
			names.add(name)
			if id != "" {
				nameOfID[id] = name
			}
		case id != "":
			ids.add(id)
		}
		if ec2ValidTypeName(in.Type) {
			typeSet.add(in.Type)
		}
	}
	for i := range s.Nodes {
		for _, label := range []string{corev1.LabelInstanceTypeStable, corev1.LabelInstanceType} {
			if t := s.Nodes[i].Labels[label]; ec2ValidTypeName(t) {
				typeSet.add(t)
			}
		}
	}
	for _, nc := range s.NodeClasses {
		owner := "EC2NodeClass " + nc.Name
		listed := make([]string, 0, len(nc.StatusSubnets))
		for _, st := range nc.StatusSubnets {
			listed = append(listed, st.ID)
		}
		subnets.add(ec2CapIDs(&capped, snapshot.SourceDescribeSubnets, owner, "subnets in its status", listed)...)
		listed = make([]string, 0, len(nc.StatusSecurityGroups))
		for _, st := range nc.StatusSecurityGroups {
			listed = append(listed, st.ID)
		}
		groups.add(ec2CapIDs(&capped, snapshot.SourceDescribeSecurityGroups, owner, "security groups in its status", listed)...)
		if sel := nc.PlacementGroupSelector; sel != nil {
			names.add(sel.Name)
			if _, known := nameOfID[sel.ID]; !known {
				ids.add(sel.ID)
			}
		}
	}
	podIDs, tagTerms := ec2PodSubnetRefs(s.NodeClasses)
	subnets.add(ec2CapIDs(&capped, snapshot.SourceDescribeSubnets, "the Auto Mode NodeClasses' podSubnetSelectorTerms",
		"subnet IDs", podIDs)...)
	if s.AWSNode.SubnetDiscovery() {
		// The subnets the VPC CNI's subnet discovery may put pods' ENIs in: one more call.
		tagTerms = append(tagTerms, map[string]string{ec2TagRoleCNI: "1"})
	}
	for _, ec := range s.ENIConfigs {
		subnets.add(ec.Subnet)
		groups.add(ec2CapIDs(&capped, snapshot.SourceDescribeSecurityGroups, "ENIConfig "+ec.Name, "security groups",
			ec.SecurityGroups)...)
	}
	return ec2Refs{
		subnets: subnets.sorted(), securityGroups: groups.sorted(),
		placementNames: names.sorted(), placementIDs: ids.sorted(), instanceTypes: typeSet.sorted(),
		subnetTagTerms: tagTerms, capped: capped,
	}
}

// ec2TagRoleCNI marks the subnets the VPC CNI's subnet discovery may use for pods' ENIs.
const ec2TagRoleCNI = "kubernetes.io/role/cni"

// ec2ValidTypeName reports whether t looks like an EC2 instance type name (family.size), so a
// label from another provider never fails a DescribeInstanceTypes call.
func ec2ValidTypeName(t string) bool {
	family, size, ok := strings.Cut(t, ".")
	return ok && family != "" && size != "" && !strings.ContainsFunc(t, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.')
	})
}

// ec2Batches cuts ids into batches of at most size.
func ec2Batches(ids []string, size int) [][]string {
	var out [][]string
	for len(ids) > 0 {
		n := min(size, len(ids))
		out = append(out, ids[:n:n])
		ids = ids[n:]
	}
	return out
}

// ec2Deref returns *p, or the zero value for nil.
func ec2Deref[T any](p *T) T {
	if p == nil {
		return *new(T)
	}
	return *p
}
