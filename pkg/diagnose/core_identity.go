package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specProviderIDInvalid = &Spec{
	ID:        "provider-id-invalid",
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "EC2 node has no parsable aws:///ZONE/INSTANCE-ID providerID",
	FiresWhen: "an EC2-looking node has no providerID, or one that is not `aws:///ZONE/INSTANCE-ID`",
	NotOn: "Fargate nodes (`aws:///ZONE/.../fargate-...`), EKS hybrid nodes, other providers, nodes being " +
		"deleted",
	Why:    "without it nothing can tie the Node to its instance; Karpenter cannot match its NodeClaim",
	Remedy: "check kubelet `--cloud-provider=external` and the cloud controller manager; replace the node",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go (providerID `aws:///%s/%s`)",
		"aws/karpenter-provider-aws pkg/utils/utils.go (providerID parse regex)",
		"kubernetes/cloud-provider-aws pkg/providers/v1/instances.go (Fargate providerIDs)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/cloudprovider/cloudprovider.go (instanceToNodeClaim)",
			"Karpenter writes the providerID as aws:///ZONE/INSTANCE-ID."},
		{UpstreamKarpenter, "pkg/utils/utils.go (ParseInstanceID, instanceIDRegex)",
			"Karpenter reads the instance ID as the last path element of PROVIDER:///AZ/ID and fails on a providerID of another shape."},
	},
}

// providerIDInvalid finds EC2 nodes whose spec.providerID is missing or malformed. On EKS the
// providerID is the only link from a Node to its instance: Karpenter matches NodeClaims by it and
// the AWS cloud provider uses it to set addresses and delete Nodes of terminated instances.
var providerIDInvalid = Check{
	Spec: specProviderIDInvalid,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.Nodes {
			if !n.EC2 || n.ProviderErr == nil || n.Terminating() {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message:  fmt.Sprintf("node looks like an EC2 instance but its %v, so it cannot be matched to an instance", n.ProviderErr),
				Remedy: "spec.providerID is set once at registration by kubelet and the AWS cloud provider: check that " +
					"kubelet runs with --cloud-provider=external and the cloud controller manager is healthy, then " + replaceNodeProse(n, ""),
				Commands: replaceNodeCommands(n),
			})
		}
		return out
	},
}

var specInstanceNotFound = &Spec{
	ID:        "instance-not-found",
	Severity:  Critical,
	Family:    FamilyCore,
	Needs:     []string{snapshot.SourceDescribeInstances},
	Examines:  []string{SubjectNode},
	Title:     "the node's EC2 instance does not exist",
	FiresWhen: "EC2 returns no instance for the node's instance ID",
	NotOn: "nodes being deleted (see `node-termination-stuck`); a profile in another Region (EC2 is read in " +
		"the providerIDs' Region); DescribeInstances not readable",
	Why:    "the Node outlived its instance (or `--region` is wrong): pods scheduled there never run",
	Remedy: "delete the stale Node (check Karpenter's termination finalizer), or pass the right `--region`",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/instance/instance.go (state filter)",
		"kubernetes-sigs/karpenter pkg/controllers/node/termination/controller.go (awaitInstanceTermination)",
		"aws/karpenter-provider-aws pkg/utils/utils.go (instance ID from providerID)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/utils/utils.go (ParseInstanceID)",
			"The instance ID is the providerID's last path element."},
		{UpstreamKarpenter, "pkg/providers/instance/instance.go (instanceStateFilter)",
			"Karpenter's own DescribeInstances looks only at pending, running, stopping, stopped and shutting-down instances; a terminated one counts as gone."},
	},
}

// instanceNotFound finds nodes whose instance DescribeInstances does not know. On EKS this is a
// Node left behind by a terminated instance (often held by Karpenter's termination finalizer),
// or karpnet looking in the wrong Region.
var instanceNotFound = Check{
	Spec: specInstanceNotFound,
	Run: func(x *Index) []Finding {
		region := x.Snapshot.Region
		if region == "" {
			region = "(unknown)"
		}
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Instance != nil {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("DescribeInstances in Region %s returned no instance %s for providerID %s",
					region, n.Provider.InstanceID, n.Node.Spec.ProviderID),
				Remedy:   instanceNotFoundRemedy(n, x.Snapshot.Region),
				Commands: []Command{deleteNodeCommand(n)},
			})
		}
		return out
	},
}

var specInstanceNotRunning = &Spec{
	ID:        "instance-not-running",
	Severity:  Critical,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "the node's EC2 instance is not running",
	FiresWhen: "the instance exists but is not `running`",
	NotOn: "nodes being deleted: Karpenter keeps the Node while the instance is `shutting-down` (see " +
		"`node-termination-stuck`)",
	Why:    "a stopped or terminated instance still takes pods",
	Remedy: "find why it stopped (spot interruption, health); delete the Node so Karpenter replaces it",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/instance/instance.go (state filter: `shutting-down` still present)",
		"kubernetes-sigs/karpenter pkg/controllers/node/termination/controller.go (awaitInstanceTermination)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/providers/instance/instance.go (instanceStateFilter, Delete)",
			"shutting-down instances are still listed, and Karpenter does not call TerminateInstances again on one; stopping and stopped instances are listed too."},
	},
}

// instanceNotRunning finds nodes whose instance is pending, stopping, stopped, shutting down or
// terminated while the Node is not being deleted. Pods on such a Node cannot run or reach the
// network, and Karpenter or the cloud provider should already have removed the Node. A Node
// that is being deleted is left to node-termination-stuck: Karpenter keeps it until the
// instance is gone.
var instanceNotRunning = Check{
	Spec: specInstanceNotRunning,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Instance == nil || n.Instance.State == "" || n.Instance.State == "running" {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message:  fmt.Sprintf("instance %s is %s but Node %s still exists", n.Instance.ID, n.Instance.State, n.Name()),
			})
			f := &out[len(out)-1]
			f.Remedy, f.Commands = instanceNotRunningRemedy(n)
		}
		return out
	},
}

var specNodeTerminationStuck = &Spec{
	ID:       "node-termination-stuck",
	Severity: Warning,
	Family:   FamilyCore,
	Examines: []string{SubjectNode},
	Title:    "the Node is still deleting long after its instance is gone",
	FiresWhen: "the Node has been deleting (`deletionTimestamp`) for more than 15 minutes and its instance is " +
		"`terminated` or no longer returned by DescribeInstances",
	NotOn: "deletions still draining or with the instance `shutting-down`; DescribeInstances not readable",
	Why: "Karpenter removes its `karpenter.sh/termination` finalizer within minutes of the instance going; " +
		"a Node left behind keeps its name and confuses everything that lists nodes",
	Remedy: "check that Karpenter runs and reaches EC2; if it is gone, `kubectl patch node NAME --type merge " +
		"-p '{\"metadata\":{\"finalizers\":null}}'`",
	Sources: []string{
		"kubernetes-sigs/karpenter pkg/controllers/node/termination/controller.go (awaitInstanceTermination)",
		"aws/karpenter-provider-aws pkg/providers/instance/instance.go (state filter)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go (finalizer `karpenter.sh/termination`)",
		"kubernetes-sigs/karpenter pkg/apis/v1/taints.go (`karpenter.sh/disrupted`)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/providers/instance/instance.go (instanceStateFilter)",
			"A terminated instance is not returned by Karpenter's instance lookup, which is how it learns the instance is gone."},
	},
}

// nodeTerminationStuck finds Nodes that have been deleting for more than
// terminationStuckAfter although their instance is already terminated or gone. Karpenter
// removes its karpenter.sh/termination finalizer as soon as EC2 no longer reports the
// instance; a Node left behind keeps its name, still counts in its NodePool and confuses
// every tool (and person) that lists nodes. Nodes whose deletion is progressing (draining,
// instance shutting down) raise nothing.
var nodeTerminationStuck = Check{
	Spec: specNodeTerminationStuck,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.Nodes {
			if n.State != StateTerminationStuck {
				continue
			}
			del := n.Node.DeletionTimestamp.Time
			_, instance := x.instanceGone(n)
			finalizers := "its finalizers"
			if len(n.Node.Finalizers) > 0 {
				finalizers = "finalizer " + strings.Join(n.Node.Finalizers, ", ")
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("Node %s has been deleting for %s (deletionTimestamp %s) although %s: a deletion "+
					"normally ends minutes after the instance is gone, so %s holds it (karpnet calls a deletion stuck "+
					"after %s with the instance gone)", n.Name(), ago(x.Snapshot.Taken.Sub(del)), del.UTC().Format(time.RFC3339),
					instance, finalizers, ago(terminationStuckAfter)),
			})
			f := &out[len(out)-1]
			f.Remedy, f.Commands = terminationStuckRemedy(n)
		}
		return out
	},
}

// terminationStuckRemedy says which controller should have removed the finalizers, and how to
// remove them by hand once it is known to be gone or broken: a merge patch, encoded by
// encoding/json, that clears the Node's finalizers.
func terminationStuckRemedy(n *NodeInfo) (string, []Command) {
	patch := []Command{{Argv: []string{"kubectl", "patch", "node", n.Name(), "--type", "merge", "-p",
		jsonArg(map[string]any{"metadata": map[string]any{"finalizers": nil}})}, Changes: "node/" + n.Name()}}
	if slices.Contains(n.Node.Finalizers, finalizerTermination) {
		return fmt.Sprintf("Karpenter removes %s once the instance is gone: check that its controller runs and can "+
			"reach EC2 (its log mentions the node); if Karpenter is gone for good, remove the finalizer (the command)",
			finalizerTermination), patch
	}
	return "find the controller that owns the Node's finalizers and why it does not finish; once the instance is " +
		"known to be gone, remove them (the command)", patch
}

// finalizerTermination is the finalizer Karpenter keeps on its Nodes until their instance is gone.
const finalizerTermination = "karpenter.sh/termination"

var specZoneMismatch = &Spec{
	ID:        "zone-mismatch",
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "zone label, providerID zone and instance zone disagree",
	FiresWhen: "`topology.kubernetes.io/zone`, the providerID zone and the instance zone disagree",
	NotOn:     "nodes without the zone label; nodes being deleted",
	Why:       "topology spread, volume affinity and ENIConfig selection use the label",
	Remedy:    "fix the label source (NodePool template labels) and replace the node",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go (instanceToNodeClaim: providerID zone and zone label)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go (Node gets the NodeClaim's labels)",
		"aws/amazon-vpc-cni-k8s pkg/eniconfig/eniconfig.go (GetNodeSpecificENIConfigName)",
		"aws/karpenter-provider-aws#8491",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/cloudprovider/cloudprovider.go (instanceToNodeClaim)",
			"The NodeClaim's topology.kubernetes.io/zone label and its providerID zone are both the instance's zone."},
		{UpstreamVPCCNI, "pkg/eniconfig/eniconfig.go (GetNodeSpecificENIConfigName)",
			"With ENI_CONFIG_LABEL_DEF=topology.kubernetes.io/zone the zone label names the node's ENIConfig, so a wrong label picks another zone's subnet."},
	},
}

// zoneMismatch finds nodes whose zone label, providerID zone and instance zone disagree. On EKS
// topology spread, EBS volume attachment and Karpenter's zonal subnet choice all trust the label.
var zoneMismatch = Check{
	Spec: specZoneMismatch,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			label := n.Node.Labels[corev1.LabelTopologyZone]
			zones := map[string]string{"providerID": n.Provider.Zone}
			if label != "" {
				zones["label "+corev1.LabelTopologyZone] = label
			}
			if n.Instance != nil && n.Instance.Zone != "" {
				zones["instance"] = n.Instance.Zone
			}
			distinct := map[string]bool{}
			for _, z := range zones {
				distinct[z] = true
			}
			if len(distinct) < 2 {
				continue
			}
			var parts []string
			for _, k := range sortedKeys(zones) {
				parts = append(parts, fmt.Sprintf("%s %s", k, zones[k]))
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message:  "the node's zones disagree: " + strings.Join(parts, ", "),
				Remedy: "the instance's zone is the truth: fix or remove the " + corev1.LabelTopologyZone +
					" label (NodePool spec.template.metadata.labels or node group labels), then " + replaceNodeProse(n, ""),
				Commands: replaceNodeCommands(n),
			})
		}
		return out
	},
}

var specInstanceTypeMismatch = &Spec{
	ID:        "instance-type-mismatch",
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "instance-type label differs from the instance's type",
	FiresWhen: "`node.kubernetes.io/instance-type` differs from the instance type",
	NotOn:     "nodes without the label; nodes being deleted",
	Why:       "scheduling and max-pods reasoning use the label",
	Remedy:    "remove the label override from the NodePool/node group template",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go (instanceToNodeClaim)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go (label copy)",
		"kubernetes-sigs/karpenter pkg/apis/v1/labels.go (well-known `node.kubernetes.io/instance-type`)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/cloudprovider/cloudprovider.go (instanceToNodeClaim)",
			"Every instance-type requirement with a single value, node.kubernetes.io/instance-type among them, becomes a NodeClaim label."},
	},
}

// instanceTypeMismatch finds nodes whose instance-type label is not the instance's type.
// Karpenter's scheduling, max-pods and the EFA device plugin's node affinity read the label.
var instanceTypeMismatch = Check{
	Spec: specInstanceTypeMismatch,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			label := n.Node.Labels[corev1.LabelInstanceTypeStable]
			if n.Instance == nil || label == "" || n.Instance.Type == "" || label == n.Instance.Type {
				continue
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("label %s is %s but instance %s is %s",
					corev1.LabelInstanceTypeStable, label, n.Instance.ID, n.Instance.Type),
				Remedy: "remove the " + corev1.LabelInstanceTypeStable + " label from NodePool spec.template.metadata.labels " +
					"or the node group's labels (kubelet and Karpenter set it), then " + replaceNodeProse(n, ""),
				Commands: replaceNodeCommands(n),
			})
		}
		return out
	},
}

// zoneRegion returns the Region of an availability zone or local zone name, e.g. us-west-2 for
// us-west-2a or us-west-2-lax-1a, or the zone itself when it does not look like one.
func zoneRegion(zone string) string {
	parts := strings.Split(zone, "-")
	for i := 1; i < len(parts); i++ {
		p := parts[i]
		j := 0
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
		}
		if j > 0 {
			return strings.Join(parts[:i], "-") + "-" + p[:j]
		}
	}
	return zone
}

// instanceNotFoundRemedy says to delete the stale Node, or to use the Region of the
// providerID's zone when karpnet looked in another one.
func instanceNotFoundRemedy(n *NodeInfo, region string) string {
	remedy := "the instance is gone: delete the stale Node (the command) and check that Karpenter's " +
		"karpenter.sh/termination finalizer is not stuck"
	if want := zoneRegion(n.Provider.Zone); want != region {
		remedy += fmt.Sprintf("; if the instance is in %s (the providerID's zone is %s), pass --region %s", want, n.Provider.Zone, want)
	}
	return remedy
}

// instanceNotRunningRemedy fits the instance state: wait, start it, or delete the Node; and
// the commands that start the instance or delete the Node.
func instanceNotRunningRemedy(n *NodeInfo) (string, []Command) {
	const del = "delete the Node and check Karpenter's karpenter.sh/termination finalizer"
	switch n.Instance.State {
	case "pending":
		return "wait for the instance to start; if it stays pending, " + del + " (the command)", []Command{deleteNodeCommand(n)}
	case "stopping", "stopped":
		start := Command{Argv: []string{"aws", "ec2", "start-instances", "--instance-ids", n.Instance.ID},
			Changes: "instance/" + n.Instance.ID}
		return "start the instance if it was stopped on purpose (the first command), otherwise " + del + " (the second)",
			[]Command{start, deleteNodeCommand(n)}
	}
	return "the instance is gone: " + del + " (the command)", []Command{deleteNodeCommand(n)}
}

// deleteNodeCommand is the kubectl command that deletes node n's Node object.
func deleteNodeCommand(n *NodeInfo) Command {
	return Command{Argv: []string{"kubectl", "delete", "node", n.Name()}, Changes: "node/" + n.Name()}
}
