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
		InstanceID:              str(object(o, "spec"), "instance-id"),
		SubnetIDs:               strSlice(eni["subnet-ids"]),
		SubnetTags:              strMap(eni, "subnet-tags"),
		SecurityGroups:          strSlice(eni["security-groups"]),
		SecurityGroupTags:       strMap(eni, "security-group-tags"),
		UsePrimaryAddress:       eni["use-primary-address"] == true,
		DisablePrefixDelegation: eni["disable-prefix-delegation"] == true,
		OperatorError:           str(object(o, "status", "ipam", "operator-status"), "error"),
		Used:                    len(object(o, "status", "ipam", "used")),
	}
	if out.InstanceID == "" {
		out.InstanceID = str(eni, "instance-id") // obsolete place, still written by old agents
	}
	if i, ok := integer(eni["first-interface-index"]); ok {
		out.FirstInterfaceIndex = &i
	}
	enis := object(o, "status", "eni", "enis")
	for _, id := range slices.Sorted(maps.Keys(enis)) {
		m, ok := enis[id].(map[string]any)
		if !ok {
			continue
		}
		e := snapshot.CiliumENI{
			ID:             cmp.Or(str(m, "id"), id),
			Subnet:         str(object(m, "subnet"), "id"),
			SecurityGroups: strSlice(m["security-groups"]),
			Addresses:      len(strSlice(m["addresses"])),
			Prefixes:       len(strSlice(m["prefixes"])),
		}
		e.Number, _ = integer(m["number"])
		out.ENIs = append(out.ENIs, e)
	}
	slices.SortStableFunc(out.ENIs, func(a, b snapshot.CiliumENI) int { return cmp.Compare(a.Number, b.Number) })
	return out
}

// integer reads a JSON number as an int32.
func integer(v any) (int32, bool) {
	switch v := v.(type) {
	case int64:
		return int32(v), true
	case float64:
		return int32(v), true
	}
	return 0, false
}

// strSlice reads a list of strings, leaving out what is not one.
func strSlice(v any) []string {
	items, _ := v.([]any)
	var out []string
	for _, it := range items {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
