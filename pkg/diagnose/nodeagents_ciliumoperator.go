package diagnose

import (
	"fmt"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specCiliumIPAMOperatorError = &Spec{
	ID:       "cilium-ipam-operator-error",
	Severity: Warning,
	Family:   FamilyNodeAgents,
	Needs:    []string{snapshot.SourceCiliumNodes},
	Examines: []string{SubjectNode},
	Title:    "Cilium's operator reports an IPAM error for the node",
	FiresWhen: "Cilium runs with `ipam: cluster-pool` or `multi-pool`, the modes whose operator writes the field, and the " +
		"node's CiliumNode has `status.ipam.operator-status.error` set",
	NotOn: "CiliumNodes without an error; Cilium in ENI mode, whose operator logs its allocation errors and never " +
		"writes the field; other IPAM modes",
	Why: "the operator could not give the node a pod CIDR (its cluster pool is full, a CIDR conflicts) or the node's " +
		"pools: pods on the node wait for an address",
	Remedy: "read the error and the operator's log (kubectl -n kube-system logs deploy/cilium-operator); add room to the " +
		"pool it names (clusterPoolIPv4PodCIDRList, or the CiliumPodIPPool's CIDRs)",
	Sources: []string{
		"cilium/cilium pkg/ipam/types/types.go (IPAMStatus.OperatorStatus)",
		"cilium/cilium operator/pkg/ipam/allocator/podcidr/podcidr.go (cluster-pool: allocateNode writes the error)",
		"cilium/cilium operator/pkg/ipam/allocator/multipool/node_handler.go (multi-pool: \"<handler> allocation failed: ...\")",
		"cilium/cilium operator/pkg/ipam/nodemanager/node.go (syncToAPIServer: ENI mode writes status.eni and release status only)",
	},
	Verified: []Verified{
		{UpstreamCilium, "operator/pkg/ipam/nodemanager/node.go (syncToAPIServer)",
			"the cloud node manager (ENI mode) writes the CiliumNode's status through PopulateStatusFields, PopulateIPReleaseStatus and PopulateStaticIPStatus and spec.ipam.pool; never status.ipam.operator-status"},
		{UpstreamCilium, "operator/pkg/ipam/allocator/podcidr/podcidr.go (allocateNode)",
			"cluster-pool writes the allocation error's text into status.ipam.operator-status.error, e.g. \"allocator <cidrs> full\""},
		{UpstreamCilium, "operator/pkg/ipam/allocator/multipool/node_handler.go (NewNodeHandler)",
			"multi-pool writes \"<handler> allocation failed: <error>\" into status.ipam.operator-status.error; multipool.go StartAllocator runs only with ipam multi-pool"},
		{UpstreamCilium, "operator/pkg/ipam/clusterpool.go (startClusterPoolAllocator)",
			"the cluster-pool allocator, which hands nodes to podcidr.go's NodesPodCIDRManager, runs only with ipam cluster-pool"},
	},
}

// ciliumIPAMOperatorError surfaces the IPAM error Cilium's operator wrote on a CiliumNode, in
// the IPAM modes whose operator writes one.
var ciliumIPAMOperatorError = Check{
	Spec: specCiliumIPAMOperatorError,
	Run: func(x *Index) []Finding {
		c := x.Snapshot.Cilium
		if c == nil || c.IPAM() != snapshot.CiliumIPAMClusterPool && c.IPAM() != snapshot.CiliumIPAMMultiPool {
			return nil
		}
		var out []Finding
		for _, n := range x.checkedNodes() {
			cn := x.ciliumNodeOf(n)
			if cn == nil || cn.OperatorError == "" || n.Windows() || n.AutoMode() {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("Cilium's operator (ipam: %s) reports on CiliumNode %s: \"%s\"", c.IPAM(), cn.Name,
					cn.OperatorError),
				Remedy: "read the lines naming " + n.Name() + " in the operator's log (the command); a full pool needs more CIDRs " +
					"(Helm ipam.operator.clusterPoolIPv4PodCIDRList, or the CiliumPodIPPool's spec.ipv4.cidrs), a CIDR conflict " +
					"the node's spec.ipam.podCIDRs released",
				Commands: []Command{{Argv: []string{"kubectl", "-n", "kube-system", "logs", "deploy/cilium-operator"}, ReadOnly: true}},
			})
		}
		return out
	},
}
