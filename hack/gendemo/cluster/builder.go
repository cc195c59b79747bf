package cluster

import (
	"fmt"
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apitypes "k8s.io/apimachinery/pkg/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// builder adds planned nodes, with their instances and NodeClaims, to a snapshot.
type builder struct {
	net *network
	s   *snapshot.Snapshot
}

// nodeName is the EC2 resource name of a primary address, as kubelet registers it.
func nodeName(ip string) string {
	return "ip-" + strings.ReplaceAll(ip, ".", "-") + "." + region + ".compute.internal"
}

// launchAge is how long ago a planned node's instance started.
func launchAge(p nodePlan) time.Duration {
	switch p.kind {
	case managedNode:
		return time.Duration(30*24+number("age", p.key, 24)) * time.Hour
	case hybridNode:
		return 61 * 24 * time.Hour
	case fargateNode:
		return 9 * 24 * time.Hour
	}
	switch p.fault {
	case neverRegistered:
		return 9 * time.Minute
	case leaked:
		return 3*time.Hour + 10*time.Minute
	}
	if p.pool == "training" {
		return time.Duration(3*24+number("age", p.key, 6)) * time.Hour
	}
	return time.Duration(90+number("age", p.key, 14*24*60)) * time.Minute
}

func (b *builder) add(p nodePlan) {
	if p.kind == hybridNode {
		b.s.Nodes = append(b.s.Nodes, hybrid(p, Taken().Add(-launchAge(p))))
		return
	}
	if p.kind == autoNode {
		b.addAuto(p)
		return
	}
	if p.kind == fargateNode {
		b.s.Nodes = append(b.s.Nodes, fargate(b.net, p, Taken().Add(-launchAge(p))))
		return
	}
	m := newMachine(b.net, p)
	launched := Taken().Add(-launchAge(p)).Truncate(time.Second)
	name := nodeName(m.ip)
	claim := p.pool + "-" + suffix(p.key)
	tags := map[string]string{"Name": name, "kubernetes.io/cluster/" + clusterName: "owned"}
	if p.kind == karpenterNode {
		tags["karpenter.sh/nodepool"] = p.pool
		tags["karpenter.sh/nodeclaim"] = claim
		tags["karpenter.k8s.aws/ec2nodeclass"] = p.class
		tags["eks:eks-cluster-name"] = clusterName
	} else {
		tags["eks:cluster-name"] = clusterName
		tags["eks:nodegroup-name"] = p.pool
	}
	if p.fault == neverRegistered || p.fault == leaked {
		// Karpenter tags Name and karpenter.sh/nodeclaim only once a Node registered.
		delete(tags, "Name")
		delete(tags, "karpenter.sh/nodeclaim")
		in := m.instance(b.net, launched, tags)
		// No Node, so aws-node never ran there: the instance has only its primary interface
		// and address.
		eni := in.ENIs[0]
		eni.PrivateIPs, eni.IPv4Prefixes = []string{eni.PrimaryIP}, nil
		in.ENIs = []snapshot.ENI{eni}
		b.s.Instances = append(b.s.Instances, in)
		if p.fault == neverRegistered {
			b.s.NodeClaims = append(b.s.NodeClaims, m.unregisteredClaim(claim, launched))
		}
		return
	}
	if p.fault != instanceMissing {
		b.s.Instances = append(b.s.Instances, m.instance(b.net, launched, tags))
	}
	node := m.node(name, launched.Add(47*time.Second))
	if p.kind == karpenterNode {
		c := m.claim(claim, name, launched)
		maps.Copy(node.Labels, c.Labels)
		node.Labels["karpenter.sh/registered"] = "true"
		node.Labels["karpenter.sh/initialized"] = "true"
		node.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: v1Karpenter, Kind: "NodeClaim", Name: claim, UID: apitypes.UID(uid(claim)),
			BlockOwnerDeletion: ptr(true),
		}}
		node.Finalizers = []string{"karpenter.sh/termination"}
		b.s.NodeClaims = append(b.s.NodeClaims, c)
	}
	if p.fault == wrongTypeLabel {
		node.Labels[corev1.LabelInstanceTypeStable] = "m5.xlarge"
	}
	if p.fault == sandboxFailures {
		b.s.SandboxFailures = append(b.s.SandboxFailures, failures(name)...)
	}
	if p.fault == consolidating {
		deleted := metav1.NewTime(Taken().Add(-2 * time.Minute))
		node.DeletionTimestamp = &deleted
		node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: "karpenter.sh/disrupted", Effect: corev1.TaintEffectNoSchedule})
	}
	b.s.Nodes = append(b.s.Nodes, node)
}

// claim returns the NodeClaim that launched the machine.
func (m *machine) claim(name, node string, launched time.Time) snapshot.NodeClaim {
	p := m.plan
	capacity := "on-demand"
	if p.spot {
		capacity = "spot"
	}
	labels := map[string]string{
		snapshot.LabelNodePool:                  p.pool,
		snapshot.LabelEC2NodeClass:              p.class,
		"karpenter.sh/capacity-type":            capacity,
		corev1.LabelInstanceTypeStable:          m.typ.name,
		corev1.LabelTopologyZone:                m.zone,
		corev1.LabelTopologyRegion:              region,
		"topology.k8s.aws/zone-id":              zoneID(m.zone),
		corev1.LabelArchStable:                  "amd64",
		corev1.LabelOSStable:                    "linux",
		"workload-class":                        p.pool,
		"karpenter.k8s.aws/instance-category":   m.typ.name[:1],
		"karpenter.k8s.aws/instance-family":     m.typ.family(),
		"karpenter.k8s.aws/instance-generation": m.typ.generation(),
		"karpenter.k8s.aws/instance-size":       m.typ.size(),
		"karpenter.k8s.aws/instance-cpu":        fmt.Sprint(m.typ.vcpus),
		"karpenter.k8s.aws/instance-memory":     fmt.Sprint(m.typ.memoryMiB),
		"karpenter.k8s.aws/instance-hypervisor": m.typ.hypervisor,
	}
	if p.class == "efa" {
		labels["karpenter.k8s.aws/placement-group-id"] = hexID("pg", "training")
	}
	c := snapshot.NodeClaim{
		Name: name, APIVersion: v1Karpenter, Labels: labels, NodeClassRef: classRef(p.class),
		ProviderID: "aws:///" + m.zone + "/" + m.id, NodeName: node,
		Conditions: conditions(launched.Add(50*time.Second), "Launched", "Registered", "Initialized", "Ready"),
		Created:    launched.Add(-5 * time.Second),
	}
	drift := ""
	switch {
	case p.fault == extraSecurityGroup:
		drift = "SecurityGroupDrift"
	case p.subnet == "legacy-c":
		drift = "SubnetDrift"
	}
	if drift != "" {
		c.Conditions = append(c.Conditions, snapshot.Condition{
			Type: "Drifted", Status: "True", Reason: drift, LastTransitionTime: Taken().Add(-3 * time.Hour),
		})
	}
	return c
}

// unregisteredClaim returns the NodeClaim of a machine that launched but whose node never
// registered: Launched, and Registered, Initialized and Ready Unknown as Karpenter leaves them.
func (m *machine) unregisteredClaim(name string, launched time.Time) snapshot.NodeClaim {
	c := m.claim(name, "", launched)
	at := launched.Add(50 * time.Second)
	unknown := func(typ, reason, message string) snapshot.Condition {
		return snapshot.Condition{Type: typ, Status: "Unknown", Reason: reason, Message: message, LastTransitionTime: at}
	}
	c.Conditions = []snapshot.Condition{
		{Type: "Launched", Status: "True", Reason: "Launched", LastTransitionTime: at},
		unknown("Registered", "NodeNotFound", "Node not registered with cluster"),
		unknown("Initialized", "NodeNotFound", "Node not registered with cluster"),
		unknown("Ready", "ReconcilingDependents", "Initialized=Unknown, Registered=Unknown"),
	}
	return c
}
