package diagnose

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specPodSubnetZoneMissing = &Spec{
	ID:       "pod-subnet-zone-missing",
	Severity: Critical,
	Family:   FamilyAutoMode,
	Needs:    []string{snapshot.SourceDescribeSubnets},
	Examines: []string{SubjectNode},
	Title:    "an Auto Mode NodeClass's podSubnetSelectorTerms select no subnet in the node's zone",
	FiresWhen: "an Auto Mode node's NodeClass `podSubnetSelectorTerms` select subnets, but none in the node's " +
		"zone (judged on the subnets karpnet read; silent when a term names an unread subnet)",
	NotOn: "terms naming a subnet karpnet could not read",
	Why: "Auto Mode takes pod addresses only from a pod subnet in the node's zone: pods fail with `failed " +
		"to assign an IP address to container`",
	Remedy: "create or tag a pod subnet in that zone, or keep the NodePools out of it",
	Sources: []string{
		"https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html (Subnet selection for Pods)",
		"awsdocs/amazon-eks-user-guide#1088",
	},
	Verified: []Verified{
		{UpstreamEC2API, "types/types.go (Subnet.AvailabilityZone, Subnet.AvailabilityZoneId)",
			"A subnet lies in one Availability Zone, which DescribeSubnets returns by name and by ID."},
	},
}

// podSubnetZoneMissing finds EKS Auto Mode nodes whose NodeClass sets podSubnetSelectorTerms
// that select no subnet in the node's zone. Auto Mode only takes pod addresses from a pod
// subnet in the node's own zone (an ENI cannot cross zones), so every pod that is not
// host-network stays in ContainerCreating with "failed to assign an IP address to container".
// Only subnets karpnet read are matched: when a term names a subnet it could not read, or no
// read subnet matches at all, the check cannot tell and stays silent.
var podSubnetZoneMissing = Check{
	Spec: specPodSubnetZoneMissing,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			c, zone := n.Class, nodeZone(n)
			if !n.AutoMode() || c == nil || len(c.PodSubnetSelectorTerms) == 0 || zone == "" {
				continue
			}
			subnets, complete := podSubnetsOf(x, c)
			if !complete || len(subnets) == 0 {
				continue
			}
			var where []string
			inZone := false
			for _, s := range subnets {
				if s.Zone == "" {
					inZone = true // a zone karpnet does not know may be the node's
				}
				inZone = inZone || s.Zone == zone
				where = append(where, fmt.Sprintf("%s (%s)", s.ID, s.Zone))
			}
			if inZone {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: n.ClassRef(),
				Message: fmt.Sprintf("the node is in %s but spec.podSubnetSelectorTerms of %s (%s) select subnets only "+
					"in other zones: %s; Auto Mode takes pod addresses only from a pod subnet in the node's zone, so pods "+
					"get no IP address (\"failed to assign an IP address to container\")",
					zone, n.ClassLabel(), strings.Join(termsText(c.PodSubnetSelectorTerms), "; "), strings.Join(where, ", ")),
				Remedy: fmt.Sprintf("create or tag a pod subnet in %s so spec.podSubnetSelectorTerms of %s selects it "+
					"(e.g. tag kubernetes.io/role/pod=1), with routes and network ACLs open between node and pod subnets; "+
					"or keep the NodePools of %s out of %s (topology.kubernetes.io/zone requirement)",
					zone, n.ClassLabel(), n.ClassLabel(), zone),
			})
		}
		return out
	},
}

var specPodSubnetSecurityGroupsMissing = &Spec{
	ID:        "pod-subnet-security-groups-missing",
	Severity:  Critical,
	Family:    FamilyAutoMode,
	Examines:  []string{SubjectNodeClass},
	Title:     "an Auto Mode NodeClass sets podSubnetSelectorTerms without podSecurityGroupSelectorTerms",
	FiresWhen: "an Auto Mode NodeClass sets `podSubnetSelectorTerms` without `podSecurityGroupSelectorTerms`",
	NotOn:     "classes without pod subnets",
	Why:       "EKS requires both; pods in the pod subnets get no security groups of their own",
	Remedy: "add `spec.podSecurityGroupSelectorTerms` (e.g. the cluster security group), or drop the pod " +
		"subnets",
	Sources: []string{
		"https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html (podSecurityGroupSelectorTerms required with podSubnetSelectorTerms)",
	},
	Verified: []Verified{
		{UpstreamAWSDocs, "Assign security groups to individual Pods in EKS Auto Mode (note on podSecurityGroupSelectorTerms)",
			"A NodeClass's podSecurityGroupSelectorTerms gives one set of security groups to every pod on the nodes of that NodeClass."},
	},
}

// podSubnetSecurityGroupsMissing finds Auto Mode NodeClasses that set podSubnetSelectorTerms
// without podSecurityGroupSelectorTerms. EKS requires the two together: pod ENIs in the pod
// subnets need their own security groups, as the node's securityGroupSelectorTerms do not
// apply to them.
var podSubnetSecurityGroupsMissing = Check{
	Spec: specPodSubnetSecurityGroupsMissing,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, c := range x.sortedClasses() {
			if !c.AutoMode() || len(c.PodSubnetSelectorTerms) == 0 || len(c.PodSecurityGroupSelectorTerms) > 0 {
				continue
			}
			pools := ""
			if p := poolsOfClass(x, c); len(p) > 0 {
				pools = fmt.Sprintf(" (NodePool %s)", strings.Join(p, ", "))
			}
			out = append(out, Finding{
				Resource: classRef(c),
				Message: fmt.Sprintf("%s%s sets spec.podSubnetSelectorTerms (%s) but no spec.podSecurityGroupSelectorTerms: "+
					"EKS requires both, and pods in the pod subnets get no security groups of their own",
					classLabel(c), pools, strings.Join(termsText(c.PodSubnetSelectorTerms), "; ")),
				Remedy: fmt.Sprintf("add spec.podSecurityGroupSelectorTerms to %s (by id or tags) selecting the groups "+
					"pods need (typically the cluster security group), or remove spec.podSubnetSelectorTerms", classLabel(c)),
			})
		}
		return out
	},
}

var specPodSubnetMismatch = &Spec{
	ID:       "pod-subnet-mismatch",
	Severity: Warning,
	Family:   FamilyAutoMode,
	Examines: []string{SubjectNode},
	Title:    "pod addresses of an Auto Mode node lie outside its NodeClass's pod subnets",
	FiresWhen: "with pod subnets set, an Auto Mode node has secondary ENIs outside them, or secondary " +
		"IPs/prefixes on its primary ENI",
	NotOn: "classes without pod subnets",
	Why:   "pods use node-subnet addresses and security groups, not the pod subnets' routes, ACLs and groups",
	Remedy: "replace the node (pod subnets apply at launch); check the pod subnets have free addresses in the " +
		"zone",
	Sources: []string{
		"https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html (Subnet selection for Pods)",
		"https://docs.aws.amazon.com/eks/latest/userguide/auto-networking.html",
	},
	Verified: []Verified{
		{UpstreamAWSDocs, "Create a Node Class for Amazon EKS (Considerations for pod-sparse or high-scale workloads)",
			"EKS Auto Mode gives pods addresses from /28 prefixes by default, 16 pod IPs reserved per node, and can be set to single secondary IPs."},
	},
}

// podSubnetMismatch finds Auto Mode nodes whose NodeClass sets pod subnets but whose pod
// addresses are elsewhere: secondary ENIs outside the pod subnets, or secondary IPs and
// prefixes on the primary ENI, which sits in the node subnet. Pods there get node-subnet
// addresses and the node's security groups instead of the pod ones, which breaks the
// routing, network ACLs and security groups built around the pod subnets. Auto Mode reads the
// pod subnets when it launches a node, so nodes launched before they were set keep the old
// layout until replaced.
var podSubnetMismatch = Check{
	Spec: specPodSubnetMismatch,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if f, ok := podSubnetMismatchFinding(x, n); ok {
				out = append(out, f)
			}
		}
		return out
	},
}

// podSubnetMismatchFinding checks one node's ENIs against its class's pod subnets. ENIs
// whose subnet karpnet cannot match (not read, while the terms select by tags) are left out.
func podSubnetMismatchFinding(x *Index, n *NodeInfo) (Finding, bool) {
	c := n.Class
	if !n.AutoMode() || c == nil || len(c.PodSubnetSelectorTerms) == 0 || n.Instance == nil {
		return Finding{}, false
	}
	terms := c.PodSubnetSelectorTerms
	var wrong []string
	for _, e := range n.Instance.ENIs {
		if e.InterfaceType != "" && e.InterfaceType != "interface" && e.InterfaceType != interfaceEFA || e.SubnetID == "" {
			continue
		}
		if subnetSelected(terms, e.SubnetID, x.Subnets[e.SubnetID]) != matchNo {
			continue
		}
		if e.NetworkCardIndex != 0 || e.DeviceIndex != 0 {
			wrong = append(wrong, fmt.Sprintf("%s (card %d, device %d) in %s", e.ID, e.NetworkCardIndex, e.DeviceIndex, e.SubnetID))
			continue
		}
		var ips int
		for _, ip := range e.PrivateIPs {
			if ip != e.PrimaryIP && ip != n.Instance.PrivateIP {
				ips++
			}
		}
		if ips+len(e.IPv4Prefixes) > 0 {
			wrong = append(wrong, fmt.Sprintf("primary %s in node subnet %s holds %s and %s", e.ID, e.SubnetID,
				countText(ips, "secondary IP", "secondary IPs"), countText(len(e.IPv4Prefixes), "prefix", "prefixes")))
		}
	}
	if len(wrong) == 0 {
		return Finding{}, false
	}
	return Finding{
		Node:     n.Name(),
		Resource: n.ClassRef(),
		Message: fmt.Sprintf("%s selects pod subnets (%s), but instance %s has pod addresses outside them: %s; "+
			"pods there use node-subnet addresses and security groups", n.ClassLabel(),
			strings.Join(termsText(terms), "; "), n.Instance.ID, strings.Join(wrong, "; ")),
		Remedy: fmt.Sprintf("%s; if new nodes show the same, check that spec.podSubnetSelectorTerms of %s select a "+
			"subnet with free addresses in %s", replaceNodeProse(n, "so Auto Mode applies the pod subnets, which it does at launch"),
			n.ClassLabel(), nodeZone(n)),
		Commands: replaceNodeCommands(n),
	}, true
}
