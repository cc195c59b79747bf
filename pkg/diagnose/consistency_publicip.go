package diagnose

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specNodeClassPublicIPMultiENI = &Spec{
	ID:       "nodeclass-public-ip-multi-eni",
	Severity: Critical,
	Family:   FamilyConsistency,
	Examines: []string{SubjectNodeClass},
	Title:    "associatePublicIPAddress is true on an EC2NodeClass that launches several network interfaces",
	FiresWhen: "`associatePublicIPAddress: true` on an EC2NodeClass with more than one `spec.networkInterfaces` " +
		"entry, or whose NodeClaims request `vpc.amazonaws.com/efa` on a type with more than one EFA " +
		"interface",
	NotOn: "classes launching one interface, EFA claims on types with a single EFA interface",
	Why: "EC2 rejects a public IP when launching with several network interfaces " +
		"(InvalidParameterCombination): every launch fails",
	Remedy: "remove `spec.associatePublicIPAddress` (or set it false); use private subnets with a NAT gateway",
	Sources: []string{
		"aws/karpenter-provider-aws#5666",
		"aws/karpenter-provider-aws pkg/providers/launchtemplate/launchtemplate.go (generateNetworkInterfaces)",
		"aws/karpenter-provider-aws website/content/en/docs/concepts/nodeclasses.md (spec.associatePublicIPAddress)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/providers/launchtemplate/launchtemplate.go (generateNetworkInterfaces)",
			"Karpenter sets AssociatePublicIpAddress on every interface of the launch template except efa-only ones, one interface per spec.networkInterfaces entry or per requested EFA; EC2 refuses a public IP when an instance is launched with several pre-configured interfaces."},
		{UpstreamKarpenter, "website/content/en/docs/concepts/nodeclasses.md (spec.associatePublicIPAddress)",
			"A NodeClaim requesting more than one vpc.amazonaws.com/efa with associatePublicIPAddress true fails to launch, an EC2 restriction."},
		{UpstreamEC2API, "types/types.go (LaunchTemplateInstanceNetworkInterfaceSpecificationRequest.AssociatePublicIpAddress)",
			"AssociatePublicIpAddress associates a public IPv4 address with eth0 of a new interface."},
	},
}

// nodeClassPublicIPMultiENI finds EC2NodeClasses (and Auto Mode NodeClasses, under
// spec.advancedNetworking) that set associatePublicIPAddress: true and
// launch several network interfaces: more than one spec.networkInterfaces entry, or EFA
// NodeClaims, for which Karpenter puts one EFA interface on each network card of the type.
// EC2 refuses a public IP when an instance is launched with several network interfaces
// (InvalidParameterCombination), so every such launch fails and the pods stay Pending.
var nodeClassPublicIPMultiENI = Check{
	Spec: specNodeClassPublicIPMultiENI,
	Run: func(x *Index) []Finding {
		efaClaims := publicIPEFAClaims(x)
		var out []Finding
		for _, c := range x.sortedClasses() {
			if c.AssociatePublicIPAddress == nil || !*c.AssociatePublicIPAddress {
				continue
			}
			var why []string
			if k := len(c.NetworkInterfaces); k > 1 {
				why = append(why, fmt.Sprintf("%s has %d entries", classField(c, "spec.networkInterfaces"), k))
			}
			if claims := efaClaims[ClassKey(c.KindName(), c.Name)]; len(claims) > 0 {
				subject := plural(len(claims), "NodeClaim %s requests", "NodeClaims %s request")
				why = append(why, fmt.Sprintf(subject+" vpc.amazonaws.com/efa, for which %s launches one EFA "+
					"interface per network card", strings.Join(sortedKeys(claims), ", "), launcher(c)))
			}
			if len(why) == 0 {
				continue
			}
			field := classField(c, "spec.associatePublicIPAddress")
			out = append(out, Finding{
				Resource: classRef(c),
				Message: fmt.Sprintf("%s sets %s: true and launches several network "+
					"interfaces (%s): EC2 rejects such launches with InvalidParameterCombination (\"The "+
					"associatePublicIPAddress parameter cannot be specified when launching with multiple network "+
					"interfaces\")", classLabel(c), strings.TrimPrefix(field, "spec."), strings.Join(why, "; ")),
				Remedy: fmt.Sprintf("remove %s from %s (or set it to false) and "+
					"give the nodes outbound access through a NAT gateway in private subnets", field, classLabel(c)),
			})
		}
		return out
	},
}

// publicIPEFAClaims returns, per class (by ClassKey), the NodeClaims that request EFA on an
// instance type with more than one EFA interface. Claims whose type is unknown are left out:
// on a type with one EFA interface Karpenter launches a single interface, which EC2 accepts
// with a public IP.
func publicIPEFAClaims(x *Index) map[string]map[string]bool {
	typeOf := map[*snapshot.NodeClaim]*snapshot.InstanceType{}
	for _, n := range x.Nodes {
		if n.Claim != nil && n.Type != nil {
			typeOf[n.Claim] = n.Type
		}
	}
	out := map[string]map[string]bool{}
	for i := range x.Snapshot.NodeClaims {
		c := &x.Snapshot.NodeClaims[i]
		kind := refKind(c.NodeClassRef)
		if c.NodeClassRef.Name == "" || kind == "" || !requestsEFA(c) {
			continue
		}
		t := typeOf[c]
		if t == nil {
			t = x.InstanceTypes[c.Labels[corev1.LabelInstanceTypeStable]]
		}
		if t == nil || t.MaxEFAInterfaces <= 1 {
			continue
		}
		key := ClassKey(kind, c.NodeClassRef.Name)
		if out[key] == nil {
			out[key] = map[string]bool{}
		}
		out[key][c.Name] = true
	}
	return out
}

// requestsEFA reports whether a NodeClaim requests a positive vpc.amazonaws.com/efa.
func requestsEFA(c *snapshot.NodeClaim) bool {
	q, err := resource.ParseQuantity(c.Requests["vpc.amazonaws.com/efa"])
	return err == nil && q.Sign() > 0
}
