package collect

import (
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeDecodeAutoNodeClass reads an EKS Auto Mode NodeClass (eks.amazonaws.com/v1) into the
// shared EC2NodeClass record, with Group and Kind set. Its schema is not published and grows
// without notice, so every field is optional: unknown fields are ignored and a field of the
// wrong type is left empty.
func kubeDecodeAutoNodeClass(u *unstructured.Unstructured) snapshot.EC2NodeClass {
	o := u.Object
	adv := kubeMap(o, "spec", "advancedNetworking")
	return snapshot.EC2NodeClass{
		Name:                          u.GetName(),
		APIVersion:                    u.GetAPIVersion(),
		Group:                         snapshot.AutoModeGroup,
		Kind:                          snapshot.KindNodeClass,
		SubnetSelectorTerms:           kubeSelectorTerms(o, "spec", "subnetSelectorTerms"),
		SecurityGroupSelectorTerms:    kubeSelectorTerms(o, "spec", "securityGroupSelectorTerms"),
		PodSubnetSelectorTerms:        kubeSelectorTerms(o, "spec", "podSubnetSelectorTerms"),
		PodSecurityGroupSelectorTerms: kubeSelectorTerms(o, "spec", "podSecurityGroupSelectorTerms"),
		AssociatePublicIPAddress:      kubeBool(adv, "associatePublicIPAddress"),
		IPv4PrefixSize:                kubeIPv4PrefixSize(adv["ipv4PrefixSize"]),
		NetworkInterfaces:             kubeAutoNetworkInterfaces(adv),
		PlacementGroupSelector:        kubePlacementGroupSelector(kubeMap(o, "spec", "placementGroupSelector")),
		StatusSubnets:                 kubeStatusSubnets(o),
		StatusSecurityGroups:          kubeStatusSecurityGroups(o),
		Conditions:                    kubeConditions(o),
	}
}

// kubeIPv4PrefixSize reads advancedNetworking.ipv4PrefixSize, a string ("Auto" or "32"). A
// whole number, as an unquoted 32 in YAML decodes, is read as its decimal string.
func kubeIPv4PrefixSize(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if n := kubeToInt32(v); n != nil {
		return strconv.Itoa(int(*n))
	}
	return ""
}

// kubeAutoNetworkInterfaces reads advancedNetworking.networkInterfaces, the static interface
// layout of an Auto Mode NodeClass, skipping entries whose indexes are not numbers.
func kubeAutoNetworkInterfaces(adv map[string]any) []snapshot.NetworkInterface {
	var out []snapshot.NetworkInterface
	for _, n := range kubeMaps(adv, "networkInterfaces") {
		card, dev := kubeInt32(n, "networkCardIndex"), kubeInt32(n, "deviceIndex")
		if card == nil || dev == nil {
			continue
		}
		out = append(out, snapshot.NetworkInterface{
			NetworkCardIndex:         *card,
			DeviceIndex:              *dev,
			InterfaceType:            kubeStr(n, "interfaceType"),
			SecondaryIPv4PrefixCount: kubeInt32(n, "secondaryIPv4PrefixCount"),
		})
	}
	return out
}

// kubePlacementGroupSelector reads a placementGroupSelector {name} or {id}, or returns nil
// when it names neither.
func kubePlacementGroupSelector(m map[string]any) *snapshot.PlacementGroupSelector {
	sel := snapshot.PlacementGroupSelector{Name: kubeStr(m, "name"), ID: kubeStr(m, "id")}
	if sel == (snapshot.PlacementGroupSelector{}) {
		return nil
	}
	return &sel
}

// kubeStatusSubnets reads status.subnets[] {id, zone, zoneID}, skipping entries without an id.
func kubeStatusSubnets(m map[string]any) []snapshot.SubnetStatus {
	var out []snapshot.SubnetStatus
	for _, s := range kubeMaps(m, "status", "subnets") {
		if id := kubeStr(s, "id"); id != "" {
			out = append(out, snapshot.SubnetStatus{ID: id, Zone: kubeStr(s, "zone"), ZoneID: kubeStr(s, "zoneID")})
		}
	}
	return out
}

// kubeStatusSecurityGroups reads status.securityGroups[] {id, name}, skipping entries without
// an id.
func kubeStatusSecurityGroups(m map[string]any) []snapshot.SecurityGroupStatus {
	var out []snapshot.SecurityGroupStatus
	for _, g := range kubeMaps(m, "status", "securityGroups") {
		if id := kubeStr(g, "id"); id != "" {
			out = append(out, snapshot.SecurityGroupStatus{ID: id, Name: kubeStr(g, "name")})
		}
	}
	return out
}
