package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specCiliumENISelectionMismatch = &Spec{
	ID:       "cilium-eni-selection-mismatch",
	Severity: Warning,
	Family:   FamilyNodeAgents,
	Needs:    []string{snapshot.SourceCiliumNodes},
	Examines: []string{SubjectNode},
	Title:    "an ENI Cilium attached is in a subnet or has security groups other than its CiliumNode asks for",
	FiresWhen: "Cilium runs with `ipam: eni` and an interface from `first-interface-index` on (never the primary one) is " +
		"in a subnet outside the CiliumNode's `spec.eni.subnet-ids` / `subnet-tags`, or carries security groups other " +
		"than `spec.eni.security-groups` / matching `security-group-tags`",
	NotOn: "CiliumNodes that select no subnet or group (Cilium then uses the node's own); EFA-only and trunk interfaces; " +
		"subnets and groups whose tags were not read; a `first-interface-index` below 0 or above the type's interfaces (a " +
		"note names it)",
	Why: "pods on that interface take addresses of the wrong subnet, or are filtered by the wrong security groups: " +
		"traffic is dropped or routed where the subnet's route table sends it",
	Remedy: "fix the CiliumNode's spec.eni (Helm eni.nodeSpec.subnetIDs / securityGroups) and replace the node, so Cilium " +
		"attaches new interfaces by it",
	Sources: []string{
		"cilium/cilium pkg/k8s/apis/cilium.io/client/crds/v2/ciliumnodes.yaml (spec.eni, status.eni.enis)",
		"cilium/cilium pkg/aws/ipam/node.go (the subnet and security groups of a new interface)",
	},
	Verified: []Verified{
		{UpstreamCilium, "pkg/aws/types/types.go (ENISpec)",
			"spec.eni names the selection subnet-ids, subnet-tags, security-groups and security-group-tags, and first-interface-index"},
		{UpstreamCilium, "pkg/aws/ipam/node.go (findSuitableSubnet)",
			"a new interface goes to a subnet of subnet-ids in the node's zone, else one matching subnet-tags, else the node's own subnet"},
		{UpstreamCilium, "pkg/aws/ipam/node.go (getSecurityGroupIDs)",
			"a new interface carries security-groups, else the groups matching security-group-tags, else the primary interface's groups"},
		{UpstreamCilium, "pkg/ipam/types/types.go (Tags.Match)",
			"a tag selection matches when every key is present with exactly its value"},
		{UpstreamCilium, "pkg/aws/types/types.go (ENI.IsExcludedBySpec)",
			"interfaces below first-interface-index are not Cilium's"},
		{UpstreamCilium, "pkg/aws/types/types.go (ENISpec.FirstInterfaceIndex)",
			"first-interface-index carries kubebuilder:validation:Minimum=0: the API server takes no negative value"},
	},
}

// ciliumENISelectionMismatch finds interfaces Cilium attached whose subnet or security groups
// are not what the node's CiliumNode selects.
var ciliumENISelectionMismatch = Check{
	Spec: specCiliumENISelectionMismatch,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.ciliumENINodes() {
			cn := n.cn
			if _, bad := ciliumFirstIndex(n.NodeInfo, cn); cn.FirstInterfaceIndex == nil || bad != "" {
				continue
			}
			for _, e := range n.instanceENIs() {
				if e.DeviceIndex < max(*cn.FirstInterfaceIndex, 1) || e.NetworkCardIndex != 0 ||
					e.InterfaceType == interfaceEFAOnly || e.InterfaceType == interfaceTrunk {
					continue
				}
				var bad []string
				if why := x.ciliumSubnetMismatch(cn, e.SubnetID); why != "" {
					bad = append(bad, why)
				}
				if why := x.ciliumGroupsMismatch(cn, e.SecurityGroups); why != "" {
					bad = append(bad, why)
				}
				if len(bad) == 0 {
					continue
				}
				out = append(out, Finding{
					Node:     n.Name(),
					Resource: nodeRef(n.Name()),
					Message: fmt.Sprintf("ENI %s (device %d) that Cilium manages %s", e.ID, e.DeviceIndex,
						strings.Join(bad, ", and ")),
					Remedy: fmt.Sprintf("correct CiliumNode %s's spec.eni (Helm eni.nodeSpec.subnetIDs, subnetTags, securityGroups, "+
						"securityGroupTags) and replace the node so Cilium attaches its interfaces anew (the %s)", cn.Name,
						plural(len(replaceNodeCommands(n.NodeInfo)), "command", "commands")),
					Commands: replaceNodeCommands(n.NodeInfo),
				})
			}
		}
		return out
	},
}

// ciliumSubnetMismatch says how the subnet is not one the CiliumNode selects; "" when it is,
// or when the selection cannot be judged.
func (x *Index) ciliumSubnetMismatch(cn *snapshot.CiliumNode, subnet string) string {
	switch {
	case len(cn.SubnetIDs) > 0:
		// Cilium falls back to subnet-tags when no subnet of subnet-ids is in the node's zone.
		if s := x.Subnets[subnet]; len(cn.SubnetTags) > 0 && s != nil && ciliumTagsMatch(s.Tags, cn.SubnetTags) {
			return ""
		}
		if !slices.Contains(cn.SubnetIDs, subnet) {
			return fmt.Sprintf("is in subnet %s, not one of spec.eni.subnet-ids (%s)", subnet, strings.Join(cn.SubnetIDs, ", "))
		}
	case len(cn.SubnetTags) > 0:
		s := x.Subnets[subnet]
		if s != nil && !ciliumTagsMatch(s.Tags, cn.SubnetTags) {
			return fmt.Sprintf("is in subnet %s, whose tags do not match spec.eni.subnet-tags (%s)", subnet, tagText(cn.SubnetTags))
		}
	}
	return ""
}

// ciliumGroupsMismatch says how the groups are not the ones the CiliumNode selects; "" when
// they are, or when the selection cannot be judged.
func (x *Index) ciliumGroupsMismatch(cn *snapshot.CiliumNode, groups []snapshot.GroupRef) string {
	ids := make([]string, 0, len(groups))
	for _, g := range groups {
		ids = append(ids, g.ID)
	}
	slices.Sort(ids)
	switch {
	case len(cn.SecurityGroups) > 0:
		want := sortedUnique(cn.SecurityGroups)
		if !slices.Equal(sortedUnique(ids), want) {
			return fmt.Sprintf("carries security groups %s, not spec.eni.security-groups (%s)", orNoneText(ids), strings.Join(want, ", "))
		}
	case len(cn.SecurityGroupTags) > 0:
		for _, id := range ids {
			if g := x.SecurityGroups[id]; g != nil && !ciliumTagsMatch(g.Tags, cn.SecurityGroupTags) {
				return fmt.Sprintf("carries security group %s, whose tags do not match spec.eni.security-group-tags (%s)", id,
					tagText(cn.SecurityGroupTags))
			}
		}
	}
	return ""
}

// ciliumTagsMatch reports whether tags hold every key of want with exactly its value, as
// Cilium's Tags.Match does.
func ciliumTagsMatch(tags, want map[string]string) bool {
	for k, v := range want {
		if got, ok := tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// tagText writes tags as k=v, sorted by key.
func tagText(tags map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		parts = append(parts, k+"="+tags[k])
	}
	return strings.Join(parts, ", ")
}

// orNoneText joins ids, or says none.
func orNoneText(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
