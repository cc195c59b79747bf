package cluster

import (
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apitypes "k8s.io/apimachinery/pkg/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The demo's EKS Auto Mode NodePool and NodeClass.
const (
	autoPool  = "web"
	autoClass = "web"
	// autoPodSubnetTag is the tag the NodeClass's podSubnetSelectorTerms select, as in the EKS
	// user guide's example.
	autoPodSubnetTag = "kubernetes.io/role/pod"
	// autoMaxPods is the pod limit EKS applies to every Auto Mode node.
	autoMaxPods   = 110
	v1AutoMode    = "eks.amazonaws.com/v1"
	autoOSImage   = "Bottlerocket (EKS Auto, Standard) 2025.11.21 (aws-k8s-1.34-standard)"
	autoKubelet   = "v1.34.2-eks-113cf36"
	autoKernel    = "6.12.55"
	autoContainer = "containerd://2.1.5+bottlerocket"
)

// autoTypeFigures returns the eks.amazonaws.com/instance-* figures of an Auto Mode node's type
// that the instanceType rows do not carry: sustained clock (MHz), EBS and network bandwidth (Mbps).
func autoTypeFigures(name string) (clock, ebs, network string) {
	switch name {
	case "c6a.large":
		return "3600", "10000", "781"
	case "c6a.xlarge":
		return "3600", "10000", "1562"
	}
	panic("instance type " + name + " has no Auto Mode label figures")
}

// addAuto adds an Auto Mode node: EKS names it after its instance and tags the instance with
// its NodePool and NodeClass.
func (b *builder) addAuto(p nodePlan) {
	m := newMachine(b.net, p)
	launched := Taken().Add(-launchAge(p)).Truncate(time.Second)
	claim := p.pool + "-" + suffix(p.key)
	b.s.Instances = append(b.s.Instances, m.instance(b.net, launched, map[string]string{
		"Name":                                 m.id,
		"kubernetes.io/cluster/" + clusterName: "owned",
		"eks:eks-cluster-name":                 clusterName,
		"eks:kubernetes-node-pool-name":        p.pool,
		"eks:kubernetes-node-class-name":       p.class,
		"karpenter.sh/nodepool":                p.pool,
		"karpenter.sh/nodeclaim":               claim,
	}))
	node := m.node(m.id, launched.Add(41*time.Second))
	// The node is named after the instance; its DNS addresses keep the EC2 resource name.
	dns := nodeName(m.ip)
	for i, a := range node.Status.Addresses {
		if a.Type != corev1.NodeInternalIP {
			node.Status.Addresses[i].Address = dns
		}
	}
	node.Status.NodeInfo.KubeletVersion, node.Status.NodeInfo.OSImage = autoKubelet, autoOSImage
	node.Status.NodeInfo.KernelVersion, node.Status.NodeInfo.ContainerRuntimeVersion = autoKernel, autoContainer
	c := m.autoClaim(claim, m.id, launched)
	maps.Copy(node.Labels, c.Labels)
	maps.Copy(node.Labels, map[string]string{
		"karpenter.sh/registered":                 "true",
		"karpenter.sh/initialized":                "true",
		"karpenter.sh/do-not-sync-taints":         "true",
		"topology.ebs.csi.eks.amazonaws.com/zone": m.zone,
		"k8s.io/cloud-provider-aws":               hex64("cloud-provider/" + clusterName)[:32],
	})
	node.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: v1Karpenter, Kind: "NodeClaim", Name: claim, UID: apitypes.UID(uid(claim)),
		BlockOwnerDeletion: ptr(true),
	}}
	b.s.NodeClaims = append(b.s.NodeClaims, c)
	b.s.Nodes = append(b.s.Nodes, node)
}

// autoClaim returns the NodeClaim of an Auto Mode machine: eks.amazonaws.com labels where a
// Karpenter NodeClaim has karpenter.k8s.aws ones, and a nodeClassRef to the NodeClass.
func (m *machine) autoClaim(name, node string, launched time.Time) snapshot.NodeClaim {
	p := m.plan
	clock, ebs, network := autoTypeFigures(m.typ.name)
	labels := map[string]string{
		snapshot.LabelNodePool:                                       p.pool,
		snapshot.LabelComputeType:                                    snapshot.ComputeTypeAuto,
		snapshot.LabelAutoNodeClass:                                  p.class,
		"app.kubernetes.io/managed-by":                               "eks",
		"karpenter.sh/capacity-type":                                 "on-demand",
		corev1.LabelInstanceTypeStable:                               m.typ.name,
		corev1.LabelTopologyZone:                                     m.zone,
		corev1.LabelTopologyRegion:                                   region,
		"topology.k8s.aws/zone-id":                                   zoneID(m.zone),
		corev1.LabelArchStable:                                       "amd64",
		corev1.LabelOSStable:                                         "linux",
		"workload-class":                                             p.pool,
		"eks.amazonaws.com/instance-category":                        m.typ.name[:1],
		"eks.amazonaws.com/instance-family":                          m.typ.family(),
		"eks.amazonaws.com/instance-generation":                      m.typ.generation(),
		"eks.amazonaws.com/instance-size":                            m.typ.size(),
		"eks.amazonaws.com/instance-cpu":                             fmt.Sprint(m.typ.vcpus),
		"eks.amazonaws.com/instance-cpu-manufacturer":                "amd",
		"eks.amazonaws.com/instance-cpu-sustained-clock-speed-mhz":   clock,
		"eks.amazonaws.com/instance-memory":                          fmt.Sprint(m.typ.memoryMiB),
		"eks.amazonaws.com/instance-ebs-bandwidth":                   ebs,
		"eks.amazonaws.com/instance-network-bandwidth":               network,
		"eks.amazonaws.com/instance-hypervisor":                      m.typ.hypervisor,
		"eks.amazonaws.com/instance-encryption-in-transit-supported": "true",
		"eks.amazonaws.com/instance-capability-flex":                 "false",
	}
	return snapshot.NodeClaim{
		Name: name, APIVersion: v1Karpenter, Labels: labels, NodeClassRef: autoRef(p.class),
		ProviderID: "aws:///" + m.zone + "/" + m.id, NodeName: node,
		Conditions: conditions(launched.Add(44*time.Second), "Launched", "Registered", "Initialized", "Ready"),
	}
}

// autoRef points a NodePool or NodeClaim at an Auto Mode NodeClass.
func autoRef(name string) snapshot.NodeClassRef {
	return snapshot.NodeClassRef{Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass, Name: name}
}
