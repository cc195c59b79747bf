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
	maxHops     = 64    // IMDS httpPutResponseHopLimit: 1 to 64 (0 unknown)
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
		at := elem("nodes", i, n.Name)
		v.quantities(SourceNodes, at, ".status.capacity", n.Status.Capacity)
		v.quantities(SourceNodes, at, ".status.allocatable", n.Status.Allocatable)
	}
	for i, c := range s.NodeClaims {
		at := elem("nodeClaims", i, c.Name)
		v.quantityStrings(SourceNodeClaims, at, ".requests", c.Requests)
		v.quantityStrings(SourceNodeClaims, at, ".capacity", c.Capacity)
	}
	for i := range s.NodePools {
		p := &s.NodePools[i]
		if p.Kubelet != nil {
			at := elem("nodePools", i, p.Name)
			v.ptr(SourceNodePools, at, ".kubelet.maxPods", &p.Kubelet.MaxPods, maxCount)
			v.ptr(SourceNodePools, at, ".kubelet.podsPerCore", &p.Kubelet.PodsPerCore, maxCount)
		}
	}
	for i := range s.NodeClasses {
		c := &s.NodeClasses[i]
		at := elem("nodeClasses", i, c.Name)
		if c.Kubelet != nil {
			v.ptr(SourceNodeClasses, at, ".kubelet.maxPods", &c.Kubelet.MaxPods, maxCount)
			v.ptr(SourceNodeClasses, at, ".kubelet.podsPerCore", &c.Kubelet.PodsPerCore, maxCount)
		}
		v.ptr(SourceNodeClasses, at, ".ipPrefixCount", &c.IPPrefixCount, maxPerType)
		if m := c.MetadataOptions; m != nil && !v.num(SourceNodeClasses, at, ".metadataOptions.httpPutResponseHopLimit",
			int64(m.HTTPPutResponseHopLimit), 0, maxHops) {
			m.HTTPPutResponseHopLimit = 0
		}
		c.NetworkInterfaces = keep(c.NetworkInterfaces, func(j int, ni *NetworkInterface) bool {
			at := at.in(".networkInterfaces", j, "")
			ok := v.num(SourceNodeClasses, at, ".networkCardIndex", int64(ni.NetworkCardIndex), 0, maxIndex)
			ok = v.num(SourceNodeClasses, at, ".deviceIndex", int64(ni.DeviceIndex), 0, maxIndex) && ok
			return v.ptr(SourceNodeClasses, at, ".secondaryIPv4PrefixCount", &ni.SecondaryIPv4PrefixCount, maxPerType) && ok
		})
	}
	if a := s.AWSNode; a != nil {
		v.ptr(SourceAWSNode, loc{list: "awsNode", i: -1}, ".desiredNumberScheduled", &a.DesiredNumberScheduled, maxCount)
	}
	for i := range s.Agents {
		a := &s.Agents[i]
		at := elem("agents", i, a.Name)
		v.ptr(SourceAgents, at, ".desired", &a.Desired, maxCount)
		v.ptr(SourceAgents, at, ".ready", &a.Ready, maxCount)
		if (a.Desired == nil) != (a.Ready == nil) {
			a.Desired, a.Ready = nil, nil // judged together: one without the other says nothing
		}
	}
	s.SandboxFailures = keep(s.SandboxFailures, func(i int, f *SandboxFailure) bool {
		return v.num(SourceEvents, elem("sandboxFailures", i, f.Pod), ".count", int64(f.Count), 0, maxCount)
	})
	s.Events = keep(s.Events, func(i int, e *KubeEvent) bool {
		return v.num(SourceEvents, elem("events", i, e.Name), ".count", int64(e.Count), 0, maxCount)
	})
	s.NodeEvents = keep(s.NodeEvents, func(i int, e *KubeEvent) bool {
		return v.num(SourceEvents, elem("nodeEvents", i, e.Name), ".count", int64(e.Count), 0, maxCount)
	})
	s.PolicyAgentPods = keep(s.PolicyAgentPods, func(i int, p *SystemPod) bool {
		return p.Agent == nil || v.num(SourceAWSNodePods, elem("policyAgentPods", i, p.Name), ".agent.restarts",
			int64(p.Agent.Restarts), 0, maxCount)
	})
}

// ec2 checks the numbers of what was read from EC2. In a live run an instance's interface
// whose indexes are out of range is left out; a subnet, security group, network ACL,
// placement group or instance type with a number out of range is left out whole, so no check
// computes with what remains of it.
func (v *validator) ec2(s *Snapshot) {
	const (
		instances = SourceDescribeInstances
		subnets   = SourceDescribeSubnets
		acls      = SourceDescribeNetworkAcls
		groups    = SourceDescribeSecurityGroups
		types     = SourceDescribeInstanceTypes
	)
	for i := range s.Instances {
		in := &s.Instances[i]
		at := elem("instances", i, in.ID)
		if !v.num(instances, at, ".placement.partitionNumber", int64(in.Placement.PartitionNumber), 0, maxParts) {
			in.Placement.PartitionNumber = 0
		}
		if !v.num(instances, at, ".metadataOptions.httpPutResponseHopLimit", int64(in.MetadataOptions.HTTPPutResponseHopLimit), 0, maxHops) {
			in.MetadataOptions.HTTPPutResponseHopLimit = 0
		}
		in.ENIs = keep(in.ENIs, func(j int, e *ENI) bool {
			at := at.in(".enis", j, e.ID)
			ok := v.num(instances, at, ".networkCardIndex", int64(e.NetworkCardIndex), 0, maxIndex)
			return v.num(instances, at, ".deviceIndex", int64(e.DeviceIndex), 0, maxIndex) && ok
		})
	}
	s.Subnets = keep(s.Subnets, func(i int, sn *Subnet) bool {
		at := elem("subnets", i, sn.ID)
		ok := v.num(subnets, at, ".availableIPs", int64(sn.AvailableIPs), 0, maxAddrFree)
		ok = v.cidr(subnets, at, ".cidr", sn.CIDR) && ok
		for j, c := range sn.IPv6CIDRs {
			ok = v.cidr(subnets, at.in(".ipv6CIDRs", j, ""), "", c) && ok
		}
		return ok
	})
	s.NetworkACLs = keep(s.NetworkACLs, func(i int, acl *NetworkACL) bool {
		ok := true
		for j, e := range acl.Entries {
			at := elem("networkACLs", i, acl.ID).in(".entries", j, "")
			ok = v.num(acls, at, ".ruleNumber", int64(e.RuleNumber), 1, maxACLRule) && ok
			ok = v.num(acls, at, ".fromPort", int64(e.FromPort), 0, maxPort) && ok
			ok = v.num(acls, at, ".toPort", int64(e.ToPort), 0, maxPort) && ok
		}
		return ok
	})
	s.SecurityGroups = keep(s.SecurityGroups, func(i int, g *SecurityGroup) bool {
		ok := true
		for _, dir := range []struct {
			name  string
			rules []Rule
		}{{".inbound", g.Inbound}, {".outbound", g.Outbound}} {
			for j, r := range dir.rules {
				at := elem("securityGroups", i, g.ID).in(dir.name, j, "")
				ok = v.num(groups, at, ".fromPort", int64(r.FromPort), -1, maxPort) && ok
				ok = v.num(groups, at, ".toPort", int64(r.ToPort), -1, maxPort) && ok
			}
		}
		return ok
	})
	s.PlacementGroups = keep(s.PlacementGroups, func(i int, g *PlacementGroup) bool {
		return v.num(SourceDescribePlacementGroups, elem("placementGroups", i, g.Name), ".partitionCount", int64(g.PartitionCount), 0, maxParts)
	})
	s.InstanceTypes = keep(s.InstanceTypes, func(i int, t *InstanceType) bool {
		at := elem("instanceTypes", i, t.Name)
		ok := v.num(types, at, ".vcpus", int64(t.VCPUs), 0, maxVCPUs)
		ok = v.num(types, at, ".maxENIs", int64(t.MaxENIs), 0, maxPerType) && ok
		ok = v.num(types, at, ".defaultNetworkCardIndex", int64(t.DefaultNetworkCardIndex), 0, maxIndex) && ok
		ok = v.num(types, at, ".ipv4PerENI", int64(t.IPv4PerENI), 0, maxPerType) && ok
		ok = v.num(types, at, ".ipv6PerENI", int64(t.IPv6PerENI), 0, maxPerType) && ok
		ok = v.num(types, at, ".maxEFAInterfaces", int64(t.MaxEFAInterfaces), 0, maxPerType) && ok
		for j, c := range t.NetworkCards {
			at := at.in(".networkCards", j, "")
			ok = v.num(types, at, ".index", int64(c.Index), 0, maxIndex) && ok
			ok = v.num(types, at, ".maxENIs", int64(c.MaxENIs), 0, maxPerType) && ok
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

// loc is where a number is: an element of a list (nodes[3]), and one of its own lists
// (.enis[0]) when sub is set. Its text is made only for an error: by index in a file, by name
// in a live run (nodes[ip-10-0-1-5.ec2.internal]), where the index means nothing to the reader.
type loc struct {
	list, name string
	i          int // -1: list is a field, not a list
	sub, sname string
	j          int
}

// elem is the place of element i of list, named name.
func elem(list string, i int, name string) loc { return loc{list: list, i: i, name: name} }

// in is the place of element j of the element's list sub, named name.
func (l loc) in(sub string, j int, name string) loc {
	l.sub, l.j, l.sname = sub, j, name
	return l
}

// text renders the place of field (".maxENIs") at l.
func (v *validator) text(l loc, field string) string {
	step := func(list string, i int, name string) string {
		switch {
		case i < 0:
			return list
		case v.live && name != "":
			return fmt.Sprintf("%s[%s]", list, clip(name, 64))
		}
		return fmt.Sprintf("%s[%d]", list, i)
	}
	t := step(l.list, l.i, l.name)
	if l.sub != "" {
		t += step(l.sub, l.j, l.sname)
	}
	return t + field
}

// clip cuts s to at most n bytes for a message, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}

// num checks lo <= n <= hi.
func (v *validator) num(source string, at loc, field string, n, lo, hi int64) bool {
	if n < lo || n > hi {
		return v.fail(source, fmt.Sprintf("%s: %d is out of range (%d to %d)", v.text(at, field), n, lo, hi))
	}
	return true
}

// cidr checks that a subnet's CIDR block, when given, is one: checks count its addresses and
// carve it into blocks.
func (v *validator) cidr(source string, at loc, field, c string) bool {
	if c == "" {
		return true
	}
	if _, err := netip.ParsePrefix(c); err != nil {
		return v.fail(source, fmt.Sprintf("%s is %q: not a CIDR block such as 10.0.0.0/24", v.text(at, field), clip(c, 64)))
	}
	return true
}

// ptr checks an optional count: 0 to hi when set. In a live run one out of range is unset.
func (v *validator) ptr(source string, at loc, field string, n **int32, hi int64) bool {
	if *n == nil || v.num(source, at, field, int64(**n), 0, hi) {
		return true
	}
	*n = nil
	return false
}

// quantities checks the counted resources of a resource list (pods and the VPC resource
// controller's vpc.amazonaws.com/*): whole numbers from 0 to maxCount. In a live run one out
// of range is removed from the list, as if the object did not say.
func (v *validator) quantities(source string, at loc, field string, list corev1.ResourceList) {
	for name, q := range list {
		if counted(string(name)) && !v.count(source, at, field, string(name), q) {
			delete(list, name)
		}
	}
}

// quantityStrings is quantities for quantities kept as strings; one that does not parse is
// refused (left out in a live run) too.
func (v *validator) quantityStrings(source string, at loc, field string, list map[string]string) {
	for name, text := range list {
		if !counted(name) {
			continue
		}
		q, err := resource.ParseQuantity(strings.TrimSpace(text))
		if err != nil {
			if !v.fail(source, fmt.Sprintf("%s.%s: %q is not a quantity", v.text(at, field), name, clip(text, 64))) {
				delete(list, name)
			}
			continue
		}
		if !v.count(source, at, field, name, q) {
			delete(list, name)
		}
	}
}

// count checks that q, the quantity name of field at, is a whole number from 0 to maxCount.
func (v *validator) count(source string, at loc, field, name string, q resource.Quantity) bool {
	n, ok := q.AsInt64()
	if !ok || n < 0 || n > maxCount {
		return v.fail(source, fmt.Sprintf("%s.%s: %s is out of range (0 to %d)", v.text(at, field), name, clip(q.String(), 64), maxCount))
	}
	return true
}

// counted reports whether a resource name is one of the counts checks compute with.
func counted(name string) bool {
	return name == string(corev1.ResourcePods) || strings.HasPrefix(name, "vpc.amazonaws.com/")
}
