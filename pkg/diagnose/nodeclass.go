package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// conditionField names the EC2NodeClass field or setting behind each readiness condition.
func conditionField(conditionType string) string {
	switch conditionType {
	case "SubnetsReady":
		return "spec.subnetSelectorTerms"
	case "SecurityGroupsReady":
		return "spec.securityGroupSelectorTerms"
	case "PlacementGroupReady":
		return "spec.placementGroupSelector"
	case "InstanceProfileReady":
		return "spec.role or spec.instanceProfile"
	case "AMIsReady":
		return "spec.amiSelectorTerms"
	case "CapacityReservationsReady":
		return "spec.capacityReservationSelectorTerms"
	case "ValidationSucceeded":
		return "Karpenter's IAM permissions (ec2:CreateFleet, ec2:RunInstances, ec2:CreateLaunchTemplate), spec.kubelet and spec.tags"
	}
	return ""
}

// nodeClassNotReady finds EC2NodeClasses that NodePools use but Karpenter does not consider
// Ready. Karpenter skips such NodePools entirely: no node is launched for their pending pods
// (NodeClaim events NodeClassNotReady), which on EKS looks like pods stuck Pending.
var nodeClassNotReady = Check{
	ID:       "nodeclass-not-ready",
	Severity: Critical,
	Title:    "an EC2NodeClass used by a NodePool is not Ready",
	Run: func(x *Index) []Finding {
		pools := map[string][]string{}
		for _, p := range x.Snapshot.NodePools {
			if p.NodeClassRef.Name != "" && isEC2NodeClassRef(p.NodeClassRef) {
				pools[p.NodeClassRef.Name] = append(pools[p.NodeClassRef.Name], p.Name)
			}
		}
		var out []Finding
		for _, name := range sortedKeys(pools) {
			c := x.NodeClasses[name]
			if c == nil {
				continue
			}
			ready := findCondition(c.Conditions, "Ready")
			if ready == nil || ready.Status != "False" {
				continue
			}
			slices.Sort(pools[name])
			out = append(out, notReadyFinding(c, *ready, pools[name]))
		}
		return out
	},
}

// notReadyFinding describes why an EC2NodeClass is not Ready, naming each False condition.
func notReadyFinding(c *snapshot.EC2NodeClass, ready snapshot.Condition, pools []string) Finding {
	var failed []snapshot.Condition
	for _, cond := range c.Conditions {
		if cond.Type != "Ready" && cond.Status == "False" {
			failed = append(failed, cond)
		}
	}
	slices.SortFunc(failed, func(a, b snapshot.Condition) int { return strings.Compare(a.Type, b.Type) })
	if len(failed) == 0 {
		failed = []snapshot.Condition{ready}
	}
	var causes, fields []string
	for _, cond := range failed {
		cause := cond.Type + "=False"
		switch {
		case cond.Reason != "" && cond.Message != "":
			cause += fmt.Sprintf(" (%s: %s)", cond.Reason, cond.Message)
		case cond.Reason != "" || cond.Message != "":
			cause += fmt.Sprintf(" (%s%s)", cond.Reason, cond.Message)
		}
		causes = append(causes, cause)
		if f := conditionField(cond.Type); f != "" && cond.Reason != "DependenciesNotReady" && !slices.Contains(fields, f) {
			fields = append(fields, f)
		}
	}
	remedy := fmt.Sprintf("see the conditions in kubectl describe ec2nodeclass %s", c.Name)
	if len(fields) > 0 {
		remedy = fmt.Sprintf("fix EC2NodeClass %s (%s), then check kubectl describe ec2nodeclass %s",
			c.Name, strings.Join(fields, "; "), c.Name)
	}
	return Finding{
		ID:       "nodeclass-not-ready",
		Severity: Critical,
		Resource: "ec2nodeclass/" + c.Name,
		Message: fmt.Sprintf("EC2NodeClass %s is not Ready, so Karpenter launches no nodes for NodePool %s: %s",
			c.Name, strings.Join(pools, ", "), strings.Join(causes, "; ")),
		Remedy: remedy,
	}
}

// findCondition returns the condition of the given type, or nil.
func findCondition(conds []snapshot.Condition, conditionType string) *snapshot.Condition {
	for i := range conds {
		if conds[i].Type == conditionType {
			return &conds[i]
		}
	}
	return nil
}
