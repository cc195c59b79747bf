package diagnose

import (
	"fmt"
	"strings"
)

var specSecurityGroupDrift = &Spec{
	ID:        "security-group-drift",
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "the instance's security groups differ from its EC2NodeClass status.securityGroups",
	FiresWhen: "the instance security groups differ from its EC2NodeClass `status.securityGroups`",
	NotOn:     "ENIConfig and branch-ENI groups (Karpenter compares the instance's own, primary-ENI groups)",
	Why:       "Karpenter replaces the node (SecurityGroupDrift); hand-added groups vanish",
	Remedy:    "select the groups in `spec.securityGroupSelectorTerms`; do not attach by hand",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/drift.go (SecurityGroupDrift)",
		"aws/karpenter-provider-aws pkg/providers/instance/types.go (Instance.SecurityGroups)",
		"aws/karpenter-provider-aws pkg/providers/launchtemplate/launchtemplate.go (all class groups on every LT ENI)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/securitygroup.go",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/cloudprovider/drift.go (areSecurityGroupsDrifted)",
			"The set of the instance's security group IDs must equal the set of the class's status.securityGroups, else SecurityGroupDrift; an empty status is not judged."},
		{UpstreamKarpenter, "pkg/providers/instance/types.go (NewInstance: SecurityGroupIDs)",
			"The instance's groups Karpenter compares are EC2's Instance.SecurityGroups, not a secondary or branch ENI's."},
	},
}

// securityGroupDrift finds Karpenter and EKS Auto Mode nodes whose instance security groups
// differ from those their EC2NodeClass or NodeClass resolves. Karpenter marks such NodeClaims Drifted (SecurityGroupDrift) and
// replaces them; until then the node may lack the rules that let it reach the control plane,
// CoreDNS or its peers, or carry groups that were meant to be removed.
var securityGroupDrift = Check{
	Spec: specSecurityGroupDrift,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Class == nil || len(n.Class.StatusSecurityGroups) == 0 || n.Instance == nil || len(n.Instance.SecurityGroups) == 0 {
				continue
			}
			have := map[string]bool{}
			for _, g := range n.Instance.SecurityGroups {
				have[g.ID] = true
			}
			want := map[string]bool{}
			for _, g := range n.Class.StatusSecurityGroups {
				want[g.ID] = true
			}
			missing, extra := setDiff(want, have), setDiff(have, want)
			if len(missing) == 0 && len(extra) == 0 {
				continue
			}
			var parts []string
			if len(missing) > 0 {
				parts = append(parts, "missing "+strings.Join(missing, ", "))
			}
			if len(extra) > 0 {
				parts = append(parts, "extra "+strings.Join(extra, ", "))
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: n.ClassRef(),
				Message: fmt.Sprintf("instance %s security groups differ from %s status.securityGroups: %s; "+
					"%s will replace the node as drifted (SecurityGroupDrift)",
					n.Instance.ID, n.ClassLabel(), strings.Join(parts, "; "), n.launcher()),
				Remedy: fmt.Sprintf("make spec.securityGroupSelectorTerms of %s select exactly the groups the "+
					"nodes need and let %s replace drifted nodes (%s; each whose groups then differ drifts); do not add "+
					"groups to %s instances by hand", n.ClassLabel(), n.launcher(), classReach(x, n), n.launcher()),
			})
		}
		return out
	},
}

// setDiff returns the sorted keys of a that are not in b.
func setDiff(a, b map[string]bool) []string {
	var out []string
	for _, k := range sortedKeys(a) {
		if !b[k] {
			out = append(out, k)
		}
	}
	return out
}
