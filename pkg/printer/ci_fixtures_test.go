package printer

import (
	"cmp"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

const deletingNode = "ip-10-0-90-9.eu-west-1.compute.internal"

// ciReport is findingsReport with the nodes a CI report lists: a node with findings, a node
// whose instance is gone, a hybrid node (skipped), a node being deleted, a subnet and a
// NodeClaim without a Node; its data-unavailable finding names its gap's source, as Analyze
// writes it.
func ciReport() diagnose.Report {
	r := findingsReport()
	deleting := diagnose.NodeReport{
		Identity: diagnose.Identity{Node: deletingNode, NodePool: "default", NodeClass: "default"},
		Lifecycle: diagnose.Lifecycle{
			State:  string(diagnose.StateTerminating),
			Reason: "deleted 2m ago (deletionTimestamp 2025-06-01T12:28:00Z); instance i-0aaa is shutting-down",
		},
		Status: diagnose.StatusTerminating,
	}
	skipped := skippedNodeReport()
	skipped.Lifecycle = diagnose.Lifecycle{State: string(diagnose.StateSkipped), Reason: "EKS hybrid node: it runs outside EC2"}
	r.Nodes = []diagnose.NodeReport{gpuNodeReport(), goneNodeReport(), skipped, deleting}
	r.Findings = append(r.Findings, goneNodeReport().Findings...)
	r.Subnets = []diagnose.SubnetUse{{ID: gpuSubnet, CIDR: "10.0.0.0/20", Zone: "eu-west-1a", NodeClasses: []string{"gpu"}}}
	r.NodeClaims = []diagnose.NodeClaimReport{{Name: "gpu-x7k2p", NodePool: "gpu", NodeClass: "gpu", Status: "launch failed"}}
	for i, f := range r.Findings {
		if f.ID == diagnose.DataUnavailableID {
			r.Findings[i].Resource = r.Gaps[0].Source
		}
	}
	slices.SortFunc(r.Findings, func(a, b diagnose.Finding) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), strings.Compare(a.ID, b.ID),
			strings.Compare(a.Node, b.Node), strings.Compare(a.Resource, b.Resource))
	})
	return r
}

// ciChecks are the checks the CI goldens show: those with findings in ciReport, and one of
// each kind of subject.
func ciChecks() []diagnose.Check {
	return diagnose.SelectedChecks([]string{
		"instance-not-found", "node-termination-stuck", "security-group-drift", "instance-type-mismatch",
		"max-pods-exceeds-ip-capacity", "subnet-ip-exhaustion", "nodeclass-not-ready", "data-unavailable",
		"nodeclaim-launch-failed", "instance-orphaned", "efa-subnet-split",
	}, nil)
}
