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
	ID:       "subnet-not-selected",
	Severity: Warning,
	Title:    "the instance's subnet is not in its EC2NodeClass status.subnets",
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Class == nil || len(n.Class.StatusSubnets) == 0 || n.Instance == nil || n.Instance.SubnetID == "" {
				continue
			}
			var ids []string
			selected := false
			for _, s := range n.Class.StatusSubnets {
				ids = append(ids, s.ID)
				selected = selected || s.ID == n.Instance.SubnetID
			}
			if selected {
				continue
			}
			slices.Sort(ids)
			out = append(out, Finding{
				ID:       "subnet-not-selected",
				Severity: Warning,
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

// subnetIPExhaustion finds subnets whose free addresses cannot hold the next nodes. On EKS with
// the VPC CNI every pod takes a subnet IP: when a subnet runs dry, launches fail with
// InsufficientFreeAddressesInSubnet and pods on running nodes stick in ContainerCreating.
var subnetIPExhaustion = Check{
	ID:       "subnet-ip-exhaustion",
	Severity: Critical,
	Title:    "a node subnet is running out of free IP addresses",
	Run: func(x *Index) []Finding {
		var out []Finding
		cni := CNISettingsFrom(x.Snapshot.AWSNode)
		for _, u := range subnetUses(x) {
			if f, ok := exhaustionFinding(u, cni); ok {
				out = append(out, f)
			}
		}
		return out
	},
}

// exhaustionFinding rates one subnet: critical below one node's need, warning below five
// nodes' need or below 10% of its usable addresses.
func exhaustionFinding(u subnetUse, cni CNISettings) (Finding, bool) {
	s := u.subnet
	free := int64(s.AvailableIPs)
	usable := usableIPs(s.CIDR)
	size := "unknown usable size"
	if usable > 0 {
		size = fmt.Sprintf("%d usable", usable)
	}
	head := fmt.Sprintf("%s (%s, %s) has %d free of %s IPs", s.ID, s.Zone, s.CIDR, free, size)
	needText := "no instance type is known to size the next node"
	if u.need > 0 {
		needText = u.needFrom
	}
	var sev Severity
	var msg string
	switch {
	case u.need > 0 && free < u.need:
		sev, msg = Critical, fmt.Sprintf("%s, fewer than %s", head, needText)
	case u.need > 0 && free < 5*u.need:
		sev, msg = Warning, fmt.Sprintf("%s, fewer than 5 x %d = %d for the next nodes: %s", head, u.need, 5*u.need, needText)
	case usable > 0 && free*10 < usable:
		sev, msg = Warning, fmt.Sprintf("%s, under 10%% of the subnet; %s", head, needText)
	default:
		return Finding{}, false
	}
	return Finding{
		ID:       "subnet-ip-exhaustion",
		Severity: sev,
		Resource: subnetRef(s.ID),
		Message:  msg,
		Remedy:   exhaustionRemedy(u, cni),
	}, true
}

// exhaustionRemedy says where more addresses come from for this kind of subnet.
func exhaustionRemedy(u subnetUse, cni CNISettings) string {
	s := u.subnet
	if u.podSubnet && len(u.podClasses) > 0 {
		return fmt.Sprintf("add pod subnets in %s to spec.podSubnetSelectorTerms of NodeClass %s, or add a secondary "+
			"CIDR to the VPC for a new one; secondary-IP mode (spec.advancedNetworking.ipv4PrefixSize: \"32\") takes "+
			"single addresses instead of /28 prefixes", s.Zone, strings.Join(u.podClasses, ", "))
	}
	if u.podSubnet {
		return fmt.Sprintf("point the ENIConfigs of %s at a larger pod subnet (kubectl edit eniconfig; spec.subnet), "+
			"or add a secondary CIDR to the VPC for a new one", s.Zone)
	}
	where := "the node group's subnet list"
	var names []string
	for _, kind := range []string{snapshot.KindEC2NodeClass, snapshot.KindNodeClass} {
		var of []string
		for _, key := range u.classes {
			if k, name, _ := strings.Cut(key, "/"); k == kind {
				of = append(of, name)
			}
		}
		if len(of) > 0 {
			names = append(names, kind+" "+strings.Join(of, ", "))
		}
	}
	if len(names) > 0 {
		where = "spec.subnetSelectorTerms of " + strings.Join(names, " and ")
	}
	remedy := fmt.Sprintf("add subnets in %s to %s, or give the VPC a larger or secondary CIDR", s.Zone, where)
	if len(u.classes) > 0 && allAutoMode(u.classes) {
		return remedy + "; Auto Mode pods can take addresses from other subnets (spec.podSubnetSelectorTerms with " +
			"spec.podSecurityGroupSelectorTerms), and secondary-IP mode (spec.advancedNetworking.ipv4PrefixSize: \"32\") " +
			"takes single addresses instead of /28 prefixes"
	}
	if !cni.PrefixDelegation && !cni.CustomNetworking {
		remedy += fmt.Sprintf("; custom networking moves pod addresses to other subnets, and prefix delegation "+
			"(aws-node %s=true) packs them into /28 prefixes", SettingPrefixDelegation)
	}
	return remedy
}
