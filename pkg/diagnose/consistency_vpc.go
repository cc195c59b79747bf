package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specNodeClassSubnetVPCMismatch = &Spec{
	ID:       "nodeclass-subnet-vpc-mismatch",
	Severity: Critical,
	Family:   FamilyConsistency,
	Examines: []string{SubjectNodeClass},
	Title:    "an EC2NodeClass's subnets and security groups span several VPCs or lie outside the cluster's",
	FiresWhen: "an EC2NodeClass's status subnets and security groups span more than one VPC, or lie outside the " +
		"VPC most checked nodes run in",
	NotOn: "subnets and groups karpnet could not read",
	Why: "selectors have no VPC filter; EC2 rejects launches pairing a subnet and a group of different " +
		"VPCs (\"belong to different networks\"), and a node in another VPC cannot reach the cluster",
	Remedy: "make `spec.subnetSelectorTerms` / `spec.securityGroupSelectorTerms` select only the cluster " +
		"VPC's resources (by ID or VPC-specific tags)",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/subnet/subnet.go (getFilterSets: no vpc-id filter)",
		"aws/karpenter-provider-aws pkg/providers/securitygroup/securitygroup.go",
		"aws/karpenter-provider-aws#3007",
		"aws-ia/terraform-aws-eks-blueprints#554",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/providers/subnet/subnet.go (getFilterSets)",
			"Subnet selector terms become subnet-id, tag-key and tag:KEY filters only: no vpc-id filter, so a selector may match subnets of any VPC in the account."},
		{UpstreamKarpenter, "pkg/providers/securitygroup/securitygroup.go (getFilterSets)",
			"Security group selector terms become group-id, group-name, tag-key and tag:KEY filters only, with no vpc-id filter."},
	},
}

// nodeClassSubnetVPCMismatch finds EC2NodeClasses whose resolved subnets and security groups
// are not all in the cluster's VPC. Karpenter's subnet and security-group selectors have no
// VPC filter, so a tag shared with another VPC's resources pulls them in: EC2 then rejects the
// launch ("Security group ... and subnet ... belong to different networks") whenever Karpenter
// pairs them, and a node launched wholly in another VPC cannot reach the cluster.
var nodeClassSubnetVPCMismatch = Check{
	Spec: specNodeClassSubnetVPCMismatch,
	Run: func(x *Index) []Finding {
		cluster := clusterVPC(x)
		var out []Finding
		for _, c := range x.sortedClasses() {
			if f, ok := classVPCFinding(x, c, cluster); ok {
				out = append(out, f)
			}
		}
		return out
	},
}

// clusterVPC returns the VPC most checked nodes' instances are in, or "" when none is known
// or two VPCs tie.
func clusterVPC(x *Index) string {
	count := map[string]int{}
	for _, n := range x.checkedNodes() {
		if n.Instance != nil && n.Instance.VpcID != "" {
			count[n.Instance.VpcID]++
		}
	}
	best, tie := "", false
	for _, vpc := range sortedKeys(count) {
		switch {
		case best == "" || count[vpc] > count[best]:
			best, tie = vpc, false
		case count[vpc] == count[best]:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// classVPCFinding groups a class's status subnets and security groups by VPC (those whose VPC
// is unknown are left out) and reports more than one VPC, or one other than the cluster's.
func classVPCFinding(x *Index, c *snapshot.EC2NodeClass, cluster string) (Finding, bool) {
	byVPC := map[string][]string{}
	for _, s := range c.StatusSubnets {
		if sn := x.Subnets[s.ID]; sn != nil && sn.VpcID != "" {
			byVPC[sn.VpcID] = append(byVPC[sn.VpcID], s.ID)
		}
	}
	for _, g := range c.StatusSecurityGroups {
		if sg := x.SecurityGroups[g.ID]; sg != nil && sg.VpcID != "" {
			byVPC[sg.VpcID] = append(byVPC[sg.VpcID], g.ID)
		}
	}
	_, inCluster := byVPC[cluster]
	if len(byVPC) == 0 || len(byVPC) == 1 && (cluster == "" || inCluster) {
		return Finding{}, false
	}
	var groups, outside []string
	for _, vpc := range sortedKeys(byVPC) {
		ids := slices.Sorted(slices.Values(byVPC[vpc]))
		groups = append(groups, fmt.Sprintf("%s (%s)", vpc, strings.Join(ids, ", ")))
		if cluster != "" && vpc != cluster {
			outside = append(outside, ids...)
		}
	}
	slices.Sort(outside)
	var msg, remedy string
	selectors := "spec.subnetSelectorTerms and spec.securityGroupSelectorTerms of " + classLabel(c)
	switch {
	case len(byVPC) > 1:
		msg = fmt.Sprintf("%s resolves subnets and security groups in %d VPCs: %s; EC2 rejects launches "+
			"that pair a subnet with a security group of another VPC (\"Security group ... and subnet ... belong "+
			"to different networks\")", classLabel(c), len(byVPC), strings.Join(groups, ", "))
	default:
		msg = fmt.Sprintf("%s resolves subnets and security groups only in %s", classLabel(c), groups[0])
	}
	if cluster != "" {
		msg += fmt.Sprintf("; the cluster's nodes run in %s, and a node launched in another VPC cannot reach the cluster", cluster)
		remedy = fmt.Sprintf("make %s select only resources in %s (drop %s): the selectors have no VPC filter, "+
			"so select by ID or by tags only the cluster VPC's subnets and groups carry", selectors, cluster, strings.Join(outside, ", "))
	} else {
		remedy = fmt.Sprintf("make %s select resources of the cluster's VPC only: the selectors have no VPC filter, "+
			"so select by ID or by tags only that VPC's subnets and groups carry", selectors)
	}
	return Finding{
		Resource: classRef(c),
		Message:  msg, Remedy: remedy,
	}, true
}
