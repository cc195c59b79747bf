package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specSubnetNotSelected = &Spec{
	ID:        "subnet-not-selected",
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "the instance's subnet is not in its EC2NodeClass status.subnets",
	FiresWhen: "the instance subnet is not in its EC2NodeClass `status.subnets`",
	NotOn:     "nodes without a NodeClass or whose class has no `status.subnets`",
	Why:       "Karpenter marks the node drifted (SubnetDrift) and replaces it",
	Remedy:    "fix `spec.subnetSelectorTerms`, or let Karpenter replace the node",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/drift.go (SubnetDrift)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/subnet.go (status.subnets)",
		"aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_status.go",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/cloudprovider/drift.go (isSubnetDrifted)",
			"A NodeClaim whose instance's subnet is not among the class's status.subnets is drifted with reason SubnetDrift; a class with no status.subnets is not judged."},
		{UpstreamKarpenter, "pkg/controllers/nodeclass/subnet.go (Reconcile)",
			"status.subnets holds the subnets the class's subnetSelectorTerms match, with their zone and zone ID."},
	},
}

// subnetNotSelected finds Karpenter and EKS Auto Mode nodes whose instance sits in a subnet
// their EC2NodeClass or NodeClass no longer resolves (the primary ENI's subnet: Auto Mode pod
// ENIs may use other subnets of the zone). Karpenter marks such NodeClaims Drifted (reason SubnetDrift) and replaces
// them; until then the node may sit in a subnet the cluster was meant to leave.
var subnetNotSelected = Check{
	Spec: specSubnetNotSelected,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Class == nil || len(n.Class.StatusSubnets) == 0 || n.Instance == nil || n.Instance.SubnetID == "" {
				continue
			}
			if slices.ContainsFunc(n.Class.StatusSubnets, func(s snapshot.SubnetStatus) bool { return s.ID == n.Instance.SubnetID }) {
				continue
			}
			ids := make([]string, 0, len(n.Class.StatusSubnets))
			for _, s := range n.Class.StatusSubnets {
				ids = append(ids, s.ID)
			}
			slices.Sort(ids)
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: n.ClassRef(),
				Message: fmt.Sprintf("instance %s is in %s, which %s does not select (status.subnets: %s); "+
					"%s will replace the node as drifted (SubnetDrift)",
					n.Instance.ID, n.Instance.SubnetID, n.ClassLabel(), strings.Join(ids, ", "), n.launcher()),
				Remedy: fmt.Sprintf("if %s should be used, make it match spec.subnetSelectorTerms of %s "+
					"(tags or id; %s, and each in a subnet the terms then leave out drifts); otherwise let %s replace the "+
					"node", n.Instance.SubnetID, n.ClassLabel(), classReach(x, n), n.launcher()),
			})
		}
		return out
	},
}

var specSubnetIPExhaustion = &Spec{
	ID:       "subnet-ip-exhaustion",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyCore,
	Needs:    []string{snapshot.SourceDescribeSubnets},
	Examines: []string{SubjectSubnet},
	Title:    "the subnets new nodes or pods take addresses from cannot take the next nodes",
	FiresWhen: "judged per pool of subnets new nodes and pods draw from: for each EC2NodeClass (or Auto Mode " +
		"NodeClass) a NodePool uses, and each node group, per zone, the subnets new nodes launch into " +
		"(the class's `status.subnets` in the zones its NodePools allow; Karpenter takes the roomiest); " +
		"under custom networking each ENIConfig's pod subnet; with subnet discovery (VPC CNI 1.18+, " +
		"`ENABLE_SUBNET_DISCOVERY` not false) per zone the subnets tagged `kubernetes.io/role/cni=1` and " +
		"the nodes' own (unless tagged `=0`, VPC CNI 1.22+); Auto Mode pod subnets. Critical when the " +
		"roomiest subnet of the pool has fewer free addresses than the next node takes at once: its " +
		"launch (primary IP, `ipPrefixCount` prefixes, other interfaces) plus what ipamd takes at start " +
		"(`WARM_ENI_TARGET`, default 1: the primary ENI's secondary IPs; " +
		"`WARM_IP_TARGET`/`MINIMUM_IP_TARGET`; `WARM_PREFIX_TARGET` /28s with prefix delegation), or in a " +
		"pod subnet its first pod ENI. Warning when fewer than 5 more nodes fit, each taking what the " +
		"pool's nodes hold there now (the median), or the first take when that is more. The message shows " +
		"the free counts and how each figure was estimated",
	NotOn: "a small or full subnet next to a roomy one in the same zone, a type's ENI-limited maximum (an " +
		"empty /21 fits many m5.24xlarge), subnets no class, node group or CNI path would use for new " +
		"nodes, IPv4 for IPv6 pods, pod addresses of Windows, Auto Mode and custom-networking nodes in " +
		"the node subnet",
	Why: "launches fail with `InsufficientFreeAddressesInSubnet`; pods stick in ContainerCreating",
	Remedy: "add subnets in the zone to the selector, a larger or secondary CIDR, a larger ENIConfig pod " +
		"subnet, tag another subnet `kubernetes.io/role/cni=1`, or prefix delegation",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/subnet/subnet.go (ZonalSubnetsForLaunch, UpdateInflightIPs)",
		"aws/amazon-vpc-cni-k8s README.md (WARM_ENI_TARGET, WARM_IP_TARGET, MINIMUM_IP_TARGET, WARM_PREFIX_TARGET, ENABLE_SUBNET_DISCOVERY)",
		"aws/amazon-vpc-cni-k8s pkg/awsutils/awsutils.go (createENI, subnet discovery)",
		"aws/karpenter-provider-aws#3380",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/providers/subnet/subnet.go (ZonalSubnetsForLaunch)",
			"Per zone Karpenter launches into the class's status.subnets entry with the most available addresses, and deducts the addresses it predicts the launch takes."},
		{UpstreamVPCCNI, "README.md (WARM_ENI_TARGET)",
			"WARM_ENI_TARGET defaults to 1: ipamd keeps one spare ENI and all of its addresses."},
		{UpstreamVPCCNI, "README.md (WARM_IP_TARGET, MINIMUM_IP_TARGET, WARM_PREFIX_TARGET)",
			"WARM_IP_TARGET and MINIMUM_IP_TARGET (non-positive means unset) replace the ENI target; WARM_PREFIX_TARGET counts free /28s with prefix delegation."},
		{UpstreamVPCCNI, "README.md (ENABLE_SUBNET_DISCOVERY)",
			"Subnet discovery (default true, v1.18.0+) creates secondary ENIs in the subnet with the most free IPs among the node's own and those tagged kubernetes.io/role/cni in its VPC and zone."},
		{UpstreamVPCCNI, "pkg/awsutils/awsutils.go (createENI, IsSubnetExcluded)",
			"A subnet tagged kubernetes.io/role/cni=0, the node's own included, is left out of ENI creation (first in v1.22.0)."},
	},
}

// subnetIPExhaustion finds the subnets new nodes and pods draw addresses from that cannot take
// the next nodes. On EKS with the VPC CNI every pod takes a subnet address: when the subnets
// a class launches into run dry, launches fail with InsufficientFreeAddressesInSubnet, and
// when pod subnets run dry pods stick in ContainerCreating. It models what Karpenter and the
// CNI do (subnetcap.go): per class (or node group) and zone, the roomiest of the subnets it
// may launch into against what the next node takes at once and what its nodes hold over time;
// ENIConfig pod subnets, subnet discovery's pod subnets and Auto Mode pod subnets alike.
// Subnets no launch or CNI path would use for new nodes are never judged.
var subnetIPExhaustion = Check{
	Spec: specSubnetIPExhaustion,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, p := range subnetPools(x) {
			if len(p.Subnets) == 0 {
				continue
			}
			if f, ok := poolFinding(p); ok {
				out = append(out, f)
			}
		}
		return out
	},
}
