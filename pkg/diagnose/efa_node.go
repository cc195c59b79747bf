package diagnose

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// efaPluginGrace is how long a new node may take before the EFA device plugin advertises
// vpc.amazonaws.com/efa on it.
const efaPluginGrace = 10 * time.Minute

var specEFAUnsupportedInstanceType = &Spec{
	ID:       "efa-unsupported-instance-type",
	Severity: Critical,
	Family:   FamilyEFA,
	Examines: []string{SubjectNode},
	Title:    "the node is meant to have EFA but its instance type does not support EFA",
	FiresWhen: "the node's EC2NodeClass `spec.networkInterfaces` has efa-only entries, or its NodeClaim requests " +
		"`vpc.amazonaws.com/efa`, but its instance type has `EfaSupported=false`",
	NotOn: "nodes whose class has no efa-only entries and whose NodeClaim requests no EFA",
	Why:   "EC2 attaches no EFA to such a type, so the pods that need EFA get no OS-bypass network",
	Remedy: "limit the NodePools to EFA-capable types (`node.kubernetes.io/instance-type` requirement) and " +
		"replace the node (`kubectl delete nodeclaim NAME`)",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (efas)",
		"aws/karpenter-provider-aws#9027",
		"aws/karpenter-provider-aws designs/efa-for-static-capacity.md",
		"https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html",
	},
	Verified: []Verified{
		{UpstreamEC2API, "types/types.go (NetworkInfo.EfaSupported, EfaInfo.MaximumEfaInterfaces)",
			"DescribeInstanceTypes says per type whether EFA is supported and how many EFA interfaces it takes at most."},
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (efas)",
			"A type's vpc.amazonaws.com/efa capacity is the number of the class's efa-only interfaces when it sets networkInterfaces, else the type's MaximumEfaInterfaces."},
	},
}

// efaUnsupportedInstanceType finds nodes that are meant to carry EFA (efa-only entries in
// their EC2NodeClass spec.networkInterfaces, or a NodeClaim requesting vpc.amazonaws.com/efa)
// on an instance type without EFA. EC2 refuses EFA interfaces on such types, so the node has
// none and the pods that need EFA get no OS-bypass network; Karpenter 1.11+ also filters such
// types out of the class, so the node is an old one that drift will replace.
var efaUnsupportedInstanceType = Check{
	Spec: specEFAUnsupportedInstanceType,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Type == nil || n.Type.EFASupported {
				continue
			}
			var asks, fixes []string
			var commands []Command
			if k := classEFAOnly(n.Class); k > 0 {
				asks = append(asks, fmt.Sprintf("%s %s has %s",
					n.ClassLabel(), classField(n.Class, "spec.networkInterfaces"), countText(k, "efa-only entry", "efa-only entries")))
				fixes = append(fixes, fmt.Sprintf("limit the NodePools of %s to EFA-capable instance types "+
					"(spec.template.spec.requirements on node.kubernetes.io/instance-type, e.g. p5.48xlarge, p4d.24xlarge, "+
					"c5n.18xlarge), then %s", n.ClassLabel(), replaceNodeProse(n, "")))
				commands = replaceNodeCommands(n)
			}
			if q := claimEFARequest(n.Claim); q > 0 {
				asks = append(asks, fmt.Sprintf("NodeClaim %s requests %s: %d", n.Claim.Name, ResourceEFA, q))
				fixes = append(fixes, fmt.Sprintf("make the pods that request %s select EFA-capable instance types "+
					"(node.kubernetes.io/instance-type in their nodeAffinity or in the NodePool requirements)", ResourceEFA))
			}
			if len(asks) == 0 {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("instance type %s does not support EFA (EfaSupported=false), yet %s",
					n.Type.Name, strings.Join(asks, " and ")),
				Remedy:   strings.Join(fixes, "; "),
				Commands: commands,
			})
		}
		return out
	},
}

var specEFAInterfaceCountMismatch = &Spec{
	ID:       "efa-interface-count-mismatch",
	Severity: Critical,
	Family:   FamilyEFA,
	Examines: []string{SubjectNode},
	Title:    "the EFA interfaces attached differ from what the EC2NodeClass or node capacity says",
	FiresWhen: "the EFA interfaces attached (efa + efa-only ENIs) differ from the EC2NodeClass's efa-only " +
		"entries, or (without any) from the node's `vpc.amazonaws.com/efa` capacity; both numbers stated",
	NotOn: "types without EFA (see `efa-unsupported-instance-type`), nodes whose class has no efa-only " +
		"entries and that advertise no `vpc.amazonaws.com/efa`",
	Why: "NCCL/MPI size their rails by the EFA devices they get: fewer devices means slower or failing " +
		"collectives, and EFAs are attached only at launch",
	Remedy: "replace the node (`kubectl delete nodeclaim NAME`) so Karpenter launches it with the class's " +
		"`spec.networkInterfaces`; for a capacity mismatch restart the aws-efa-k8s-device-plugin pod " +
		"first",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/launchtemplate/launchtemplate.go (generateNetworkInterfaces)",
		"aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go (instanceToNodeClaim: efa capacity)",
		"aws/karpenter-provider-aws designs/efa-for-static-capacity.md",
		"https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/create-efa.html (attach only at launch or stopped)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/providers/launchtemplate/launchtemplate.go (generateNetworkInterfaces)",
			"Karpenter launches one interface per spec.networkInterfaces entry, or one efa interface per requested EFA (one per network card), else a single interface."},
		{UpstreamKarpenter, "pkg/providers/instance/types.go (NewInstance: EFACount)",
			"Karpenter counts an instance's EFAs as its interfaces of type efa or efa-only."},
		{UpstreamKarpenter, "pkg/cloudprovider/cloudprovider.go (instanceToNodeClaim)",
			"The NodeClaim advertises vpc.amazonaws.com/efa only when the instance has EFA interfaces."},
		{UpstreamEC2API, "types/enums.go (NetworkInterfaceType)",
			"The EFA interface types are efa and efa-only."},
	},
}

// efaInterfaceCountMismatch finds nodes whose attached EFA interfaces differ in number from
// what their EC2NodeClass spec.networkInterfaces asks for, or (without efa-only entries) from
// the vpc.amazonaws.com/efa capacity the node advertises. NCCL and MPI jobs size their rails
// by the EFA devices they are given: a node with fewer runs collectives slower or fails to
// start them. EFA interfaces are attached only at launch, so the node must be replaced.
// Nodes whose instance type has no EFA are left to efa-unsupported-instance-type.
var efaInterfaceCountMismatch = Check{
	Spec: specEFAInterfaceCountMismatch,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Instance == nil || len(n.Instance.ENIs) == 0 || n.Type != nil && !n.Type.EFASupported {
				continue
			}
			efas := efaInterfaces(n)
			attached := int64(len(efas))
			var want int64
			var says, remedy string
			if k := classEFAOnly(n.Class); k > 0 {
				want = k
				field := classField(n.Class, "spec.networkInterfaces")
				says = fmt.Sprintf("%s %s has %s", n.ClassLabel(), field, countText(k, "efa-only entry", "efa-only entries"))
				remedy = "EFA interfaces are attached only at launch: " + replaceNodeProse(n,
					fmt.Sprintf("so %s launches it with %s of %s", n.launcher(), field, n.ClassLabel()))
			} else if q, ok := n.Node.Status.Capacity[ResourceEFA]; ok {
				want = q.Value()
				says = fmt.Sprintf("the node's capacity %s is %d", ResourceEFA, want)
				remedy = fmt.Sprintf("restart the aws-efa-k8s-device-plugin pod on the node so it counts the EFA devices "+
					"again; if EC2 still shows fewer EFA interfaces than pods expect, %s", replaceNodeProse(n, ""))
			} else {
				continue
			}
			if attached == want {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("instance %s has %s attached, but %s",
					n.Instance.ID, efaTypeCounts(efas), says),
				Remedy:   remedy,
				Commands: replaceNodeCommands(n),
			})
		}
		return out
	},
}

var specEFAResourceNotAdvertised = &Spec{
	ID:       "efa-resource-not-advertised",
	Severity: Warning,
	Family:   FamilyEFA,
	Examines: []string{SubjectNode},
	Title:    "the node has EFA interfaces but no allocatable vpc.amazonaws.com/efa",
	FiresWhen: "the node has EFA interfaces attached but allocatable `vpc.amazonaws.com/efa` is missing or 0 " +
		"(after 10 minutes)",
	NotOn: "nodes younger than 10 minutes",
	Why: "the aws-efa-k8s-device-plugin is not running there (an untolerated taint, instance type not in " +
		"its affinity), so EFA pods never schedule on the node",
	Remedy: "add tolerations (Helm `tolerations`) and the instance type (Helm " +
		"`supportedInstanceLabels.values`) to the EFA device plugin",
	Sources: []string{
		"aws/eks-charts stable/aws-efa-k8s-device-plugin/values.yaml",
		"aws/eks-charts stable/aws-efa-k8s-device-plugin/templates/daemonset.yaml",
		"aws/karpenter-provider-aws designs/efa-for-static-capacity.md (non-goal 1)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/apis/v1/labels.go (ResourceEFA)",
			"The EFA extended resource is vpc.amazonaws.com/efa."},
		{UpstreamKarpenter, "pkg/providers/instancetype/types.go (efas)",
			"Karpenter predicts vpc.amazonaws.com/efa capacity for EFA types; the node itself advertises it only through the EFA device plugin."},
	},
}

// efaResourceNotAdvertised finds nodes with EFA interfaces attached that do not advertise
// allocatable vpc.amazonaws.com/efa. The aws-efa-k8s-device-plugin DaemonSet advertises it;
// when its pod does not run on the node (a taint it does not tolerate, an instance type missing
// from its node affinity list) pods requesting EFA never schedule there and the EFA hardware
// sits idle. New nodes get a few minutes for the plugin to start.
var efaResourceNotAdvertised = Check{
	Spec: specEFAResourceNotAdvertised,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range efaNodes(x) {
			if q, ok := n.Node.Status.Allocatable[ResourceEFA]; ok && q.Value() > 0 {
				continue
			}
			if created := n.Node.CreationTimestamp; !created.IsZero() && x.Snapshot.Taken.Sub(created.Time) < efaPluginGrace {
				continue
			}
			state := "missing"
			if _, ok := n.Node.Status.Allocatable[ResourceEFA]; ok {
				state = "0"
			}
			typ := n.Instance.Type
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("instance %s has %s attached but the node's allocatable %s is %s: "+
					"the EFA device plugin is not running there, so pods requesting %s cannot schedule on it%s",
					n.Instance.ID, efaTypeCounts(efaInterfaces(n)), ResourceEFA, state, ResourceEFA, taintsText(n.Node.Spec.Taints)),
				Remedy:   efaPluginRemedy(n, typ),
				Commands: []Command{podsOnNodeCommand(n.Name())},
			})
		}
		return out
	},
}

// efaPluginRemedy says how to get the EFA device plugin onto the node.
func efaPluginRemedy(n *NodeInfo, typ string) string {
	fix := "make the aws-efa-k8s-device-plugin DaemonSet run on this node: "
	if taintsText(n.Node.Spec.Taints) != "" {
		fix += "add tolerations for the node's taints (Helm value tolerations) and "
	}
	return fix + fmt.Sprintf("list instance type %s in its node affinity (Helm value supportedInstanceLabels.values); "+
		"then check that its pod runs there (the command lists the node's pods)", typ)
}

// podsOnNodeCommand lists the pods on a node, in every namespace, with their node and IP.
func podsOnNodeCommand(node string) Command {
	return Command{Argv: []string{"kubectl", "get", "pods", "-A", "-o", "wide", "--field-selector", "spec.nodeName=" + node},
		ReadOnly: true}
}

// taintsText lists the node's own taints as "; node taints: key=value:Effect, ...", or ""
// without any. The node.kubernetes.io/ condition taints are left out: DaemonSet pods
// tolerate them.
func taintsText(taints []corev1.Taint) string {
	var parts []string
	for _, t := range taints {
		if strings.HasPrefix(t.Key, "node.kubernetes.io/") {
			continue
		}
		parts = append(parts, taintText(t))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; node taints: " + strings.Join(sortedUnique(parts), ", ")
}
