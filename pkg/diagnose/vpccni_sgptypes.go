package diagnose

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specSGPUnsupportedTypes = &Spec{
	ID:       "sgp-unsupported-types",
	Severity: Warning,
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceAWSNode, snapshot.SourceNodePools, snapshot.SourceSecurityGroupPolicies},
	Examines: []string{SubjectNodePool},
	Title:    "a NodePool admits types Karpenter gives pod-eni capacity but the VPC resource controller cannot trunk",
	FiresWhen: "SecurityGroupPolicies exist (aws-node runs with `ENABLE_POD_ENI=true`) and a NodePool's requirements " +
		"admit instance types that Karpenter's VPC limits table gives `vpc.amazonaws.com/pod-eni` capacity but the " +
		"VPC resource controller's own table (embedded, with its version) does not list or does not call trunking " +
		"compatible; the requirements are evaluated on the types' names, families, categories, generations, sizes, " +
		"hypervisors, architectures, vCPUs and memory",
	NotOn: "clusters without SecurityGroupPolicies; NodePools that admit only types the controller trunks; types " +
		"neither table trunks (Karpenter gives them no pod-eni capacity, so it never launches them for such pods); " +
		"Windows and EKS Auto Mode NodePools; a type whose labels a requirement names that karpnet does not know " +
		"(GPU, local NVMe, bandwidth) counts as not admitted",
	Why: "pods a SecurityGroupPolicy selects request `vpc.amazonaws.com/pod-eni`; Karpenter launches a type its table " +
		"gives that capacity, the controller answers \"not supported yet by the vpc resource controller\", attaches no " +
		"trunk ENI and advertises no pod-eni, and the pods stay Pending on a node that never fits them",
	Remedy: "keep those types out of the NodePool (`karpenter.k8s.aws/instance-family NotIn`, or the types one by one), " +
		"or run a VPC resource controller whose limits table lists them",
	Scope: "the patch adds requirements to the one NodePool that admits the types, naming only their families (or the " +
		"types, where a family has types the controller trunks): the NodePool's nodes of those types drift and are " +
		"replaced, its other nodes stay; a requirement on the class or on every NodePool would reach nodes that run " +
		"no such pods",
	Sources: []string{
		"aws/amazon-vpc-resource-controller-k8s pkg/aws/vpc/limits.go (Limits: IsTrunkingCompatible, BranchInterface)",
		"aws/amazon-vpc-resource-controller-k8s pkg/provider/branch/provider.go (IsInstanceSupported)",
		"aws/amazon-vpc-resource-controller-k8s pkg/node/node.go (InitResources: not supported yet)",
		"aws/karpenter-provider-aws pkg/providers/instancetype/zz_generated.vpclimits.go, types.go (awsPodENI)",
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (computeRequirements)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift.go (areRequirementsDrifted)",
		"kubernetes-sigs/karpenter#2863",
		"aws/karpenter-provider-aws#8981",
	},
	Verified: []Verified{
		{UpstreamResourceCtrl, "pkg/aws/vpc/limits.go (Limits)",
			"the controller's table lists, per type, IsTrunkingCompatible and BranchInterface (embedded as pkg/maxpods/vpc-limits.txt)"},
		{UpstreamResourceCtrl, "pkg/provider/branch/provider.go (IsInstanceSupported)",
			"a node gets branch ENIs only when it runs Linux and its type is in Limits with IsTrunkingCompatible; otherwise the node gets an event \"The instance type X is not supported for trunk interface (Security Group for Pods)\""},
		{UpstreamResourceCtrl, "pkg/node/node.go (InitResources)",
			"a type the controller cannot load gets the node event \"The instance type X is not supported yet by the vpc resource controller\""},
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (awsPodENI), zz_generated.vpclimits.go (Limits)",
			"Karpenter gives a type vpc.amazonaws.com/pod-eni = its own table's BranchInterface when IsTrunkingCompatible, else 0; its table at v1.14.1 lists 182 trunking types the controller's v1.7.19 table lacks"},
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (computeRequirements, instanceTypeScheme)",
			"a type's instance-category and instance-generation come from the regexp (^[a-z]+)(-[0-9]+tb)?([0-9]+).*\\. of its name, instance-family and instance-size from the parts around the dot; instance-hypervisor, instance-cpu, instance-memory and kubernetes.io/arch from DescribeInstanceTypes"},
		{UpstreamKarpenterCore, "pkg/controllers/nodeclaim/disruption/drift.go (areRequirementsDrifted)",
			"requirements are not hashed: a NodeClaim drifts when the NodePool's requirements no longer admit its labels"},
	},
}

// sgpUnsupportedTypes finds NodePools that can launch, for pods a SecurityGroupPolicy selects,
// a type the VPC resource controller cannot trunk. Those pods request vpc.amazonaws.com/pod-eni;
// Karpenter picks a type its own copy of the VPC limits gives that capacity, and when its copy
// is newer than the controller's table the controller refuses the type, attaches no trunk ENI,
// and the pods stay Pending on a node that never fits them.
var sgpUnsupportedTypes = Check{
	Spec: specSGPUnsupportedTypes,
	Run: func(x *Index) []Finding {
		sgps := sgpCount(x.Snapshot)
		if sgps.Count <= 0 {
			return nil
		}
		var out []Finding
		for i := range x.Snapshot.NodePools {
			p := &x.Snapshot.NodePools[i]
			if sgpSkipsPool(x, p) {
				continue
			}
			var bad []maxpods.PodENIType
			for _, t := range maxpods.PodENITypes() {
				if t.KarpenterBranch > 0 && !t.ControllerTrunks() && typeAdmitted(p.Requirements, t) {
					bad = append(bad, t)
				}
			}
			if len(bad) == 0 {
				continue
			}
			out = append(out, sgpPoolFinding(x, p, bad, sgps))
		}
		return out
	},
}

// sgpCount is the snapshot's count of SecurityGroupPolicies.
func sgpCount(s *snapshot.Snapshot) snapshot.PolicyCount {
	for _, c := range s.SecurityGroupPolicies {
		if c.Kind == snapshot.KindSecurityGroupPolicy {
			return c
		}
	}
	return snapshot.PolicyCount{}
}

// sgpSkipsPool reports whether security groups for pods cannot apply to the NodePool's nodes:
// EKS Auto Mode, or Windows only (the controller trunks Linux nodes only).
func sgpSkipsPool(x *Index, p *snapshot.NodePool) bool {
	if p.NodeClassRef.Kind == snapshot.KindNodeClass && p.NodeClassRef.Group == snapshot.AutoModeGroup {
		return true
	}
	for _, r := range p.Requirements {
		if r.Key == corev1.LabelOSStable && !requirementAllows(r, "linux") {
			return true
		}
	}
	c := x.NodeClass(snapshot.KindEC2NodeClass, p.NodeClassRef.Name)
	return c != nil && strings.HasPrefix(strings.ToLower(c.AMIFamily), "windows")
}

// sgpPoolFinding reports the pool's types the controller cannot trunk, with the patch that keeps
// them out.
func sgpPoolFinding(x *Index, p *snapshot.NodePool, bad []maxpods.PodENIType, sgps snapshot.PolicyCount) Finding {
	src := maxpods.PodENISource()
	names := make([]string, 0, len(bad))
	for _, t := range bad {
		names = append(names, fmt.Sprintf("%s (Karpenter pod-eni %d)", t.Name, t.KarpenterBranch))
	}
	policies := countText(sgps.Count, "SecurityGroupPolicy", "SecurityGroupPolicies")
	if sgps.More {
		policies = "at least " + policies
	}
	if len(sgps.Names) > 0 {
		policies += " (" + abbreviate(sgps.Names, 3) + ")"
	}
	reqs, rejected := sgpExclusions(bad)
	return Finding{
		Resource: "nodepool/" + p.Name,
		Message: fmt.Sprintf("NodePool %s admits %s that Karpenter %s gives vpc.amazonaws.com/pod-eni capacity but the VPC "+
			"resource controller %s does not trunk (its pkg/aws/vpc/limits.go): %s; with %s, pods they select may get such "+
			"a node, which the controller gives no trunk ENI, and stay Pending", p.Name,
			countText(len(bad), "instance type", "instance types"), sourceVersion(src.Karpenter),
			sourceVersion(src.Controller), abbreviate(names, 5), policies),
		Remedy: fmt.Sprintf("keep those types out of NodePool %s (the command adds %s), or run a VPC resource controller "+
			"whose limits table lists them (EKS runs it in the control plane, at a version karpnet cannot read: a newer "+
			"one may trunk them; its node events say \"not supported yet by the vpc resource controller\" when it does not)",
			p.Name, requirementsText(reqs)),
		Commands: []Command{poolRequirementCommand(x, p.Name, reqs, "of those types", "sgp-unsupported", rejected)},
	}
}

// sgpExclusions are the requirements that keep the types out: their families (NotIn) where no
// type of the family is trunked by the controller, the types themselves otherwise; rejected
// tells the nodes the requirements reject.
func sgpExclusions(bad []maxpods.PodENIType) ([]snapshot.Requirement, func(*NodeInfo) bool) {
	trunked := map[string]bool{}
	for _, t := range maxpods.PodENITypes() {
		if t.ControllerTrunks() {
			trunked[typeFamily(t.Name)] = true
		}
	}
	var families, types []string
	for _, t := range bad {
		if f := typeFamily(t.Name); !trunked[f] {
			families = append(families, f)
		} else {
			types = append(types, t.Name)
		}
	}
	families, types = sortedUnique(families), sortedUnique(types)
	var reqs []snapshot.Requirement
	if len(families) > 0 {
		reqs = append(reqs, snapshot.Requirement{Key: labelInstanceFamily, Operator: string(corev1.NodeSelectorOpNotIn), Values: families})
	}
	if len(types) > 0 {
		reqs = append(reqs, snapshot.Requirement{Key: corev1.LabelInstanceTypeStable, Operator: string(corev1.NodeSelectorOpNotIn), Values: types})
	}
	rejected := func(n *NodeInfo) bool {
		name := nodeTypeName(n)
		return name != "" && (slices.Contains(families, typeFamily(name)) || slices.Contains(types, name))
	}
	return reqs, rejected
}

// requirementsText renders requirements for prose: "KEY NotIn [a, b] and KEY2 NotIn [c]".
func requirementsText(reqs []snapshot.Requirement) string {
	var parts []string
	for _, r := range reqs {
		parts = append(parts, fmt.Sprintf("%s %s [%s]", r.Key, r.Operator, abbreviate(r.Values, 8)))
	}
	return strings.Join(parts, " and ")
}

// sourceVersion is the version in a source line of the embedded table ("REPO VERSION PATH ..."),
// or "" when it has none.
func sourceVersion(src string) string {
	if f := strings.Fields(src); len(f) > 1 {
		return f[1]
	}
	return ""
}
