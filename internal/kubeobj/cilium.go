package kubeobj

import (
	"cmp"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// DecodeCiliumNode reads a cilium.io/v2 CiliumNode: spec.instance-id, spec.eni's interface
// index, subnet and security-group selection and switches, status.eni.enis and the IPAM
// state the operator and agent write.
func DecodeCiliumNode(u *unstructured.Unstructured) snapshot.CiliumNode {
	o := u.Object
	eni := object(o, "spec", "eni")
	out := snapshot.CiliumNode{
		Name:                    u.GetName(),
		InstanceID:              str(o, "spec", "instance-id"),
		FirstInterfaceIndex:     int32At(eni, "first-interface-index"),
		SubnetIDs:               strs(eni, "subnet-ids"),
		SubnetTags:              strMap(eni, "subnet-tags"),
		SecurityGroups:          strs(eni, "security-groups"),
		SecurityGroupTags:       strMap(eni, "security-group-tags"),
		UsePrimaryAddress:       eni["use-primary-address"] == true,
		DisablePrefixDelegation: eni["disable-prefix-delegation"] == true,
		ExcludeInterfaceTags:    strMap(eni, "exclude-interface-tags"),
		OperatorError:           str(o, "status", "ipam", "operator-status", "error"),
		Used:                    len(object(o, "status", "ipam", "used")),
	}
	if out.InstanceID == "" {
		out.InstanceID = str(eni, "instance-id") // obsolete place, still written by old agents
	}
	enis := object(o, "status", "eni", "enis")
	for _, id := range slices.Sorted(maps.Keys(enis)) {
		m, ok := enis[id].(map[string]any)
		if !ok {
			continue
		}
		e := snapshot.CiliumENI{
			ID:             cmp.Or(str(m, "id"), id),
			Subnet:         str(m, "subnet", "id"),
			SecurityGroups: strs(m, "security-groups"),
			Addresses:      len(strs(m, "addresses")),
			Prefixes:       len(strs(m, "prefixes")),
			Tags:           strMap(m, "tags"),
		}
		if n := int32At(m, "number"); n != nil {
			e.Number = *n
		}
		out.ENIs = append(out.ENIs, e)
	}
	slices.SortStableFunc(out.ENIs, func(a, b snapshot.CiliumENI) int { return cmp.Compare(a.Number, b.Number) })
	return out
}
