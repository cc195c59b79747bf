package collect

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeDecodeNodeClass reads a karpenter.k8s.aws EC2NodeClass at v1 or v1beta1. Fields added
// after v1beta1 (ipPrefixCount, networkInterfaces, placementGroupSelector, kubelet) stay empty
// when absent.
func kubeDecodeNodeClass(u *unstructured.Unstructured) snapshot.EC2NodeClass {
	o := u.Object
	nc := snapshot.EC2NodeClass{
		Name:                       u.GetName(),
		APIVersion:                 u.GetAPIVersion(),
		AMIFamily:                  kubeAMIFamily(o),
		SubnetSelectorTerms:        kubeSelectorTerms(o, "spec", "subnetSelectorTerms"),
		SecurityGroupSelectorTerms: kubeSelectorTerms(o, "spec", "securityGroupSelectorTerms"),
		AssociatePublicIPAddress:   kubeBool(o, "spec", "associatePublicIPAddress"),
		IPPrefixCount:              kubeInt32(o, "spec", "ipPrefixCount"),
		NetworkInterfaces:          kubeNetworkInterfaces(o),
		Kubelet:                    kubeKubelet(kubeMap(o, "spec", "kubelet")),
		Conditions:                 kubeConditions(o),
	}
	if pg := kubeMap(o, "spec", "placementGroupSelector"); pg != nil {
		sel := snapshot.PlacementGroupSelector{Name: kubeStr(pg, "name"), ID: kubeStr(pg, "id")}
		if sel != (snapshot.PlacementGroupSelector{}) {
			nc.PlacementGroupSelector = &sel
		}
	}
	for _, m := range kubeMaps(o, "status", "subnets") {
		if id := kubeStr(m, "id"); id != "" {
			nc.StatusSubnets = append(nc.StatusSubnets, snapshot.SubnetStatus{
				ID: id, Zone: kubeStr(m, "zone"), ZoneID: kubeStr(m, "zoneID"),
			})
		}
	}
	for _, m := range kubeMaps(o, "status", "securityGroups") {
		if id := kubeStr(m, "id"); id != "" {
			nc.StatusSecurityGroups = append(nc.StatusSecurityGroups, snapshot.SecurityGroupStatus{
				ID: id, Name: kubeStr(m, "name"),
			})
		}
	}
	return nc
}

// kubeSelectorTerms reads subnet or security-group selector terms, in their given order.
func kubeSelectorTerms(m map[string]any, path ...string) []snapshot.SelectorTerm {
	var out []snapshot.SelectorTerm
	for _, t := range kubeMaps(m, path...) {
		term := snapshot.SelectorTerm{Tags: kubeStrMap(t, "tags"), ID: kubeStr(t, "id"), Name: kubeStr(t, "name")}
		if term.Tags != nil || term.ID != "" || term.Name != "" {
			out = append(out, term)
		}
	}
	return out
}

// kubeNetworkInterfaces reads spec.networkInterfaces (Karpenter v1.11+), skipping entries
// whose indexes are not numbers.
func kubeNetworkInterfaces(m map[string]any) []snapshot.NetworkInterface {
	var out []snapshot.NetworkInterface
	for _, n := range kubeMaps(m, "spec", "networkInterfaces") {
		card, dev := kubeInt32(n, "networkCardIndex"), kubeInt32(n, "deviceIndex")
		if card == nil || dev == nil {
			continue
		}
		out = append(out, snapshot.NetworkInterface{
			NetworkCardIndex: *card, DeviceIndex: *dev, InterfaceType: kubeStr(n, "interfaceType"),
		})
	}
	return out
}

// kubeAMIFamily returns spec.amiFamily (required at v1beta1, optional at v1), else the family
// of the first spec.amiSelectorTerms[].alias such as "al2023@latest".
func kubeAMIFamily(m map[string]any) string {
	if f := kubeStr(m, "spec", "amiFamily"); f != "" {
		return f
	}
	for _, t := range kubeMaps(m, "spec", "amiSelectorTerms") {
		alias := kubeStr(t, "alias")
		if alias == "" {
			continue
		}
		family, _, _ := strings.Cut(alias, "@")
		return kubeAliasFamily(family)
	}
	return ""
}

// kubeAliasFamily maps an AMI alias family to Karpenter's amiFamily spelling.
func kubeAliasFamily(family string) string {
	switch f := strings.ToLower(family); f {
	case "al2":
		return "AL2"
	case "al2023":
		return "AL2023"
	case "bottlerocket":
		return "Bottlerocket"
	default:
		if rest, ok := strings.CutPrefix(f, "windows"); ok {
			return "Windows" + rest
		}
		return family
	}
}

// kubeDecodeENIConfig reads a VPC CNI ENIConfig.
func kubeDecodeENIConfig(u *unstructured.Unstructured) snapshot.ENIConfig {
	return snapshot.ENIConfig{
		Name:           u.GetName(),
		Subnet:         kubeStr(u.Object, "spec", "subnet"),
		SecurityGroups: kubeStrs(u.Object, "spec", "securityGroups"),
	}
}
