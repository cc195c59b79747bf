package diagnose

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// selectedClaims returns the NodeClaims without a Node that a report limited by opts shows:
// all of them when no nodes are selected, else those named in opts.Resources (nodeclaim/NAME)
// or of a NodePool named there (nodepool/NAME).
func selectedClaims(x *Index, opts Options) []*ClaimInfo {
	var out []*ClaimInfo
	for _, c := range x.Claims {
		if opts.Nodes == nil || opts.Resources[c.Ref()] || c.PoolName != "" && opts.Resources["nodepool/"+c.PoolName] {
			out = append(out, c)
		}
	}
	return out
}

// claimReports renders the claims with their findings (those whose resource is the claim),
// worst first, then by name.
func claimReports(x *Index, claims []*ClaimInfo, findings []Finding) []NodeClaimReport {
	byRef := map[string][]Finding{}
	for _, f := range findings {
		if strings.HasPrefix(f.Resource, "nodeclaim/") {
			byRef[f.Resource] = append(byRef[f.Resource], f)
		}
	}
	var out []NodeClaimReport
	for _, c := range claims {
		r := NodeClaimReport{
			Name: c.Name(), NodePool: c.PoolName, NodeClass: c.ClassName, Created: c.Claim.Created,
			AgeSeconds: int64(c.Age / time.Second), Status: c.Status, ProviderID: c.Claim.ProviderID,
			Conditions: slices.Clone(c.Claim.Conditions), Events: slices.Clone(c.Events),
			WayOut: claimWayOut(x, c), Findings: byRef[c.Ref()],
		}
		if r.Findings == nil {
			r.Findings = []Finding{}
		}
		if c.ClassKind == snapshot.KindNodeClass {
			r.NodeClassKind = snapshot.KindNodeClass
		}
		if in := c.Instance; in != nil {
			r.Instance = &ClaimInstance{ID: in.ID, State: in.State, Type: in.Type, Zone: in.Zone,
				SubnetID: in.SubnetID, PrivateIP: in.PrivateIP, LaunchTime: in.LaunchTime}
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b NodeClaimReport) int {
		wa, fa := Worst(a.Findings)
		wb, fb := Worst(b.Findings)
		switch {
		case fa != fb && fa:
			return -1
		case fa != fb:
			return 1
		}
		return cmp.Or(cmp.Compare(wb, wa), strings.Compare(a.Name, b.Name))
	})
	return out
}

// claimWayOut is the way out of the subnet of a NodeClaim's instance, as describeWayOut is a
// node's: nil unless the claim has an instance in a known subnet whose route table is known.
func claimWayOut(x *Index, c *ClaimInfo) *wayout.WayOut {
	if c.Instance == nil || c.Subnet == nil {
		return nil
	}
	return x.net.Describe(c.Subnet, wayout.InstancePublicIP(c.Instance), c.windows())
}
