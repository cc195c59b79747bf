package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// efaChecks are the Elastic Fabric Adapter checks.
func efaChecks() []Check {
	return []Check{
		efaUnsupportedInstanceType,
		efaInterfaceCountMismatch,
		efaSecurityGroupSelfRuleMissing,
		efaResourceNotAdvertised,
		efaSubnetSplit,
		efaWithoutPlacementGroup,
	}
}

// efaInterfaces returns the node's attached EFA interfaces (types efa and efa-only).
func efaInterfaces(n *NodeInfo) []snapshot.ENI {
	var out []snapshot.ENI
	for _, e := range n.instanceENIs() {
		if isEFAInterface(e.InterfaceType) {
			out = append(out, e)
		}
	}
	return out
}

// isEFAInterface reports whether an ENI interface type carries an EFA device.
func isEFAInterface(interfaceType string) bool {
	return interfaceType == interfaceEFA || interfaceType == interfaceEFAOnly
}

// efaNodes returns the checked nodes whose instances have EFA interfaces attached.
func efaNodes(x *Index) []*NodeInfo {
	var out []*NodeInfo
	for _, n := range x.checkedNodes() {
		if slices.ContainsFunc(n.instanceENIs(), func(e snapshot.ENI) bool { return isEFAInterface(e.InterfaceType) }) {
			out = append(out, n)
		}
	}
	return out
}

// classEFAOnly counts the efa-only entries of an EC2NodeClass's spec.networkInterfaces; 0 for
// an unknown class.
func classEFAOnly(c *snapshot.EC2NodeClass) int64 {
	if c == nil {
		return 0
	}
	var k int64
	for _, ni := range c.NetworkInterfaces {
		if ni.InterfaceType == interfaceEFAOnly {
			k++
		}
	}
	return k
}

// claimEFARequest returns the vpc.amazonaws.com/efa the node's NodeClaim requests, 0 when it
// requests none or the quantity does not parse.
func claimEFARequest(c *snapshot.NodeClaim) int64 {
	if c == nil {
		return 0
	}
	q, err := resource.ParseQuantity(c.Requests[string(ResourceEFA)])
	if err != nil {
		return 0
	}
	return q.Value()
}

// efaTypeCounts describes EFA interfaces as "N EFA interfaces (efa A, efa-only B)".
func efaTypeCounts(enis []snapshot.ENI) string {
	var efa, efaOnly int
	for _, e := range enis {
		switch e.InterfaceType {
		case interfaceEFA:
			efa++
		case interfaceEFAOnly:
			efaOnly++
		}
	}
	return fmt.Sprintf("%s (efa %d, efa-only %d)", countText(int64(efa+efaOnly), "EFA interface", "EFA interfaces"), efa, efaOnly)
}

// countsText lists a count per key as "key (N nodes)", in key order.
func countsText(counts map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(counts) {
		parts = append(parts, fmt.Sprintf("%s (%s)", k, countText(counts[k], "node", "nodes")))
	}
	return strings.Join(parts, ", ")
}
