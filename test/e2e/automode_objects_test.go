package e2e

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var gvrAutoNodeClass = schema.GroupVersionResource{Group: "eks.amazonaws.com", Version: "v1", Resource: "nodeclasses"}

// autoRef is the nodeClassRef of a NodePool or NodeClaim that uses an Auto Mode NodeClass.
func autoRef(name string) map[string]any {
	return map[string]any{"group": "eks.amazonaws.com", "kind": "NodeClass", "name": name}
}

// autoNodeClassSpec describes an EKS Auto Mode NodeClass and what Auto Mode resolved for it.
type autoNodeClassSpec struct {
	name    string
	role    string // spec.role; default AmazonEKSAutoNodeRole-e2e
	subnets []subnetRef
	sgs     []string
	// podSubnetTerms and podSGTerms are spec.podSubnetSelectorTerms and
	// spec.podSecurityGroupSelectorTerms, as given.
	podSubnetTerms []any
	podSGTerms     []any
	// notReady, when set, is the sub-condition that is False, with its reason and message.
	notReady *[3]string
}

// autoNodeClass creates an Auto Mode NodeClass with its status.
func (w *world) autoNodeClass(s autoNodeClassSpec) {
	w.t.Helper()
	role := s.role
	if role == "" {
		role = "AmazonEKSAutoNodeRole-e2e"
	}
	subnetTerms, sgTerms, statusSubnets, statusSGs := classSelection(s.subnets, s.sgs)
	spec := map[string]any{"role": role, "subnetSelectorTerms": subnetTerms, "securityGroupSelectorTerms": sgTerms}
	if s.podSubnetTerms != nil {
		spec["podSubnetSelectorTerms"] = s.podSubnetTerms
	}
	if s.podSGTerms != nil {
		spec["podSecurityGroupSelectorTerms"] = s.podSGTerms
	}
	conditions := classConditions([]string{"SubnetsReady", "SecurityGroupsReady", "InstanceProfileReady", "ValidationSucceeded"}, s.notReady)
	status := map[string]any{
		"conditions": conditions, "subnets": statusSubnets, "securityGroups": statusSGs,
		"instanceProfile": "eks-us-west-2-e2e-" + s.name,
	}
	w.create(gvrAutoNodeClass, map[string]any{
		"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass",
		"metadata": map[string]any{"name": s.name}, "spec": spec,
	}, status)
}

// autoNodePool creates a karpenter.sh/v1 NodePool over zones that uses Auto Mode NodeClass class.
func (w *world) autoNodePool(name, class string, zones []string) {
	w.t.Helper()
	var zoneValues []any
	for _, z := range zones {
		zoneValues = append(zoneValues, z)
	}
	w.create(gvrNodePool, map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": autoRef(class),
			"requirements": []any{
				map[string]any{"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": []any{"c", "m", "r"}},
				map[string]any{"key": "topology.kubernetes.io/zone", "operator": "In", "values": zoneValues},
			},
		}}},
	}, map[string]any{"conditions": []any{condition("Ready", "True", "Ready", "")}})
}

// autoNode registers in as an Auto Mode node: a NodeClaim pointing at NodeClass class and a
// Node named after the instance ID, with Auto Mode's labels and pods as its capacity.
func (w *world) autoNode(pool, class string, in ec2types.Instance, pods int64) string {
	w.t.Helper()
	name := aws.ToString(in.InstanceId)
	claim := claimName(pool, name)
	s := nodeSpec{
		name: name, providerID: providerID(in), zone: aws.ToString(in.Placement.AvailabilityZone),
		typ: string(in.InstanceType), internalIP: aws.ToString(in.PrivateIpAddress), pods: pods,
		nodePool: pool, nodeClaim: claim,
		labels: map[string]string{
			"eks.amazonaws.com/compute-type": "auto", "eks.amazonaws.com/nodeclass": class,
			"eks.amazonaws.com/instance-category": "m",
		},
	}
	conditions := []any{condition("Launched", "True", "Launched", ""), condition("Registered", "True", "Registered", ""),
		condition("Initialized", "True", "Initialized", ""), condition("Ready", "True", "Ready", "")}
	w.create(gvrNodeClaim, map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
		"metadata": map[string]any{"name": claim, "labels": map[string]any{"karpenter.sh/nodepool": pool}},
		"spec": map[string]any{
			"nodeClassRef": autoRef(class),
			"requirements": []any{map[string]any{"key": "node.kubernetes.io/instance-type", "operator": "In",
				"values": []any{string(in.InstanceType)}}},
		},
	}, map[string]any{"providerID": s.providerID, "nodeName": name, "conditions": conditions})
	w.node(s)
	return name
}

// podInterface attaches to in, at device 1, an interface in subnet with the pod security groups,
// holding prefixes /28 prefixes and ips secondary addresses, as Auto Mode gives pods.
func (w *world) podInterface(in ec2types.Instance, subnet string, sgs []string, prefixes, ips int32) {
	w.t.Helper()
	ctx := w.t.Context()
	eni, err := w.ec2.CreateNetworkInterface(ctx, &ec2.CreateNetworkInterfaceInput{
		SubnetId: aws.String(subnet), Groups: sgs,
		Ipv4PrefixCount: aws.Int32(prefixes), SecondaryPrivateIpAddressCount: aws.Int32(ips),
	})
	if err != nil {
		w.t.Fatalf("creating a pod interface in %s: %v", subnet, err)
	}
	if _, err := w.ec2.AttachNetworkInterface(ctx, &ec2.AttachNetworkInterfaceInput{
		InstanceId: in.InstanceId, NetworkInterfaceId: eni.NetworkInterface.NetworkInterfaceId, DeviceIndex: aws.Int32(1),
	}); err != nil {
		w.t.Fatalf("attaching the pod interface: %v", err)
	}
}

// tagSubnet tags a subnet, as a pod subnet selector term selects it.
func (w *world) tagSubnet(id string, tags map[string]string) {
	w.t.Helper()
	var list []ec2types.Tag
	for k, v := range tags {
		list = append(list, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	if _, err := w.ec2.CreateTags(w.t.Context(), &ec2.CreateTagsInput{Resources: []string{id}, Tags: list}); err != nil {
		w.t.Fatalf("tagging %s: %v", id, err)
	}
}
