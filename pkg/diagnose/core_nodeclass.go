package diagnose

import (
	"cmp"
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

// autoConditionField names the Auto Mode NodeClass field or setting behind each readiness
// condition: the same selectors, but Auto Mode launches with the cluster IAM role and has no
// AMI or kubelet fields.
func autoConditionField(conditionType string) string {
	switch conditionType {
	case "AMIsReady":
		return ""
	case "ValidationSucceeded":
		return "the EKS cluster IAM role's permissions (spec.tags needs its extra tagging permissions)"
	}
	return conditionField(conditionType)
}

// reasonUnauthorizedNodeRole is the InstanceProfileReady reason of an Auto Mode NodeClass whose
// node role may not join nodes to the cluster.
const reasonUnauthorizedNodeRole = "UnauthorizedNodeRole"

// autoNodePolicyARN is the EKS access policy an Auto Mode node role's access entry needs.
const autoNodePolicyARN = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy"

var specNodeClassNotReady = &Spec{
	ID:       "nodeclass-not-ready",
	Severity: Critical,
	Family:   FamilyCore,
	Examines: []string{SubjectNodeClass},
	Title:    "an EC2NodeClass or NodeClass used by a NodePool is not Ready",
	FiresWhen: "an EC2NodeClass used by a NodePool has `Ready=False` (the message names each false " +
		"sub-condition: SubnetsReady, SecurityGroupsReady, PlacementGroupReady, ...)",
	NotOn:  "classes no NodePool uses",
	Why:    "Karpenter launches no node for those NodePools",
	Remedy: "fix what the sub-condition names (selector terms, IAM, placement group)",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_status.go (Ready = AND of sub-conditions)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/subnet.go (SubnetsNotFound)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/validation.go",
		"kubernetes-sigs/karpenter pkg/events/reason.go (NodeClassNotReady)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/apis/v1/ec2nodeclass_status.go (StatusConditions)",
			"An EC2NodeClass is Ready only when AMIsReady, SubnetsReady, SecurityGroupsReady, InstanceProfileReady, ValidationSucceeded and PlacementGroupReady (and CapacityReservationsReady when that feature is on) are all true."},
		{UpstreamKarpenter, "pkg/controllers/nodeclass/subnet.go (Reconcile)",
			"A subnet selector that matches nothing sets SubnetsReady=False, reason SubnetsNotFound."},
		{UpstreamKarpenter, "pkg/controllers/nodeclass/securitygroup.go (Reconcile)",
			"A security group selector that matches nothing sets SecurityGroupsReady=False, reason SecurityGroupsNotFound."},
		{UpstreamKarpenter, "pkg/controllers/nodeclass/validation.go (ConditionReason*)",
			"ValidationSucceeded=False when the controller is not authorized for ec2:CreateFleet, ec2:CreateLaunchTemplate or ec2:RunInstances, or the tags or user data are invalid."},
		{UpstreamKarpenter, "pkg/apis/v1/ec2nodeclass.go (PlacementGroupSelector)",
			"The placement group is chosen by spec.placementGroupSelector."},
	},
}

// nodeClassNotReady finds EC2NodeClasses and Auto Mode NodeClasses that NodePools use but
// Karpenter (or Auto Mode's Karpenter-derived compute controller) does not consider Ready. Such
// NodePools are skipped entirely: no node is launched for their pending pods (NodeClaim events
// NodeClassNotReady), which on EKS looks like pods stuck Pending.
var nodeClassNotReady = Check{
	Spec: specNodeClassNotReady,
	Run: func(x *Index) []Finding {
		pools := map[string][]string{}
		for _, p := range x.Snapshot.NodePools {
			if kind := refKind(p.NodeClassRef); kind != "" && p.NodeClassRef.Name != "" {
				key := ClassKey(kind, p.NodeClassRef.Name)
				pools[key] = append(pools[key], p.Name)
			}
		}
		var out []Finding
		for _, key := range sortedKeys(pools) {
			c := x.NodeClasses[key]
			if c == nil {
				continue
			}
			ready := findCondition(c.Conditions, "Ready")
			if ready == nil || ready.Status != "False" {
				continue
			}
			slices.Sort(pools[key])
			out = append(out, notReadyFinding(c, *ready, pools[key], cmp.Or(x.Snapshot.ClusterName, x.clusterName())))
		}
		return out
	},
}

// notReadyFinding describes why a class is not Ready, naming each False condition verbatim.
func notReadyFinding(c *snapshot.EC2NodeClass, ready snapshot.Condition, pools []string, cluster string) Finding {
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
	field := conditionField
	if c.AutoMode() {
		field = autoConditionField
	}
	var causes, fields []string
	unauthorized := false
	for _, cond := range failed {
		cause := cond.Type + "=False"
		switch {
		case cond.Reason != "" && cond.Message != "":
			cause += fmt.Sprintf(" (%s: %s)", cond.Reason, cond.Message)
		case cond.Reason != "" || cond.Message != "":
			cause += fmt.Sprintf(" (%s%s)", cond.Reason, cond.Message)
		}
		causes = append(causes, cause)
		unauthorized = unauthorized || cond.Reason == reasonUnauthorizedNodeRole
		if f := field(cond.Type); f != "" && cond.Reason != "DependenciesNotReady" && !slices.Contains(fields, f) {
			fields = append(fields, f)
		}
	}
	label := classLabel(c)
	const describe = "its conditions (the command)"
	remedy := "see " + describe
	if len(fields) > 0 {
		remedy = fmt.Sprintf("fix %s (%s), then check %s", label, strings.Join(fields, "; "), describe)
	}
	if c.AutoMode() && unauthorized {
		in := "the cluster"
		if cluster != "" {
			in = "cluster " + cluster
		}
		// karpnet reads no node role ARN (spec.role holds a name, the account is not always known),
		// so the AWS CLI commands, which take the ARN, stay in prose.
		remedy = fmt.Sprintf("give the node role of %s (spec.role) an EKS access entry of type EC2 in %s with "+
			"AmazonEKSAutoNodePolicy (%s, access scope cluster): the AWS CLI's eks create-access-entry and then eks "+
			"associate-access-policy, each with the role's ARN", label, in, autoNodePolicyARN)
		fields = slices.DeleteFunc(fields, func(f string) bool { return f == field("InstanceProfileReady") })
		if len(fields) > 0 {
			remedy += fmt.Sprintf("; fix %s (%s)", label, strings.Join(fields, "; "))
		}
		remedy += ", then check " + describe
	}
	launcher := "Karpenter"
	if c.AutoMode() {
		launcher = "EKS Auto Mode"
	}
	return Finding{
		Resource: classRef(c),
		Message: fmt.Sprintf("%s is not Ready, so %s launches no nodes for NodePool %s: %s",
			label, launcher, strings.Join(pools, ", "), strings.Join(causes, "; ")),
		Remedy:   remedy,
		Commands: []Command{{Argv: []string{"kubectl", "describe", strings.ToLower(c.KindName()), c.Name}, ReadOnly: true}},
	}
}
