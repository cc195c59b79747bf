package e2e

import (
	"fmt"
	"hash/crc32"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// nodeClassSpec describes an EC2NodeClass and what Karpenter resolved for it.
type nodeClassSpec struct {
	name    string
	version string // "v1" (default) or "v1beta1"
	subnets []subnetRef
	sgs     []string
	maxPods int64 // spec.kubelet.maxPods at v1; 0 leaves it out
	// notReady, when set, is the sub-condition that is False, with its reason and message.
	notReady *[3]string
	// spec holds further spec fields (networkInterfaces, placementGroupSelector,
	// associatePublicIPAddress, ...), set as given.
	spec map[string]any
}

type subnetRef struct{ id, zone string }

// nodeClass creates an EC2NodeClass with its status.
func (w *world) nodeClass(s nodeClassSpec) {
	w.t.Helper()
	version := s.version
	if version == "" {
		version = "v1"
	}
	subnetTerms, sgTerms, statusSubnets, statusSGs := classSelection(s.subnets, s.sgs)
	spec := map[string]any{
		"role":                       "KarpenterNodeRole-e2e",
		"subnetSelectorTerms":        subnetTerms,
		"securityGroupSelectorTerms": sgTerms,
	}
	for k, v := range s.spec {
		spec[k] = v
	}
	if version == "v1" {
		spec["amiSelectorTerms"] = []any{map[string]any{"alias": "al2023@latest"}}
		if s.maxPods > 0 {
			spec["kubelet"] = map[string]any{"maxPods": s.maxPods}
		}
	} else {
		spec["amiFamily"] = "AL2023"
	}
	conditions := classConditions(
		[]string{"AMIsReady", "SubnetsReady", "SecurityGroupsReady", "InstanceProfileReady", "ValidationSucceeded"}, s.notReady)
	status := map[string]any{"conditions": conditions}
	if s.notReady == nil || s.notReady[0] != "SubnetsReady" {
		status["subnets"] = statusSubnets
	}
	status["securityGroups"] = statusSGs
	gvr := schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: version, Resource: "ec2nodeclasses"}
	w.create(gvr, map[string]any{
		"apiVersion": "karpenter.k8s.aws/" + version, "kind": "EC2NodeClass",
		"metadata": map[string]any{"name": s.name}, "spec": spec,
	}, status)
}

// classSelection returns selector terms by id for subnets and security groups, and the
// status.subnets and status.securityGroups a NodeClass resolves them to.
func classSelection(subnets []subnetRef, sgs []string) (subnetTerms, sgTerms, statusSubnets, statusSGs []any) {
	for _, sn := range subnets {
		subnetTerms = append(subnetTerms, map[string]any{"id": sn.id})
		statusSubnets = append(statusSubnets, map[string]any{"id": sn.id, "zone": sn.zone})
	}
	for _, sg := range sgs {
		sgTerms = append(sgTerms, map[string]any{"id": sg})
		statusSGs = append(statusSGs, map[string]any{"id": sg})
	}
	return subnetTerms, sgTerms, statusSubnets, statusSGs
}

// classConditions returns a NodeClass's conditions: each of types True, except the one
// notReady names (type, reason, message) when set, which is False and makes Ready False.
func classConditions(types []string, notReady *[3]string) []any {
	var conditions []any
	ready := condition("Ready", "True", "Ready", "")
	for _, t := range types {
		c := condition(t, "True", t, "")
		if notReady != nil && notReady[0] == t {
			c = condition(t, "False", notReady[1], notReady[2])
			ready = condition("Ready", "False", "UnhealthyDependents", notReady[0]+"=False")
		}
		conditions = append(conditions, c)
	}
	return append(conditions, ready)
}

// nodePool creates a NodePool over the given zones pointing at nodeClass. At v1beta1, maxPods
// goes in its kubelet settings.
func (w *world) nodePool(name, version, nodeClass string, zones []string, maxPods int64) {
	w.t.Helper()
	if version == "" {
		version = "v1"
	}
	var zoneValues []any
	for _, z := range zones {
		zoneValues = append(zoneValues, z)
	}
	ref := map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": nodeClass}
	if version == "v1beta1" {
		ref = map[string]any{"name": nodeClass}
	}
	tmplSpec := map[string]any{
		"nodeClassRef": ref,
		"requirements": []any{
			map[string]any{"key": "topology.kubernetes.io/zone", "operator": "In", "values": zoneValues},
		},
	}
	if version == "v1beta1" && maxPods > 0 {
		tmplSpec["kubelet"] = map[string]any{"maxPods": maxPods}
	}
	gvr := schema.GroupVersionResource{Group: "karpenter.sh", Version: version, Resource: "nodepools"}
	w.create(gvr, map[string]any{
		"apiVersion": "karpenter.sh/" + version, "kind": "NodePool",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"template": map[string]any{"spec": tmplSpec}},
	}, map[string]any{"conditions": []any{condition("Ready", "True", "Ready", "")}})
}

// karpenterNode registers in as a Karpenter node: a NodeClaim and its Node. edit may change the
// Node before it is created (a wrong label, a wrong address).
// e2eClusterName is the EKS cluster name the Karpenter instances of the tests are tagged for.
const e2eClusterName = "e2e"

func (w *world) karpenterNode(name, pool, class, version string, in ec2types.Instance, pods int64, edit func(*nodeSpec)) {
	w.t.Helper()
	if version == "" {
		version = "v1"
	}
	claim := claimName(pool, name)
	ref := map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": class}
	if version == "v1beta1" {
		ref = map[string]any{"name": class}
	}
	s := nodeSpec{
		name: name, providerID: providerID(in), zone: aws.ToString(in.Placement.AvailabilityZone),
		typ: string(in.InstanceType), internalIP: aws.ToString(in.PrivateIpAddress), pods: pods,
		nodePool: pool, nodeClass: class, nodeClaim: claim,
	}
	if edit != nil {
		edit(&s)
	}
	// The tags Karpenter puts on every instance it launches, by which karpnet learns the
	// cluster's name and looks for the instances launched for it.
	if id := aws.ToString(in.InstanceId); id != "" {
		w.tag(id, "kubernetes.io/cluster/"+e2eClusterName, "owned")
		w.tag(id, "karpenter.sh/nodepool", pool)
	}
	claimSpec := map[string]any{
		"nodeClassRef": ref,
		"requirements": []any{map[string]any{"key": "node.kubernetes.io/instance-type", "operator": "In",
			"values": []any{string(in.InstanceType)}}},
	}
	if len(s.claimRequests) > 0 {
		claimSpec["resources"] = map[string]any{"requests": s.claimRequests}
	}
	conditions := []any{condition("Launched", "True", "Launched", ""), condition("Registered", "True", "Registered", ""),
		condition("Initialized", "True", "Initialized", ""), condition("Ready", "True", "Ready", "")}
	if s.booting {
		conditions = []any{condition("Launched", "True", "Launched", ""), condition("Registered", "True", "Registered", ""),
			condition("Initialized", "Unknown", "NotInitialized", "Node not ready"), condition("Ready", "Unknown", "NotInitialized", "")}
	}
	for _, c := range s.claimConditions {
		conditions = append(conditions, c)
	}
	gvr := schema.GroupVersionResource{Group: "karpenter.sh", Version: version, Resource: "nodeclaims"}
	w.create(gvr, map[string]any{
		"apiVersion": "karpenter.sh/" + version, "kind": "NodeClaim",
		"metadata": map[string]any{"name": claim, "labels": map[string]any{"karpenter.sh/nodepool": pool}},
		"spec":     claimSpec,
	}, claimStatus(s, name, conditions))
	w.node(s)
}

// claimName is the name karpenterNode gives the NodeClaim of node name in pool.
func claimName(pool, node string) string {
	return fmt.Sprintf("%s-%05x", pool, crc32.ChecksumIEEE([]byte(node))&0xfffff)
}

// claimStatus is a NodeClaim's status as Karpenter writes it once the node registered.
func claimStatus(s nodeSpec, name string, conditions []any) map[string]any {
	status := map[string]any{"providerID": s.providerID, "nodeName": name, "conditions": conditions}
	if len(s.claimCapacity) > 0 {
		status["capacity"] = s.claimCapacity
	}
	return status
}
