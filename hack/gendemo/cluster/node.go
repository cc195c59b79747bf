package cluster

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apitypes "k8s.io/apimachinery/pkg/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

const (
	kubeletVersion = "v1.34.2-eks-b3126f4"
	resourceEFA    = "vpc.amazonaws.com/efa"
	resourceGPU    = "nvidia.com/gpu"
)

// node returns the Node kubelet registered for the machine.
func (m *machine) node(name string, created time.Time) corev1.Node {
	p := m.plan
	labels := map[string]string{
		corev1.LabelArchStable:         "amd64",
		corev1.LabelOSStable:           "linux",
		corev1.LabelHostname:           name,
		corev1.LabelInstanceTypeStable: m.typ.name,
		corev1.LabelTopologyRegion:     region,
		corev1.LabelTopologyZone:       m.zone,
		"topology.k8s.aws/zone-id":     zoneID(m.zone),
	}
	if p.kind == managedNode {
		labels["eks.amazonaws.com/nodegroup"] = p.pool
		labels["eks.amazonaws.com/capacityType"] = "ON_DEMAND"
		labels["eks.amazonaws.com/nodegroup-image"] = hexID("ami", "al2023-1.34")
	}
	node := corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: nodeUID(name), Labels: labels,
			CreationTimestamp: metav1.NewTime(created),
			Annotations:       map[string]string{"alpha.kubernetes.io/provided-node-ip": m.ip},
		},
		Spec: corev1.NodeSpec{ProviderID: "aws:///" + m.zone + "/" + m.id},
	}
	if m.efaCount > 0 {
		node.Spec.Taints = []corev1.Taint{{Key: resourceGPU, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	}
	node.Status = corev1.NodeStatus{
		Capacity:    m.capacity(),
		Allocatable: m.allocatable(),
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: m.ip},
			{Type: corev1.NodeInternalDNS, Address: name},
			{Type: corev1.NodeHostName, Address: name},
		},
		Conditions: []corev1.NodeCondition{readyCondition(created, p.fault == instanceTerminated || p.fault == instanceMissing)},
		NodeInfo: corev1.NodeSystemInfo{
			KubeletVersion: kubeletVersion, OSImage: "Amazon Linux 2023.9.20251117",
			KernelVersion: "6.12.55-74.119.amzn2023.x86_64", ContainerRuntimeVersion: "containerd://2.1.4",
			OperatingSystem: "linux", Architecture: "amd64",
		},
	}
	return node
}

func readyCondition(since time.Time, lost bool) corev1.NodeCondition {
	if lost {
		at := metav1.NewTime(Taken().Add(-38 * time.Minute))
		return corev1.NodeCondition{
			Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown",
			Message: "Kubelet stopped posting node status.", LastHeartbeatTime: at, LastTransitionTime: at,
		}
	}
	return corev1.NodeCondition{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		Message:            "kubelet is posting ready status",
		LastHeartbeatTime:  metav1.NewTime(Taken().Add(-time.Duration(10+number("beat", since.String(), 40)) * time.Second)),
		LastTransitionTime: metav1.NewTime(since.Add(25 * time.Second)),
	}
}

// capacity returns the node's status.capacity.
func (m *machine) capacity() corev1.ResourceList {
	r := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(int64(m.typ.vcpus), resource.DecimalSI),
		corev1.ResourceMemory:           resource.MustParse(fmt.Sprintf("%dKi", m.memoryKi())),
		corev1.ResourcePods:             *resource.NewQuantity(m.maxPods, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("83873772Ki"),
	}
	m.extended(r)
	return r
}

// allocatable returns the node's status.allocatable: capacity less Karpenter's kube-reserved
// CPU and memory and the default eviction threshold.
func (m *machine) allocatable() corev1.ResourceList {
	cpu := int64(m.typ.vcpus) * 1000
	for core := range int64(m.typ.vcpus) {
		switch {
		case core == 0:
			cpu -= 60
		case core == 1:
			cpu -= 10
		case core < 4:
			cpu -= 5
		default:
			cpu -= 2 // 2.5m per core, rounded down per core
		}
	}
	eniPods := int64(m.typ.cardENIs)*int64(m.typ.ipv4-1) + 2
	if m.plan.kind == autoNode {
		eniPods = m.maxPods
	}
	memKi := m.memoryKi() - (11*eniPods+255+100)*1024
	r := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(cpu, resource.DecimalSI),
		corev1.ResourceMemory:           resource.MustParse(fmt.Sprintf("%dKi", memKi)),
		corev1.ResourcePods:             *resource.NewQuantity(m.maxPods, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("76224326324"),
	}
	m.extended(r)
	return r
}

// memoryKi is the memory the kernel reports: the type's memory less what firmware and the
// kernel keep.
func (m *machine) memoryKi() int64 { return m.typ.memoryMiB*1024*963/1000 - 3 }

func (m *machine) extended(r corev1.ResourceList) {
	if m.typ.gpus > 0 {
		r[resourceGPU] = *resource.NewQuantity(m.typ.gpus, resource.DecimalSI)
	}
	if m.efaCount > 0 {
		r[resourceEFA] = *resource.NewQuantity(m.efaCount, resource.DecimalSI)
	}
}

// hybrid returns an EKS Hybrid Node: not an EC2 instance, so karpnet skips it.
func hybrid(p nodePlan, created time.Time) corev1.Node {
	name := hexID("mi", p.key)
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: nodeUID(name), CreationTimestamp: metav1.NewTime(created),
			Labels: map[string]string{
				corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux", corev1.LabelHostname: name,
				corev1.LabelTopologyRegion: region, "eks.amazonaws.com/compute-type": "hybrid",
				"eks.amazonaws.com/hybrid-credential-provider": "ssm",
			},
		},
		Spec: corev1.NodeSpec{ProviderID: "eks-hybrid:///" + region + "/" + clusterName + "/" + name},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:  *resource.NewQuantity(16, resource.DecimalSI),
				corev1.ResourcePods: *resource.NewQuantity(110, resource.DecimalSI),
			},
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU:  resource.MustParse("15890m"),
				corev1.ResourcePods: *resource.NewQuantity(110, resource.DecimalSI),
			},
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "192.168.50.21"}, {Type: corev1.NodeHostName, Address: name}},
			Conditions: []corev1.NodeCondition{readyCondition(created, false)},
			NodeInfo: corev1.NodeSystemInfo{
				KubeletVersion: kubeletVersion, OSImage: "Ubuntu 24.04.3 LTS", ContainerRuntimeVersion: "containerd://2.1.4",
				KernelVersion: "6.8.0-87-generic", OperatingSystem: "linux", Architecture: "amd64",
			},
		},
	}
}

// fargate returns the EKS Fargate node the Karpenter controller runs on: not an EC2 instance
// of the account, so karpnet skips it.
func fargate(net *network, p nodePlan, created time.Time) corev1.Node {
	ip := net.subnet(p.subnet).pool.ip(p.key)
	name := "fargate-ip-" + strings.ReplaceAll(ip, ".", "-") + "." + region + ".compute.internal"
	zone := region + p.zone
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: nodeUID(name), CreationTimestamp: metav1.NewTime(created),
			Labels: map[string]string{
				corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux", corev1.LabelHostname: name,
				corev1.LabelTopologyRegion: region, corev1.LabelTopologyZone: zone,
				"eks.amazonaws.com/compute-type": "fargate", "eks.amazonaws.com/fargate-profile": "karpenter",
			},
		},
		Spec: corev1.NodeSpec{ProviderID: "aws:///" + zone + "/" + "a" + hexID("", p.key)[2:14] + "/" + name},
		Status: corev1.NodeStatus{
			Capacity:    corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(1, resource.DecimalSI)},
			Allocatable: corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(1, resource.DecimalSI)},
			Addresses:   []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeHostName, Address: name}},
			Conditions:  []corev1.NodeCondition{readyCondition(created, false)},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: kubeletVersion, OSImage: "Amazon Linux 2",
				OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
}

// failures returns FailedCreatePodSandBox events of pods the VPC CNI could not give an address.
func failures(node string) []snapshot.SandboxFailure {
	var out []snapshot.SandboxFailure
	for i, count := range []int32{41, 17, 9, 3} {
		pod := fmt.Sprintf("report-render-6f8d9c7b54-%s", suffix(fmt.Sprintf("%s/pod/%d", node, i)))
		out = append(out, snapshot.SandboxFailure{
			Node: node, Namespace: "batch", Pod: pod, Count: count,
			LastSeen:  Taken().Add(-time.Duration(20+40*i) * time.Second),
			FirstSeen: Taken().Add(-time.Duration(25-4*i) * time.Minute),
			Message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "` +
				hex64(pod) + `": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container`,
		})
	}
	return out
}

func nodeUID(name string) apitypes.UID { return apitypes.UID(uid(strings.ToLower(name))) }
