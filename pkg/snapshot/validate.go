package snapshot

import (
	"errors"
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

// kubernetes checks the numbers of what was read from Kubernetes. In a live run (v.live) what
// is out of range is left out: a count is removed, an object that cannot be used without it is
// dropped.
func (v *validator) kubernetes(s *Snapshot) {
	for i := range s.Nodes {
		n := &s.Nodes[i]
		at := v.elem(SourceNodes, "nodes", i, n.Name)
		v.quantities(SourceNodes, at+".status.capacity", n.Status.Capacity)
		v.quantities(SourceNodes, at+".status.allocatable", n.Status.Allocatable)
	}
	for i, c := range s.NodeClaims {
		at := v.elem(SourceNodeClaims, "nodeClaims", i, c.Name)
		v.quantityStrings(SourceNodeClaims, at+".requests", c.Requests)
		v.quantityStrings(SourceNodeClaims, at+".capacity", c.Capacity)
	}
	for i := range s.NodePools {
		p := &s.NodePools[i]
		if p.Kubelet != nil {
			at := v.elem(SourceNodePools, "nodePools", i, p.Name)
			v.ptr(SourceNodePools, at+".kubelet.maxPods", &p.Kubelet.MaxPods, maxCount)
			v.ptr(SourceNodePools, at+".kubelet.podsPerCore", &p.Kubelet.PodsPerCore, maxCount)
		}
	}
	for i := range s.NodeClasses {
		c := &s.NodeClasses[i]
		at := v.elem(SourceNodeClasses, "nodeClasses", i, c.Name)
		if c.Kubelet != nil {
			v.ptr(SourceNodeClasses, at+".kubelet.maxPods", &c.Kubelet.MaxPods, maxCount)
			v.ptr(SourceNodeClasses, at+".kubelet.podsPerCore", &c.Kubelet.PodsPerCore, maxCount)
		}
		v.ptr(SourceNodeClasses, at+".ipPrefixCount", &c.IPPrefixCount, maxPerType)
		c.NetworkInterfaces = keep(c.NetworkInterfaces, func(j int, ni *NetworkInterface) bool {
			at := fmt.Sprintf("%s.networkInterfaces[%d]", at, j)
			ok := v.num(SourceNodeClasses, at+".networkCardIndex", int64(ni.NetworkCardIndex), 0, maxIndex)
			ok = v.num(SourceNodeClasses, at+".deviceIndex", int64(ni.DeviceIndex), 0, maxIndex) && ok
			return v.ptr(SourceNodeClasses, at+".secondaryIPv4PrefixCount", &ni.SecondaryIPv4PrefixCount, maxPerType) && ok
		})
	}
	if a := s.AWSNode; a != nil {
		v.ptr(SourceAWSNode, "awsNode.desiredNumberScheduled", &a.DesiredNumberScheduled, maxCount)
	}
	s.SandboxFailures = keep(s.SandboxFailures, func(i int, f *SandboxFailure) bool {
		return v.num(SourceEvents, v.elem(SourceEvents, "sandboxFailures", i, f.Pod)+".count", int64(f.Count), 0, maxCount)
	})
	s.Events = keep(s.Events, func(i int, e *KubeEvent) bool {
		return v.num(SourceEvents, v.elem(SourceEvents, "events", i, e.Name)+".count", int64(e.Count), 0, maxCount)
	})
	s.NodeEvents = keep(s.NodeEvents, func(i int, e *KubeEvent) bool {
		return v.num(SourceEvents, v.elem(SourceEvents, "nodeEvents", i, e.Name)+".count", int64(e.Count), 0, maxCount)
	})
}

// ec2 checks the numbers of what was read from EC2. In a live run an instance's interface
// whose indexes are out of range is left out; a subnet, security group, network ACL,
// placement group or instance type with a number out of range is left out whole, so no check
// computes with what remains of it.
func (v *validator) ec2(s *Snapshot) {
	for i := range s.Instances {
		in := &s.Instances[i]
		at := v.elem(SourceDescribeInstances, "instances", i, in.ID)
		if !v.num(SourceDescribeInstances, at+".placement.partitionNumber", int64(in.Placement.PartitionNumber), 0, maxParts) {
			in.Placement.PartitionNumber = 0
		}
		in.ENIs = keep(in.ENIs, func(j int, e *ENI) bool {
			at := v.elem(SourceDescribeInstances, at+".enis", j, e.ID)
			ok := v.num(SourceDescribeInstances, at+".networkCardIndex", int64(e.NetworkCardIndex), 0, maxIndex)
			return v.num(SourceDescribeInstances, at+".deviceIndex", int64(e.DeviceIndex), 0, maxIndex) && ok
		})
	}
	s.Subnets = keep(s.Subnets, func(i int, sn *Subnet) bool {
		at := v.elem(SourceDescribeSubnets, "subnets", i, sn.ID)
		ok := v.num(SourceDescribeSubnets, at+".availableIPs", int64(sn.AvailableIPs), 0, maxAddrFree)
		ok = v.cidr(SourceDescribeSubnets, at+".cidr", sn.CIDR) && ok
		for j, c := range sn.IPv6CIDRs {
			ok = v.cidr(SourceDescribeSubnets, fmt.Sprintf("%s.ipv6CIDRs[%d]", at, j), c) && ok
		}
		return ok
	})
	s.NetworkACLs = keep(s.NetworkACLs, func(i int, acl *NetworkACL) bool {
		ok := true
		for j, e := range acl.Entries {
			at := fmt.Sprintf("%s.entries[%d]", v.elem(SourceDescribeNetworkAcls, "networkACLs", i, acl.ID), j)
			ok = v.num(SourceDescribeNetworkAcls, at+".ruleNumber", int64(e.RuleNumber), 1, maxACLRule) && ok
			ok = v.num(SourceDescribeNetworkAcls, at+".fromPort", int64(e.FromPort), 0, maxPort) && ok
			ok = v.num(SourceDescribeNetworkAcls, at+".toPort", int64(e.ToPort), 0, maxPort) && ok
		}
		return ok
	})
	s.SecurityGroups = keep(s.SecurityGroups, func(i int, g *SecurityGroup) bool {
		ok := true
		for _, dir := range []struct {
			name  string
			rules []Rule
		}{{"inbound", g.Inbound}, {"outbound", g.Outbound}} {
			for j, r := range dir.rules {
				at := fmt.Sprintf("%s.%s[%d]", v.elem(SourceDescribeSecurityGroups, "securityGroups", i, g.ID), dir.name, j)
				ok = v.num(SourceDescribeSecurityGroups, at+".fromPort", int64(r.FromPort), -1, maxPort) && ok
				ok = v.num(SourceDescribeSecurityGroups, at+".toPort", int64(r.ToPort), -1, maxPort) && ok
			}
		}
		return ok
	})
	s.PlacementGroups = keep(s.PlacementGroups, func(i int, g *PlacementGroup) bool {
		return v.num(SourceDescribePlacementGroups, v.elem(SourceDescribePlacementGroups, "placementGroups", i, g.Name)+".partitionCount",
			int64(g.PartitionCount), 0, maxParts)
	})
	s.InstanceTypes = keep(s.InstanceTypes, func(i int, t *InstanceType) bool {
		const src = SourceDescribeInstanceTypes
		at := v.elem(src, "instanceTypes", i, t.Name)
		ok := v.num(src, at+".vcpus", int64(t.VCPUs), 0, maxVCPUs)
		ok = v.num(src, at+".maxENIs", int64(t.MaxENIs), 0, maxPerType) && ok
		ok = v.num(src, at+".defaultNetworkCardIndex", int64(t.DefaultNetworkCardIndex), 0, maxIndex) && ok
		ok = v.num(src, at+".ipv4PerENI", int64(t.IPv4PerENI), 0, maxPerType) && ok
		ok = v.num(src, at+".ipv6PerENI", int64(t.IPv6PerENI), 0, maxPerType) && ok
		ok = v.num(src, at+".maxEFAInterfaces", int64(t.MaxEFAInterfaces), 0, maxPerType) && ok
		for j, c := range t.NetworkCards {
			at := fmt.Sprintf("%s.networkCards[%d]", at, j)
			ok = v.num(src, at+".index", int64(c.Index), 0, maxIndex) && ok
			ok = v.num(src, at+".maxENIs", int64(c.MaxENIs), 0, maxPerType) && ok
		}
		return ok
	})
}

// keep returns list without the elements ok is false for, in a live run; when reading a file
// (which is refused on the first number out of range) it returns list as it is.
func keep[T any](list []T, ok func(i int, e *T) bool) []T {
	out := list[:0:0]
	dropped := false
	for i := range list {
		if ok(i, &list[i]) {
			if dropped {
				out = append(out, list[i])
			}
			continue
		}
		if !dropped {
			dropped = true
			out = append(out, list[:i]...)
		}
	}
	if !dropped {
		return list
	}
	return out
}

// validator keeps the first range error of a file being read. In a live run (live) it keeps
// every one as a rangeError, and its checks report false so the caller leaves the value out.
type validator struct {
	err    error
	live   bool
	ranges []rangeError
}

// rangeError is a number out of range in a live answer: the source it came from and what is
// wrong, "instanceTypes[m5.large].maxENIs: 2147483647 is out of range (0 to 1024)".
type rangeError struct{ source, text string }

// fail records a value out of range: the first one when reading a file, each one in a live
// run. It returns false in a live run only: a file is refused, a live value is left out.
func (v *validator) fail(source, text string) bool {
	if v.live {
		v.ranges = append(v.ranges, rangeError{source, text})
		return false
	}
	if v.err == nil {
		v.err = errors.New(text)
	}
	return true
}

// elem names an element of a list: by index in a file (nodes[3]), by name in a live run
// (nodes[ip-10-0-1-5.ec2.internal]), where the index means nothing to the reader.
func (v *validator) elem(_, list string, i int, name string) string {
	if v.live && name != "" {
		return fmt.Sprintf("%s[%s]", list, clip(name, 64))
	}
	return fmt.Sprintf("%s[%d]", list, i)
}

// clip cuts s to at most n bytes for a message, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}

// num checks lo <= n <= hi.
func (v *validator) num(source, path string, n, lo, hi int64) bool {
	if n < lo || n > hi {
		return v.fail(source, fmt.Sprintf("%s: %d is out of range (%d to %d)", path, n, lo, hi))
	}
	return true
}

// cidr checks that a subnet's CIDR block, when given, is one: checks count its addresses and
// carve it into blocks.
func (v *validator) cidr(source, path, c string) bool {
	if c == "" {
		return true
	}
	if _, err := netip.ParsePrefix(c); err != nil {
		return v.fail(source, fmt.Sprintf("%s is %q: not a CIDR block such as 10.0.0.0/24", path, clip(c, 64)))
	}
	return true
}

// ptr checks an optional count: 0 to hi when set. In a live run one out of range is unset.
func (v *validator) ptr(source, path string, n **int32, hi int64) bool {
	if *n == nil || v.num(source, path, int64(**n), 0, hi) {
		return true
	}
	*n = nil
	return false
}

// quantities checks the counted resources of a resource list (pods and the VPC resource
// controller's vpc.amazonaws.com/*): whole numbers from 0 to maxCount. In a live run one out
// of range is removed from the list, as if the object did not say.
func (v *validator) quantities(source, path string, list corev1.ResourceList) {
	for name, q := range list {
		if counted(string(name)) && !v.count(source, path+"."+string(name), q) {
			delete(list, name)
		}
	}
}

// quantityStrings is quantities for quantities kept as strings; one that does not parse is
// refused (left out in a live run) too.
func (v *validator) quantityStrings(source, path string, list map[string]string) {
	for name, text := range list {
		if !counted(name) {
			continue
		}
		q, err := resource.ParseQuantity(strings.TrimSpace(text))
		if err != nil {
			if !v.fail(source, fmt.Sprintf("%s.%s: %q is not a quantity", path, name, clip(text, 64))) {
				delete(list, name)
			}
			continue
		}
		if !v.count(source, path+"."+name, q) {
			delete(list, name)
		}
	}
}

// count checks that q is a whole number from 0 to maxCount.
func (v *validator) count(source, path string, q resource.Quantity) bool {
	n, ok := q.AsInt64()
	if !ok || n < 0 || n > maxCount {
		return v.fail(source, fmt.Sprintf("%s: %s is out of range (0 to %d)", path, clip(q.String(), 64), maxCount))
	}
	return true
}

// counted reports whether a resource name is one of the counts checks compute with.
func counted(name string) bool {
	return name == string(corev1.ResourcePods) || strings.HasPrefix(name, "vpc.amazonaws.com/")
}
