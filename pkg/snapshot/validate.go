package snapshot

import (
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Range bounds of the numbers a snapshot holds: generous for any real cluster, tight enough
// that no arithmetic on them wraps around.
const (
	maxCount    = 10_000_000 // pods, ENI-backed resources, scheduled pods, free addresses' scale
	maxPerType  = 1024       // ENIs, addresses per ENI, network cards, vCPUs' scale, prefixes
	maxIndex    = 1023       // network card and device indexes
	maxPort     = 65535
	maxAddrFree = 1 << 24 // free addresses of one subnet: a /8 at most
	maxParts    = 7       // partitions of a partition placement group
	maxVCPUs    = 4096
	maxACLRule  = 32767 // network ACL rule numbers: 1 to 32766, and 32767 for the last "*"
)

// validate refuses numbers out of range, naming the field, e.g. "nodes[3].status.capacity.pods:
// 99999999999999999999 is out of range (0 to 10000000)". Checks compute with these numbers, so
// a hand-edited file cannot make them wrap around.
func (s *Snapshot) validate() error {
	v := &validator{}
	v.kubernetes(s)
	v.ec2(s)
	return v.err
}

// kubernetes checks the numbers of what was read from Kubernetes.
func (v *validator) kubernetes(s *Snapshot) {
	for i := range s.Nodes {
		n := &s.Nodes[i]
		v.quantities(fmt.Sprintf("nodes[%d].status.capacity", i), n.Status.Capacity)
		v.quantities(fmt.Sprintf("nodes[%d].status.allocatable", i), n.Status.Allocatable)
	}
	for i, c := range s.NodeClaims {
		v.quantityStrings(fmt.Sprintf("nodeClaims[%d].requests", i), c.Requests)
		v.quantityStrings(fmt.Sprintf("nodeClaims[%d].capacity", i), c.Capacity)
	}
	for i, p := range s.NodePools {
		if p.Kubelet != nil {
			v.ptr(fmt.Sprintf("nodePools[%d].kubelet.maxPods", i), p.Kubelet.MaxPods, maxCount)
			v.ptr(fmt.Sprintf("nodePools[%d].kubelet.podsPerCore", i), p.Kubelet.PodsPerCore, maxCount)
		}
	}
	for i, c := range s.NodeClasses {
		at := fmt.Sprintf("nodeClasses[%d]", i)
		if c.Kubelet != nil {
			v.ptr(at+".kubelet.maxPods", c.Kubelet.MaxPods, maxCount)
			v.ptr(at+".kubelet.podsPerCore", c.Kubelet.PodsPerCore, maxCount)
		}
		v.ptr(at+".ipPrefixCount", c.IPPrefixCount, maxPerType)
		for j, ni := range c.NetworkInterfaces {
			at := fmt.Sprintf("%s.networkInterfaces[%d]", at, j)
			v.num(at+".networkCardIndex", int64(ni.NetworkCardIndex), 0, maxIndex)
			v.num(at+".deviceIndex", int64(ni.DeviceIndex), 0, maxIndex)
			v.ptr(at+".secondaryIPv4PrefixCount", ni.SecondaryIPv4PrefixCount, maxPerType)
		}
	}
	if a := s.AWSNode; a != nil {
		v.ptr("awsNode.desiredNumberScheduled", a.DesiredNumberScheduled, maxCount)
	}
	for i, f := range s.SandboxFailures {
		v.num(fmt.Sprintf("sandboxFailures[%d].count", i), int64(f.Count), 0, maxCount)
	}
	for i, e := range s.Events {
		v.num(fmt.Sprintf("events[%d].count", i), int64(e.Count), 0, maxCount)
	}
}

// ec2 checks the numbers of what was read from EC2.
func (v *validator) ec2(s *Snapshot) {
	for i, in := range s.Instances {
		at := fmt.Sprintf("instances[%d]", i)
		v.num(at+".placement.partitionNumber", int64(in.Placement.PartitionNumber), 0, maxParts)
		for j, e := range in.ENIs {
			at := fmt.Sprintf("%s.enis[%d]", at, j)
			v.num(at+".networkCardIndex", int64(e.NetworkCardIndex), 0, maxIndex)
			v.num(at+".deviceIndex", int64(e.DeviceIndex), 0, maxIndex)
		}
	}
	for i, sn := range s.Subnets {
		v.num(fmt.Sprintf("subnets[%d].availableIPs", i), int64(sn.AvailableIPs), 0, maxAddrFree)
		v.cidr(fmt.Sprintf("subnets[%d].cidr", i), sn.CIDR)
		for j, c := range sn.IPv6CIDRs {
			v.cidr(fmt.Sprintf("subnets[%d].ipv6CIDRs[%d]", i, j), c)
		}
	}
	for i, acl := range s.NetworkACLs {
		for j, e := range acl.Entries {
			at := fmt.Sprintf("networkACLs[%d].entries[%d]", i, j)
			v.num(at+".ruleNumber", int64(e.RuleNumber), 1, maxACLRule)
			v.num(at+".fromPort", int64(e.FromPort), 0, maxPort)
			v.num(at+".toPort", int64(e.ToPort), 0, maxPort)
		}
	}
	for i, g := range s.SecurityGroups {
		for dir, rules := range map[string][]Rule{"inbound": g.Inbound, "outbound": g.Outbound} {
			for j, r := range rules {
				at := fmt.Sprintf("securityGroups[%d].%s[%d]", i, dir, j)
				v.num(at+".fromPort", int64(r.FromPort), -1, maxPort)
				v.num(at+".toPort", int64(r.ToPort), -1, maxPort)
			}
		}
	}
	for i, g := range s.PlacementGroups {
		v.num(fmt.Sprintf("placementGroups[%d].partitionCount", i), int64(g.PartitionCount), 0, maxParts)
	}
	for i, t := range s.InstanceTypes {
		at := fmt.Sprintf("instanceTypes[%d]", i)
		v.num(at+".vcpus", int64(t.VCPUs), 0, maxVCPUs)
		v.num(at+".maxENIs", int64(t.MaxENIs), 0, maxPerType)
		v.num(at+".defaultNetworkCardIndex", int64(t.DefaultNetworkCardIndex), 0, maxIndex)
		v.num(at+".ipv4PerENI", int64(t.IPv4PerENI), 0, maxPerType)
		v.num(at+".ipv6PerENI", int64(t.IPv6PerENI), 0, maxPerType)
		v.num(at+".maxEFAInterfaces", int64(t.MaxEFAInterfaces), 0, maxPerType)
		for j, c := range t.NetworkCards {
			at := fmt.Sprintf("%s.networkCards[%d]", at, j)
			v.num(at+".index", int64(c.Index), 0, maxIndex)
			v.num(at+".maxENIs", int64(c.MaxENIs), 0, maxPerType)
		}
	}
}

// validator keeps the first range error.
type validator struct{ err error }

// num checks lo <= n <= hi.
func (v *validator) num(path string, n, lo, hi int64) {
	if v.err == nil && (n < lo || n > hi) {
		v.err = fmt.Errorf("%s: %d is out of range (%d to %d)", path, n, lo, hi)
	}
}

// cidr checks that a subnet's CIDR block, when given, is one: checks count its addresses and
// carve it into blocks.
func (v *validator) cidr(path, c string) {
	if c == "" || v.err != nil {
		return
	}
	if _, err := netip.ParsePrefix(c); err != nil {
		if len(c) > 64 {
			c = c[:64] + "..."
		}
		v.err = fmt.Errorf("%s is %q: not a CIDR block such as 10.0.0.0/24", path, c)
	}
}

// ptr checks an optional count: 0 to hi when set.
func (v *validator) ptr(path string, n *int32, hi int64) {
	if n != nil {
		v.num(path, int64(*n), 0, hi)
	}
}

// quantities checks the counted resources of a resource list (pods and the VPC resource
// controller's vpc.amazonaws.com/*): whole numbers from 0 to maxCount.
func (v *validator) quantities(path string, list corev1.ResourceList) {
	for name, q := range list {
		if counted(string(name)) {
			v.count(path+"."+string(name), q)
		}
	}
}

// quantityStrings is quantities for quantities kept as strings; one that does not parse is
// refused too.
func (v *validator) quantityStrings(path string, list map[string]string) {
	for name, text := range list {
		if !counted(name) || v.err != nil {
			continue
		}
		q, err := resource.ParseQuantity(strings.TrimSpace(text))
		if err != nil {
			v.err = fmt.Errorf("%s.%s: %q is not a quantity", path, name, text)
			return
		}
		v.count(path+"."+name, q)
	}
}

// count checks that q is a whole number from 0 to maxCount.
func (v *validator) count(path string, q resource.Quantity) {
	if v.err != nil {
		return
	}
	n, ok := q.AsInt64()
	if !ok || n < 0 || n > maxCount {
		v.err = fmt.Errorf("%s: %s is out of range (0 to %d)", path, q.String(), maxCount)
	}
}

// counted reports whether a resource name is one of the counts checks compute with.
func counted(name string) bool {
	return name == string(corev1.ResourcePods) || strings.HasPrefix(name, "vpc.amazonaws.com/")
}
