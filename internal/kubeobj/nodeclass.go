package kubeobj

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// DecodeNodeClass reads a karpenter.k8s.aws EC2NodeClass at v1 or v1beta1. Fields added
// after v1beta1 (ipPrefixCount, networkInterfaces, placementGroupSelector, kubelet) stay empty
// when absent.
func DecodeNodeClass(u *unstructured.Unstructured) snapshot.EC2NodeClass {
	o := u.Object
	nc := snapshot.EC2NodeClass{
		Name:                       u.GetName(),
		APIVersion:                 u.GetAPIVersion(),
		AMIFamily:                  amiFamily(o),
		SubnetSelectorTerms:        selectorTerms(o, "spec", "subnetSelectorTerms"),
		SecurityGroupSelectorTerms: selectorTerms(o, "spec", "securityGroupSelectorTerms"),
		AssociatePublicIPAddress:   boolAt(o, "spec", "associatePublicIPAddress"),
		IPPrefixCount:              int32At(o, "spec", "ipPrefixCount"),
		NetworkInterfaces:          networkInterfaces(o),
		Kubelet:                    kubelet(object(o, "spec", "kubelet")),
		ConnectionTracking:         connectionTracking(object(o, "spec", "connectionTracking")),
		MetadataOptions:            metadataOptions(object(o, "spec", "metadataOptions")),
		Conditions:                 conditions(o),
	}
	if pg := object(o, "spec", "placementGroupSelector"); pg != nil {
		sel := snapshot.PlacementGroupSelector{Name: str(pg, "name"), ID: str(pg, "id")}
		if sel != (snapshot.PlacementGroupSelector{}) {
			nc.PlacementGroupSelector = &sel
		}
	}
	for _, m := range objects(o, "status", "subnets") {
		if id := str(m, "id"); id != "" {
			nc.StatusSubnets = append(nc.StatusSubnets, snapshot.SubnetStatus{
				ID: id, Zone: str(m, "zone"), ZoneID: str(m, "zoneID"),
			})
		}
	}
	for _, m := range objects(o, "status", "securityGroups") {
		if id := str(m, "id"); id != "" {
			nc.StatusSecurityGroups = append(nc.StatusSecurityGroups, snapshot.SecurityGroupStatus{
				ID: id, Name: str(m, "name"),
			})
		}
	}
	return nc
}

// selectorTerms reads subnet or security-group selector terms, in their given order.
func selectorTerms(m map[string]any, path ...string) []snapshot.SelectorTerm {
	var out []snapshot.SelectorTerm
	for _, t := range objects(m, path...) {
		term := snapshot.SelectorTerm{Tags: strMap(t, "tags"), ID: str(t, "id"), Name: str(t, "name")}
		if term.Tags != nil || term.ID != "" || term.Name != "" {
			out = append(out, term)
		}
	}
	return out
}

// networkInterfaces reads spec.networkInterfaces (Karpenter v1.11+), skipping entries
// whose indexes are not numbers.
func networkInterfaces(m map[string]any) []snapshot.NetworkInterface {
	var out []snapshot.NetworkInterface
	for _, n := range objects(m, "spec", "networkInterfaces") {
		card, dev := int32At(n, "networkCardIndex"), int32At(n, "deviceIndex")
		if card == nil || dev == nil {
			continue
		}
		out = append(out, snapshot.NetworkInterface{
			NetworkCardIndex: *card, DeviceIndex: *dev, InterfaceType: str(n, "interfaceType"),
		})
	}
	return out
}

// amiFamily returns spec.amiFamily (required at v1beta1, optional at v1), else the family
// of the first spec.amiSelectorTerms[].alias such as "al2023@latest".
func amiFamily(m map[string]any) string {
	if f := str(m, "spec", "amiFamily"); f != "" {
		return f
	}
	for _, t := range objects(m, "spec", "amiSelectorTerms") {
		alias := str(t, "alias")
		if alias == "" {
			continue
		}
		family, _, _ := strings.Cut(alias, "@")
		return aliasFamily(family)
	}
	return ""
}

// aliasFamily maps an AMI alias family to Karpenter's amiFamily spelling.
func aliasFamily(family string) string {
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

// DecodeENIConfig reads a VPC CNI ENIConfig.
func DecodeENIConfig(u *unstructured.Unstructured) snapshot.ENIConfig {
	return snapshot.ENIConfig{
		Name:           u.GetName(),
		Subnet:         str(u.Object, "spec", "subnet"),
		SecurityGroups: strs(u.Object, "spec", "securityGroups"),
	}
}

// metadataOptions reads spec.metadataOptions; nil when the class has none.
func metadataOptions(m map[string]any) *snapshot.MetadataOptions {
	if m == nil {
		return nil
	}
	out := &snapshot.MetadataOptions{HTTPEndpoint: str(m, "httpEndpoint"), HTTPTokens: str(m, "httpTokens")}
	if v := int32At(m, "httpPutResponseHopLimit"); v != nil {
		out.HTTPPutResponseHopLimit = *v
	}
	return out
}

// connectionTracking reads spec.connectionTracking; nil when it sets no timeout.
func connectionTracking(m map[string]any) *snapshot.ConnectionTracking {
	c := &snapshot.ConnectionTracking{}
	for to, key := range map[*int32]string{&c.TCPEstablishedTimeout: "tcpEstablishedTimeout", &c.UDPStreamTimeout: "udpStreamTimeout",
		&c.UDPTimeout: "udpTimeout"} {
		if v := int32At(m, key); v != nil {
			*to = *v
		}
	}
	if *c == (snapshot.ConnectionTracking{}) {
		return nil
	}
	return c
}
