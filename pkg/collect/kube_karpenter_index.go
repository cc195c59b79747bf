package collect

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeKarpenterIndex finds the NodeClaim of a node and the nodeClassRef of a NodePool by map
// lookups, so that naming the objects of many nodes does not scan every claim per node. Each
// map holds the first position of its key, which is the one a scan in order would find.
type kubeKarpenterIndex struct {
	claims     []snapshot.NodeClaim
	byName     map[string]int
	byNode     map[string]int
	byProvider map[string]int
	pools      map[string]snapshot.NodeClassRef
}

// kubeIndexClaims indexes claims by name, by node name and by providerID. It holds claims,
// which must not be reordered while the index is used.
func kubeIndexClaims(claims []snapshot.NodeClaim) *kubeKarpenterIndex {
	x := &kubeKarpenterIndex{claims: claims, byName: make(map[string]int, len(claims)),
		byNode: make(map[string]int, len(claims)), byProvider: make(map[string]int, len(claims))}
	for i := range claims {
		c := &claims[i]
		kubeIndexFirst(x.byName, c.Name, i)
		if c.NodeName != "" {
			kubeIndexFirst(x.byNode, c.NodeName, i)
		}
		if c.ProviderID != "" {
			kubeIndexFirst(x.byProvider, c.ProviderID, i)
		}
	}
	return x
}

// indexPools indexes the nodeClassRefs of pools by pool name.
func (x *kubeKarpenterIndex) indexPools(pools []snapshot.NodePool) {
	x.pools = make(map[string]snapshot.NodeClassRef, len(pools))
	for i := range pools {
		if _, seen := x.pools[pools[i].Name]; !seen {
			x.pools[pools[i].Name] = pools[i].NodeClassRef
		}
	}
}

// kubeIndexFirst records i as the position of key unless key already has one.
func kubeIndexFirst(m map[string]int, key string, i int) {
	if _, seen := m[key]; !seen {
		m[key] = i
	}
}

// claimFor returns the claim of n: the one owning it, else the first one naming it or its
// providerID in its status, or nil.
func (x *kubeKarpenterIndex) claimFor(n *corev1.Node) *snapshot.NodeClaim {
	if owner := kubeOwningClaim(n); owner != "" {
		if i, ok := x.byName[owner]; ok {
			return &x.claims[i]
		}
	}
	i, found := x.byNode[n.Name]
	if j, ok := x.byProvider[n.Spec.ProviderID]; ok && (!found || j < i) {
		i, found = j, true
	}
	if !found {
		return nil
	}
	return &x.claims[i]
}

// classRef returns the nodeClassRef of n's claim, else of its pool, or an empty ref.
func (x *kubeKarpenterIndex) classRef(n *corev1.Node) snapshot.NodeClassRef {
	claim := x.claimFor(n)
	if claim != nil && claim.NodeClassRef.Name != "" {
		return claim.NodeClassRef
	}
	return x.pools[kubeNodePool(n, claim)]
}
