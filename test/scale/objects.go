package scale

import (
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// object is a custom object and the status written after it is created.
type object struct {
	spec   map[string]any // the whole object without status
	status map[string]any
}

// since is when the cluster's conditions last changed.
func since() time.Time { return time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC) }

func condition(typ string) map[string]any {
	return map[string]any{
		"type": typ, "status": "True", "reason": typ, "message": "",
		"lastTransitionTime": since().Format(time.RFC3339), "observedGeneration": int64(1),
	}
}

func conditions(types ...string) []any {
	var out []any
	for _, t := range types {
		out = append(out, condition(t))
	}
	return out
}

// nodeClasses returns the default and efa EC2NodeClasses with the subnets and groups Karpenter
// resolved for them.
func nodeClasses() []object {
	var subnets []any
	for s := range subnetCount {
		if subnetTags(s)["karpenter.sh/discovery"] == clusterName {
			subnets = append(subnets, map[string]any{"id": subnetID(s), "zone": subnetZone(s), "zoneID": zoneID(subnetZone(s))})
		}
	}
	var groups []any
	for _, g := range nodeGroups() {
		groups = append(groups, map[string]any{"id": g.ID, "name": g.Name})
	}
	discovery := []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": clusterName}}}
	class := func(name string, extra map[string]any, conds ...string) object {
		spec := map[string]any{
			"role":                       "KarpenterNodeRole-scale",
			"amiSelectorTerms":           []any{map[string]any{"alias": "al2023@latest"}},
			"subnetSelectorTerms":        discovery,
			"securityGroupSelectorTerms": discovery,
		}
		for k, v := range extra {
			spec[k] = v
		}
		return object{
			spec: map[string]any{
				"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
				"metadata": map[string]any{"name": name}, "spec": spec,
			},
			// The instance profile Karpenter makes for the role, named CLUSTER_HASH.
			status: map[string]any{"subnets": subnets, "securityGroups": groups, "conditions": conditions(conds...),
				"instanceProfile": fmt.Sprintf("%s_%d", clusterName, 13350930935433484217-uint64(len(name)))},
		}
	}
	ready := []string{"AMIsReady", "InstanceProfileReady", "SecurityGroupsReady", "SubnetsReady", "ValidationSucceeded"}
	interfaces := []any{map[string]any{"networkCardIndex": int64(0), "deviceIndex": int64(0), "interfaceType": "interface"}}
	for c := range efaCards {
		interfaces = append(interfaces, map[string]any{"networkCardIndex": int64(c + 1), "deviceIndex": int64(0), "interfaceType": "efa-only"})
	}
	return []object{
		class("default", nil, append(ready, "Ready")...),
		class("efa", map[string]any{
			"associatePublicIPAddress": false,
			"networkInterfaces":        interfaces,
			"placementGroupSelector":   map[string]any{"name": placementGroupName},
		}, append(ready, "PlacementGroupReady", "Ready")...),
	}
}

// nodePools returns the general and training NodePools.
func nodePools() []object {
	req := func(key string, values ...string) map[string]any {
		vs := make([]any, len(values))
		for i, v := range values {
			vs[i] = v
		}
		return map[string]any{"key": key, "operator": "In", "values": vs}
	}
	var general []string
	for _, t := range generalTypes() {
		general = append(general, t.name)
	}
	pool := func(name, class string, reqs ...any) object {
		return object{
			spec: map[string]any{
				"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": name},
				"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
					"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": class},
					"requirements": reqs,
				}}},
			},
			status: map[string]any{"conditions": conditions("NodeClassReady", "NodeRegistrationHealthy", "ValidationSucceeded", "Ready")},
		}
	}
	return []object{
		pool("general", "default", req("topology.kubernetes.io/zone", append(zones(), exhaustedZone)...),
			req("node.kubernetes.io/instance-type", general...), req("karpenter.sh/capacity-type", "on-demand", "spot")),
		pool("training", "efa", req("topology.kubernetes.io/zone", zones()[0]),
			req("node.kubernetes.io/instance-type", efaType().name), req("karpenter.sh/capacity-type", "on-demand")),
	}
}

// labels returns the labels Karpenter and the kubelet put on the node.
func (m *machine) labels() map[string]string {
	return map[string]string{
		corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64", corev1.LabelHostname: m.name,
		corev1.LabelTopologyZone: m.zone, corev1.LabelTopologyRegion: Region, "topology.k8s.aws/zone-id": zoneID(m.zone),
		corev1.LabelInstanceTypeStable: m.typ.name,
		"karpenter.sh/nodepool":        m.pool, "karpenter.sh/capacity-type": "on-demand",
		"karpenter.sh/registered": "true", "karpenter.sh/initialized": "true",
		"karpenter.k8s.aws/ec2nodeclass": m.class,
	}
}

// claim returns the node's NodeClaim.
func (m *machine) claimObject() object {
	labels := map[string]any{}
	for k, v := range m.labels() {
		if k != corev1.LabelHostname {
			labels[k] = v
		}
	}
	spec := map[string]any{
		"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": m.class},
		"requirements": []any{map[string]any{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": []any{m.typ.name}}},
	}
	if m.efa > 0 {
		spec["resources"] = map[string]any{"requests": map[string]any{"vpc.amazonaws.com/efa": strconv.FormatInt(m.efa, 10)}}
	}
	return object{
		spec: map[string]any{
			"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
			"metadata": map[string]any{"name": m.claim, "labels": labels},
			"spec":     spec,
		},
		status: map[string]any{
			"providerID": m.providerID(), "nodeName": m.name, "imageID": "ami-0a5ca1e0000000001",
			"conditions": conditions("Launched", "Registered", "Initialized", "Ready"),
		},
	}
}

// providerID returns aws:///ZONE/INSTANCE-ID.
func (m *machine) providerID() string { return "aws:///" + m.zone + "/" + m.id }

// node returns the Node, status included, as the kubelet registers it.
func (m *machine) node() *corev1.Node {
	res := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(int64(m.typ.vcpus), resource.DecimalSI),
		corev1.ResourceMemory:           resource.MustParse(fmt.Sprintf("%dKi", m.typ.memoryMiB*1024*963/1000)),
		corev1.ResourcePods:             *resource.NewQuantity(m.maxPods, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("83873772Ki"),
	}
	if m.efa > 0 {
		res["vpc.amazonaws.com/efa"] = *resource.NewQuantity(m.efa, resource.DecimalSI)
	}
	heartbeat := metav1.NewTime(since())
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: m.name, Labels: m.labels(),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "karpenter.sh/v1", Kind: "NodeClaim", Name: m.claim,
				UID: "00000000-0000-0000-0000-000000000001", BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: corev1.NodeSpec{ProviderID: m.providerID()},
		Status: corev1.NodeStatus{
			Capacity: res, Allocatable: res,
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: m.internalIP()},
				{Type: corev1.NodeInternalDNS, Address: m.name},
				{Type: corev1.NodeHostName, Address: m.name},
			},
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "kubelet is posting ready status", LastHeartbeatTime: heartbeat, LastTransitionTime: heartbeat,
			}},
			NodeInfo: corev1.NodeSystemInfo{
				KubeletVersion: "v1.34.2-eks-b69f5e5", ContainerRuntimeVersion: "containerd://2.1.4",
				KernelVersion: "6.12.46-66.121.amzn2023.x86_64", OSImage: "Amazon Linux 2023.9.20251020",
				OperatingSystem: "linux", Architecture: "amd64",
			},
			Images: nodeImages(),
		},
	}
	return n
}

// nodeImages is what kubelet reports of the images on a node; it makes Nodes as heavy as real
// ones, and karpnet drops it.
func nodeImages() []corev1.ContainerImage {
	var out []corev1.ContainerImage
	for _, name := range []string{"amazon-k8s-cni", "amazon-k8s-cni-init", "kube-proxy", "aws-network-policy-agent",
		"eks-pod-identity-agent", "coredns", "pause", "aws-ebs-csi-driver", "livenessprobe", "node-driver-registrar"} {
		repo := "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/" + name
		out = append(out, corev1.ContainerImage{
			Names:     []string{repo + "@sha256:" + fmt.Sprintf("%064x", mix(len(name), 9)), repo + ":v1.2.3-eksbuild.1"},
			SizeBytes: 20_000_000 + int64(len(name))*1_000_000,
		})
	}
	return out
}

// awsNode is the kube-system/aws-node DaemonSet of the VPC CNI in its default secondary-IP mode.
func awsNode() *appsv1.DaemonSet {
	labels := map[string]string{"k8s-app": "aws-node"}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-node", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "aws-node", Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.20.4-eksbuild.1",
					Env: []corev1.EnvVar{{Name: "WARM_ENI_TARGET", Value: "1"}, {Name: "AWS_VPC_K8S_CNI_EXTERNALSNAT", Value: "false"}},
				}}},
			},
		},
	}
}

// sandboxFailure is a FailedCreatePodSandBox event of a pod on node, as the VPC CNI causes
// when it has no address left for the pod.
func sandboxFailure(node, pod string) *corev1.Event {
	at := metav1.NewTime(time.Now())
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: pod + ".sandbox", Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: pod},
		Reason:         "FailedCreatePodSandBox",
		Message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "5ca1e": ` +
			`plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container`,
		Source: corev1.EventSource{Component: "kubelet", Host: node},
		Type:   corev1.EventTypeWarning, Count: 12, FirstTimestamp: at, LastTimestamp: at,
	}
}
