package sheet

import (
	"cmp"
	"maps"
	"slices"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// NodeClassSheet is `describe nodeclass`'s view of one EC2NodeClass or EKS Auto Mode
// NodeClass: its selector terms and what Karpenter resolved them to, its placement-group
// selector, network interfaces, kubelet maxPods, public IP setting, conditions, the NodePools
// and nodes that use it, and its findings.
type NodeClassSheet struct {
	// Kind is EC2NodeClass or NodeClass (EKS Auto Mode).
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Name       string `json:"name"`
	// Resource is the class as findings name it: ec2nodeclass/NAME or nodeclass/NAME.
	Resource                      string                  `json:"resource"`
	SubnetSelectorTerms           []snapshot.SelectorTerm `json:"subnetSelectorTerms,omitempty"`
	SecurityGroupSelectorTerms    []snapshot.SelectorTerm `json:"securityGroupSelectorTerms,omitempty"`
	PodSubnetSelectorTerms        []snapshot.SelectorTerm `json:"podSubnetSelectorTerms,omitempty"`
	PodSecurityGroupSelectorTerms []snapshot.SelectorTerm `json:"podSecurityGroupSelectorTerms,omitempty"`
	// PodSubnets are the subnets karpnet read that an Auto Mode NodeClass's
	// podSubnetSelectorTerms select, by ID.
	PodSubnets             []string                         `json:"podSubnets,omitempty"`
	StatusSubnets          []snapshot.SubnetStatus          `json:"statusSubnets"`
	StatusSecurityGroups   []snapshot.SecurityGroupStatus   `json:"statusSecurityGroups"`
	PlacementGroupSelector *snapshot.PlacementGroupSelector `json:"placementGroupSelector,omitempty"`
	// PlacementGroup is the group the selector names, when karpnet read it.
	PlacementGroup           *snapshot.PlacementGroup    `json:"placementGroup,omitempty"`
	NetworkInterfaces        []snapshot.NetworkInterface `json:"networkInterfaces,omitempty"`
	Kubelet                  *snapshot.Kubelet           `json:"kubelet,omitempty"`
	AssociatePublicIPAddress *bool                       `json:"associatePublicIPAddress,omitempty"`
	Conditions               []snapshot.Condition        `json:"conditions"`
	// NodePools are the NodePools whose nodeClassRef names the class.
	NodePools []string `json:"nodePools"`
	// Members are the nodes, then the NodeClaims without a Node, of the class.
	Members  []Member           `json:"members"`
	Findings []diagnose.Finding `json:"findings"`
}

// NodeClassKinds returns the kinds of class named name that x holds: EC2NodeClass first, then
// NodeClass; kind, when not empty, keeps only that one.
func NodeClassKinds(x *diagnose.Index, kind, name string) []string {
	var out []string
	for _, k := range []string{snapshot.KindEC2NodeClass, snapshot.KindNodeClass} {
		if (kind == "" || kind == k) && x.NodeClass(k, name) != nil {
			out = append(out, k)
		}
	}
	return out
}

// DescribeNodeClass builds the sheet of the class of that kind and name from x and r, the
// Report Analyze made of the same snapshot with no selection; false when x has no such class.
func DescribeNodeClass(x *diagnose.Index, r diagnose.Report, kind, name string) (NodeClassSheet, bool) {
	c := x.NodeClass(kind, name)
	if c == nil {
		return NodeClassSheet{}, false
	}
	ref := diagnose.ClassRef(c)
	sh := NodeClassSheet{
		Kind: c.KindName(), APIVersion: SheetAPIVersion, Name: c.Name, Resource: ref,
		SubnetSelectorTerms: c.SubnetSelectorTerms, SecurityGroupSelectorTerms: c.SecurityGroupSelectorTerms,
		PodSubnetSelectorTerms: c.PodSubnetSelectorTerms, PodSecurityGroupSelectorTerms: c.PodSecurityGroupSelectorTerms,
		StatusSubnets: nonNilSlice(c.StatusSubnets), StatusSecurityGroups: nonNilSlice(c.StatusSecurityGroups),
		PlacementGroupSelector: c.PlacementGroupSelector, NetworkInterfaces: c.NetworkInterfaces,
		Kubelet: c.Kubelet, AssociatePublicIPAddress: c.AssociatePublicIPAddress,
		Conditions: nonNilSlice(c.Conditions), NodePools: []string{},
		Members: members(x, r,
			func(n *diagnose.NodeInfo) bool { return n.ClassName == name && n.NodeClassKind() == c.KindName() },
			func(cl *diagnose.ClaimInfo) bool {
				return cl.ClassName == name && cmp.Or(cl.ClassKind, snapshot.KindEC2NodeClass) == c.KindName()
			}),
		Findings: r.About(ref),
	}
	if len(c.PodSubnetSelectorTerms) > 0 {
		pods, _ := x.PodSubnetsOf(c)
		sh.PodSubnets = []string{}
		for _, p := range pods {
			sh.PodSubnets = append(sh.PodSubnets, p.ID)
		}
	}
	if sel := c.PlacementGroupSelector; sel != nil {
		sh.PlacementGroup = x.PlacementGroups[sel.ID]
		if sh.PlacementGroup == nil && sel.Name != "" {
			sh.PlacementGroup = x.PlacementGroups[sel.Name]
		}
	}
	for _, pn := range slices.Sorted(maps.Keys(x.NodePools)) {
		if diagnose.RefersTo(x.NodePools[pn].NodeClassRef, c) {
			sh.NodePools = append(sh.NodePools, pn)
		}
	}
	return sh, true
}

// nonNilSlice returns s, or an empty slice for nil, so that JSON has [] rather than null.
func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
