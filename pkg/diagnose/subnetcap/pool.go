package subnetcap

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// PoolWarnNodes is how many more nodes a pool must fit before it is not worth a warning.
const PoolWarnNodes = 5

// TagRoleCNI marks the subnets the VPC CNI's subnet discovery may put pods' ENIs in.
const TagRoleCNI = "kubernetes.io/role/cni"

// Pool is a set of subnets one kind of growth draws from, with what the next node takes of it.
type Pool struct {
	// What names the pool for messages, e.g. "EC2NodeClass default in us-west-2a".
	What string
	// Subnets are the pool's subnets, roomiest first.
	Subnets []*snapshot.Subnet
	// First is what the next node takes at once (launch and warm pool), Each what one more
	// node takes over time (never less than First); the texts say how they were estimated.
	First, Each         int64
	FirstFrom, EachFrom string
	Remedy              string
	// BlocksFirst and BlocksEach are the /28 prefixes among First and Each (0 when the pool's
	// growth carves none), BlocksFrom says where they come from; Fallback marks growth that
	// takes single addresses when no block is free (EKS Auto Mode's ipv4PrefixSize Auto).
	BlocksFirst, BlocksEach int64
	BlocksFrom              string
	Fallback                bool
}

// ByRoom sorts subnets roomiest first, then by ID, as Karpenter and the VPC CNI choose them.
func ByRoom(subnets []*snapshot.Subnet) []*snapshot.Subnet {
	slices.SortFunc(subnets, func(a, b *snapshot.Subnet) int {
		return cmp.Or(cmp.Compare(b.AvailableIPs, a.AvailableIPs), strings.Compare(a.ID, b.ID))
	})
	return slices.CompactFunc(subnets, func(a, b *snapshot.Subnet) bool { return a.ID == b.ID })
}

// HeldIn counts the addresses ENIs hold in the subnets in selects: each ENI's private IPs and
// 16 for each /28 prefix.
func HeldIn(enis []snapshot.ENI, in func(subnet string) bool) int64 {
	var held int64
	for _, e := range enis {
		if !in(e.SubnetID) {
			continue
		}
		ips := int64(len(e.PrivateIPs))
		if ips == 0 && e.PrimaryIP != "" {
			ips = 1
		}
		held += ips + maxpods.PrefixIPs*int64(len(e.IPv4Prefixes))
	}
	return held
}

// PrefixesIn counts the /28 prefixes ENIs hold in the subnets in selects.
func PrefixesIn(enis []snapshot.ENI, in func(subnet string) bool) int64 {
	var k int64
	for _, e := range enis {
		if in(e.SubnetID) {
			k += int64(len(e.IPv4Prefixes))
		}
	}
	return k
}

// Median returns the median of vs (the upper one of two), 0 for none.
func Median(vs []int64) int64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	return s[len(s)/2]
}

// countText returns "1 thing" or "N things".
func countText(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
