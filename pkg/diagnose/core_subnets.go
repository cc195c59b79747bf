package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

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
					"(tags or id); otherwise let %s replace the node", n.Instance.SubnetID, n.ClassLabel(), n.launcher()),
			})
		}
		return out
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
		if x.Unavailable(snapshot.SourceDescribeSubnets) {
			return nil
		}
		var out []Finding
		for _, p := range subnetPools(x) {
			if len(p.subnets) == 0 {
				continue
			}
			if f, ok := p.finding(); ok {
				out = append(out, f)
			}
		}
		return out
	},
}
