package snapshot

import (
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Well-known Karpenter labels and API groups.
const (
	LabelNodePool     = "karpenter.sh/nodepool"
	LabelEC2NodeClass = "karpenter.k8s.aws/ec2nodeclass"
	KarpenterGroup    = "karpenter.sh"
	AWSGroup          = "karpenter.k8s.aws"
	KindEC2NodeClass  = "EC2NodeClass"
)

// EKS Auto Mode labels, API group and kind. Auto Mode nodes carry both karpenter.sh/nodepool
// and LabelComputeType=ComputeTypeAuto; their NodeClass is named by LabelAutoNodeClass.
const (
	LabelComputeType   = "eks.amazonaws.com/compute-type"
	ComputeTypeAuto    = "auto"
	LabelAutoNodeClass = "eks.amazonaws.com/nodeclass"
	AutoModeGroup      = "eks.amazonaws.com"
	KindNodeClass      = "NodeClass"
)

// NodeClassRef points a NodePool or NodeClaim at its NodeClass.
type NodeClassRef struct {
	Group string `json:"group,omitempty"`
	Kind  string `json:"kind,omitempty"`
	Name  string `json:"name"`
}

// Condition is a Karpenter status condition, kept verbatim.
type Condition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastTransitionTime time.Time `json:"lastTransitionTime,omitzero"`
}

// Requirement is a NodePool or NodeClaim scheduling requirement.
type Requirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// Kubelet is the part of Karpenter's kubelet configuration that decides pod density.
// It lives in EC2NodeClass.spec.kubelet at v1 and in NodePool.spec.template.spec.kubelet at v1beta1.
type Kubelet struct {
	// MaxPods is kubelet.maxPods when it is a number.
	MaxPods *int32 `json:"maxPods,omitempty"`
	// MaxPodsExpression is kubelet.maxPods when it is a CEL expression (Karpenter's NodeClassCEL gate).
	MaxPodsExpression string `json:"maxPodsExpression,omitempty"`
	PodsPerCore       *int32 `json:"podsPerCore,omitempty"`
}

// NodePool is the part of a karpenter.sh NodePool that networking checks read.
type NodePool struct {
	Name         string        `json:"name"`
	APIVersion   string        `json:"apiVersion,omitempty"`
	NodeClassRef NodeClassRef  `json:"nodeClassRef"`
	Requirements []Requirement `json:"requirements,omitempty"`
	// Labels are spec.template.metadata.labels, which Karpenter copies onto every node.
	Labels     map[string]string `json:"labels,omitempty"`
	Kubelet    *Kubelet          `json:"kubelet,omitempty"`
	Conditions []Condition       `json:"conditions,omitempty"`
	// Taints and StartupTaints are spec.template.spec.taints and startupTaints: Karpenter puts
	// both on each new node and expects a DaemonSet (a CNI's agent) to remove the startup ones.
	Taints        []corev1.Taint `json:"taints,omitempty"`
	StartupTaints []corev1.Taint `json:"startupTaints,omitempty"`
	// Disruption is spec.disruption; nil when the NodePool does not set it.
	Disruption *Disruption `json:"disruption,omitempty"`
}

// Disruption is how Karpenter may disrupt a NodePool's nodes: spec.disruption, as written.
type Disruption struct {
	// ConsolidationPolicy is WhenEmpty or WhenEmptyOrUnderutilized (v1beta1: WhenUnderutilized).
	ConsolidationPolicy string `json:"consolidationPolicy,omitempty"`
	// ConsolidateAfter is a duration or Never, as written.
	ConsolidateAfter string `json:"consolidateAfter,omitempty"`
	// ExpireAfter is v1beta1's spec.disruption.expireAfter (v1 moved it to the template).
	ExpireAfter string             `json:"expireAfter,omitempty"`
	Budgets     []DisruptionBudget `json:"budgets,omitempty"`
}

// DisruptionBudget is one of spec.disruption.budgets: at most Nodes (a count or a percentage)
// disrupted at once, for Duration from each Schedule (a cron expression) when set, for the
// Reasons listed (all when empty).
type DisruptionBudget struct {
	Nodes    string   `json:"nodes"`
	Schedule string   `json:"schedule,omitempty"`
	Duration string   `json:"duration,omitempty"`
	Reasons  []string `json:"reasons,omitempty"`
}

// NodeClaim is the part of a karpenter.sh NodeClaim that links a Node to its NodePool and NodeClass.
type NodeClaim struct {
	Name         string            `json:"name"`
	APIVersion   string            `json:"apiVersion,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
	NodeClassRef NodeClassRef      `json:"nodeClassRef"`
	ProviderID   string            `json:"providerID,omitempty"`
	NodeName     string            `json:"nodeName,omitempty"`
	// Requests are spec.resources.requests as quantity strings, e.g. vpc.amazonaws.com/efa: "8":
	// what the pods Karpenter launched the node for asked of it.
	Requests map[string]string `json:"requests,omitempty"`
	// Capacity is the vpc.amazonaws.com/* part of status.capacity as quantity strings, e.g.
	// vpc.amazonaws.com/pod-eni: "9", which Karpenter derives from the VPC limits of the type
	// (branch interfaces when it supports trunking).
	Capacity   map[string]string `json:"capacity,omitempty"`
	Conditions []Condition       `json:"conditions,omitempty"`
	// Created is the claim's creationTimestamp, Deleting its deletionTimestamp (zero unless it
	// is being deleted).
	Created  time.Time `json:"created,omitzero"`
	Deleting time.Time `json:"deleting,omitzero"`
}

// NodePool returns the claim's NodePool name, from its karpenter.sh/nodepool label.
func (c *NodeClaim) NodePool() string { return c.Labels[LabelNodePool] }

// SelectorTerm is one subnet or security-group selector term.
type SelectorTerm struct {
	Tags map[string]string `json:"tags,omitempty"`
	ID   string            `json:"id,omitempty"`
	Name string            `json:"name,omitempty"`
}

// NetworkInterface is one entry of EC2NodeClass.spec.networkInterfaces (Karpenter v1.11+) or
// of an Auto Mode NodeClass's spec.advancedNetworking.networkInterfaces.
type NetworkInterface struct {
	NetworkCardIndex int32  `json:"networkCardIndex"`
	DeviceIndex      int32  `json:"deviceIndex"`
	InterfaceType    string `json:"interfaceType"`
	// SecondaryIPv4PrefixCount is the number of /28 prefixes an Auto Mode static interface
	// gets at launch.
	SecondaryIPv4PrefixCount *int32 `json:"secondaryIPv4PrefixCount,omitempty"`
}

// PlacementGroupSelector is EC2NodeClass.spec.placementGroupSelector (Karpenter v1.11+).
type PlacementGroupSelector struct {
	Name string `json:"name,omitempty"`
	ID   string `json:"id,omitempty"`
}

// SubnetStatus is one subnet Karpenter resolved for an EC2NodeClass.
type SubnetStatus struct {
	ID     string `json:"id"`
	Zone   string `json:"zone,omitempty"`
	ZoneID string `json:"zoneID,omitempty"`
}

// SecurityGroupStatus is one security group Karpenter resolved for an EC2NodeClass.
type SecurityGroupStatus struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// EC2NodeClass is the networking part of a karpenter.k8s.aws EC2NodeClass, at v1 or v1beta1,
// or of an EKS Auto Mode NodeClass (eks.amazonaws.com/v1), told apart by Group and Kind.
type EC2NodeClass struct {
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
	// Group and Kind are empty for an EC2NodeClass, AutoModeGroup and KindNodeClass for an
	// Auto Mode NodeClass.
	Group                      string                  `json:"group,omitempty"`
	Kind                       string                  `json:"kind,omitempty"`
	AMIFamily                  string                  `json:"amiFamily,omitempty"`
	SubnetSelectorTerms        []SelectorTerm          `json:"subnetSelectorTerms,omitempty"`
	SecurityGroupSelectorTerms []SelectorTerm          `json:"securityGroupSelectorTerms,omitempty"`
	AssociatePublicIPAddress   *bool                   `json:"associatePublicIPAddress,omitempty"`
	IPPrefixCount              *int32                  `json:"ipPrefixCount,omitempty"`
	NetworkInterfaces          []NetworkInterface      `json:"networkInterfaces,omitempty"`
	PlacementGroupSelector     *PlacementGroupSelector `json:"placementGroupSelector,omitempty"`
	Kubelet                    *Kubelet                `json:"kubelet,omitempty"`
	// ConnectionTracking is spec.connectionTracking (Karpenter v1.13+), which Karpenter applies
	// to the interfaces of its launch template.
	ConnectionTracking *ConnectionTracking `json:"connectionTracking,omitempty"`
	// MetadataOptions is spec.metadataOptions as the API server stores it (with the CRD's
	// defaults filled in); nil when the class does not have it (an Auto Mode NodeClass, or a
	// snapshot written before karpnet read it).
	MetadataOptions *MetadataOptions `json:"metadataOptions,omitempty"`

	// PodSubnetSelectorTerms and PodSecurityGroupSelectorTerms are an Auto Mode NodeClass's
	// pod subnets and their security groups; IPv4PrefixSize is its
	// spec.advancedNetworking.ipv4PrefixSize ("", "Auto" or "32").
	PodSubnetSelectorTerms        []SelectorTerm `json:"podSubnetSelectorTerms,omitempty"`
	PodSecurityGroupSelectorTerms []SelectorTerm `json:"podSecurityGroupSelectorTerms,omitempty"`
	IPv4PrefixSize                string         `json:"ipv4PrefixSize,omitempty"`

	StatusSubnets        []SubnetStatus        `json:"statusSubnets,omitempty"`
	StatusSecurityGroups []SecurityGroupStatus `json:"statusSecurityGroups,omitempty"`
	Conditions           []Condition           `json:"conditions,omitempty"`
}

// AutoMode reports whether c is an EKS Auto Mode NodeClass.
func (c *EC2NodeClass) AutoMode() bool { return c.Group == AutoModeGroup && c.Kind == KindNodeClass }

// KindName returns the class's kind, EC2NodeClass or NodeClass, for display.
func (c *EC2NodeClass) KindName() string {
	if c.AutoMode() {
		return KindNodeClass
	}
	return KindEC2NodeClass
}

// ENIConfig is a VPC CNI custom-networking ENIConfig (crd.k8s.amazonaws.com/v1alpha1).
type ENIConfig struct {
	Name           string   `json:"name"`
	Subnet         string   `json:"subnet"`
	SecurityGroups []string `json:"securityGroups,omitempty"`
}

// AWSNode is what karpnet reads of the kube-system/aws-node DaemonSet (the VPC CNI).
type AWSNode struct {
	Image string `json:"image,omitempty"`
	// Env holds the literal env values of the aws-node container.
	Env map[string]string `json:"env,omitempty"`
	// Scheduling is the pod template's scheduling constraints, which decide the nodes aws-node
	// runs on; nil in snapshots written before karpnet read them, when aws-node is taken to run
	// on every Linux EC2 node.
	Scheduling *Scheduling `json:"scheduling,omitempty"`
	// DesiredNumberScheduled is status.desiredNumberScheduled when the DaemonSet controller
	// has observed the current spec (status.observedGeneration >= metadata.generation); nil
	// when the status is not current or was not read.
	DesiredNumberScheduled *int32 `json:"desiredNumberScheduled,omitempty"`
	// NodeAgent is the DaemonSet's aws-eks-nodeagent container, the VPC CNI's network policy
	// agent (v1.14.0+); nil when the DaemonSet has none.
	NodeAgent *NodeAgent `json:"nodeAgent,omitempty"`
}

// NodeAgent is the VPC CNI's network policy agent container.
type NodeAgent struct {
	Image string `json:"image,omitempty"`
	// NetworkPolicy is its --enable-network-policy flag (default false): without it the agent
	// enforces no policy.
	NetworkPolicy bool `json:"networkPolicy"`
}

// CNIVersion reads the VPC CNI release from an aws-node image tag as major, minor, patch, e.g.
// ".../amazon-k8s-cni:v1.8.0-eksbuild.1" gives 1.8.0. It fails on an image without a tag (a
// digest only) or a tag that is not a version.
func CNIVersion(image string) ([3]int, bool) {
	_, tag, ok := ImageTag(image)
	if !ok {
		return [3]int{}, false
	}
	return ParseVersion(tag)
}

// ImageTag splits an image reference into its repository's last path element and its tag:
// "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.19.0-eksbuild.1" gives
// "amazon-k8s-cni" and "v1.19.0-eksbuild.1". A digest is dropped; false without a tag.
func ImageTag(image string) (name, tag string, ok bool) {
	image, _, _ = strings.Cut(strings.TrimSpace(image), "@")
	last := image[strings.LastIndex(image, "/")+1:]
	name, tag, ok = strings.Cut(last, ":")
	return name, tag, ok && name != "" && tag != ""
}

// ParseVersion reads major.minor.patch from a release such as "v1.19.0-eksbuild.1" or "1.20.2",
// ignoring a leading v and any pre-release or build suffix; false when it is not one.
func ParseVersion(s string) ([3]int, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return [3]int{}, false
	}
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return [3]int{}, false
		}
		v[i] = n
	}
	return v, true
}

// SubnetDiscovery reports whether aws-node's subnet discovery may put pods' ENIs in subnets
// tagged kubernetes.io/role/cni=1: custom networking is off, and ENABLE_SUBNET_DISCOVERY is
// true, or unset on VPC CNI 1.18 or later where it is the default (an image without a version
// counts as recent). false without the DaemonSet.
func (a *AWSNode) SubnetDiscovery() bool {
	if a == nil || strings.EqualFold(strings.TrimSpace(a.Setting(EnvCustomNetwork, "")), "true") {
		return false
	}
	if v, ok := CNIVersion(a.Image); ok && (v[0] < 1 || v[0] == 1 && v[1] < 18) {
		return false
	}
	if set := strings.TrimSpace(a.Setting(EnvSubnetDiscovery, "")); set != "" {
		on, err := strconv.ParseBool(set)
		return err == nil && on
	}
	return true
}

// Scheduling is what a DaemonSet's pod template says about the nodes it may run on.
type Scheduling struct {
	NodeSelector map[string]string    `json:"nodeSelector,omitempty"`
	Affinity     *corev1.NodeAffinity `json:"affinity,omitempty"`
	Tolerations  []corev1.Toleration  `json:"tolerations,omitempty"`
}

// Setting returns the aws-node env value for name, or def when it is unset or the DaemonSet is absent.
func (a *AWSNode) Setting(name, def string) string {
	if a == nil {
		return def
	}
	if v, ok := a.Env[name]; ok {
		return v
	}
	return def
}

// SandboxFailure is a FailedCreatePodSandBox event of a pod on a node.
type SandboxFailure struct {
	Node      string    `json:"node"`
	Namespace string    `json:"namespace"`
	Pod       string    `json:"pod"`
	Message   string    `json:"message"`
	Count     int32     `json:"count"`
	LastSeen  time.Time `json:"lastSeen"`
	// FirstSeen is when the first of the Count failures happened; zero when unknown.
	FirstSeen time.Time `json:"firstSeen,omitzero"`
}

// CNINode is the VPC resource controller's per-node object (cninodes.vpcresources.k8s.aws),
// through which ipamd asks for features such as SecurityGroupsForPods.
type CNINode struct {
	Name     string           `json:"name"`
	Features []CNINodeFeature `json:"features,omitempty"`
}

// CNINodeFeature is one entry of CNINode.spec.features.
type CNINodeFeature struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}
