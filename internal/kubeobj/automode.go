package kubeobj

import (
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// DecodeAutoNodeClass reads an EKS Auto Mode NodeClass (eks.amazonaws.com/v1) into the
// shared EC2NodeClass record, with Group and Kind set. Its schema is not published and grows
// without notice, so every field is optional: unknown fields are ignored and a field of the
// wrong type is left empty.
func DecodeAutoNodeClass(u *unstructured.Unstructured) snapshot.EC2NodeClass {
	o := u.Object
	adv := object(o, "spec", "advancedNetworking")
	return snapshot.EC2NodeClass{
		Name:                          u.GetName(),
		APIVersion:                    u.GetAPIVersion(),
		Group:                         snapshot.AutoModeGroup,
		Kind:                          snapshot.KindNodeClass,
		SubnetSelectorTerms:           selectorTerms(o, "spec", "subnetSelectorTerms"),
		SecurityGroupSelectorTerms:    selectorTerms(o, "spec", "securityGroupSelectorTerms"),
		PodSubnetSelectorTerms:        selectorTerms(o, "spec", "podSubnetSelectorTerms"),
		PodSecurityGroupSelectorTerms: selectorTerms(o, "spec", "podSecurityGroupSelectorTerms"),
		AssociatePublicIPAddress:      boolAt(adv, "associatePublicIPAddress"),
		IPv4PrefixSize:                ipv4PrefixSize(adv["ipv4PrefixSize"]),
		NetworkInterfaces:             autoNetworkInterfaces(adv),
		PlacementGroupSelector:        placementGroupSelector(object(o, "spec", "placementGroupSelector")),
		StatusSubnets:                 statusSubnets(o),
		StatusSecurityGroups:          statusSecurityGroups(o),
		Conditions:                    conditions(o),
	}
}

// ipv4PrefixSize reads advancedNetworking.ipv4PrefixSize, a string ("Auto" or "32"). A
// whole number, as an unquoted 32 in YAML decodes, is read as its decimal string.
func ipv4PrefixSize(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if n := toInt32(v); n != nil {
		return strconv.Itoa(int(*n))
	}
	return ""
}

// autoNetworkInterfaces reads advancedNetworking.networkInterfaces, the static interface
// layout of an Auto Mode NodeClass, skipping entries whose indexes are not numbers.
func autoNetworkInterfaces(adv map[string]any) []snapshot.NetworkInterface {
	var out []snapshot.NetworkInterface
	for _, n := range objects(adv, "networkInterfaces") {
		card, dev := int32At(n, "networkCardIndex"), int32At(n, "deviceIndex")
		if card == nil || dev == nil {
			continue
		}
		out = append(out, snapshot.NetworkInterface{
			NetworkCardIndex:         *card,
			DeviceIndex:              *dev,
			InterfaceType:            str(n, "interfaceType"),
			SecondaryIPv4PrefixCount: int32At(n, "secondaryIPv4PrefixCount"),
		})
	}
	return out
}

// placementGroupSelector reads a placementGroupSelector {name} or {id}, or returns nil
// when it names neither.
func placementGroupSelector(m map[string]any) *snapshot.PlacementGroupSelector {
	sel := snapshot.PlacementGroupSelector{Name: str(m, "name"), ID: str(m, "id")}
	if sel == (snapshot.PlacementGroupSelector{}) {
		return nil
	}
	return &sel
}

// statusSubnets reads status.subnets[] {id, zone, zoneID}, skipping entries without an id.
func statusSubnets(m map[string]any) []snapshot.SubnetStatus {
	var out []snapshot.SubnetStatus
	for _, s := range objects(m, "status", "subnets") {
		if id := str(s, "id"); id != "" {
			out = append(out, snapshot.SubnetStatus{ID: id, Zone: str(s, "zone"), ZoneID: str(s, "zoneID")})
		}
	}
	return out
}

// statusSecurityGroups reads status.securityGroups[] {id, name}, skipping entries without
// an id.
func statusSecurityGroups(m map[string]any) []snapshot.SecurityGroupStatus {
	var out []snapshot.SecurityGroupStatus
	for _, g := range objects(m, "status", "securityGroups") {
		if id := str(g, "id"); id != "" {
			out = append(out, snapshot.SecurityGroupStatus{ID: id, Name: str(g, "name")})
		}
	}
	return out
}
