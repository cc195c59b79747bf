package diagnose

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specInternalIPOutsideSubnet = &Spec{
	ID:        "internal-ip-outside-subnet",
	Severity:  Critical,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "the node's InternalIP is outside its instance's subnet",
	FiresWhen: "the first InternalIP is not in the instance subnet's CIDR",
	NotOn: "pod addresses (only the first InternalIP of each family is compared); an IPv6 address when the " +
		"subnet's IPv6 CIDRs are unknown",
	Why:    "the node advertises an address that the VPC does not route to it",
	Remedy: "remove `--node-ip` overrides; replace the node",
	Sources: []string{
		"kubernetes/cloud-provider-aws pkg/providers/v1/aws.go (extractIPv4NodeAddresses)",
		"awslabs/amazon-eks-ami nodeadm/internal/kubelet/config.go (withNodeIp)",
	},
	Verified: []Verified{
		{UpstreamEC2API, "types/types.go (Instance.SubnetId, Instance.PrivateIpAddress)",
			"An instance has one subnet (its primary interface's) and a primary private IPv4 address from it."},
		{UpstreamEC2API, "types/types.go (Subnet.CidrBlock, Subnet.Ipv6CidrBlockAssociationSet)",
			"A subnet's IPv4 range is CidrBlock; its IPv6 ranges are the associations of Ipv6CidrBlockAssociationSet."},
	},
}

// internalIPOutsideSubnet finds nodes whose first InternalIP of a family is not in a CIDR of
// their instance's subnet of that family. On EKS kubelet reports the primary ENI's IP, which
// always lies in the launch subnet; anything else means a stale Node object reused by another
// instance, a kubelet --node-ip override, or a wrong subnet association, and the API server
// cannot reach kubelet. Dual-stack nodes are checked per family; an IPv6 address is compared
// only when the subnet's IPv6 CIDRs are known.
var internalIPOutsideSubnet = Check{
	Spec: specInternalIPOutsideSubnet,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Instance == nil || n.Subnet == nil {
				continue
			}
			for _, ip := range firstInternalIPs(n) {
				cidrs := subnetCIDRs(n.Subnet, ip.Is6())
				if len(cidrs) == 0 || slices.ContainsFunc(cidrs, func(p netip.Prefix) bool { return p.Contains(ip) }) {
					continue
				}
				var texts []string
				for _, p := range cidrs {
					texts = append(texts, p.String())
				}
				out = append(out, Finding{
					Node:     n.Name(),
					Resource: nodeRef(n.Name()),
					Message: fmt.Sprintf("InternalIP %s is outside %s (%s) of instance %s",
						ip, n.Subnet.ID, strings.Join(texts, ", "), n.Instance.ID),
					Remedy: "kubelet must report the primary ENI's IP: remove any --node-ip override (nodeadm NodeConfig " +
						"spec.kubelet.flags or user data), then " + replaceNodeProse(n, "") + "; a Node reused by another instance must be deleted",
					Commands: replaceNodeCommands(n),
				})
			}
		}
		return out
	},
}

var specInternalIPNotInstanceIP = &Spec{
	ID:        "internal-ip-not-instance-ip",
	Severity:  Critical,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "the node's InternalIP is not an IP of its instance",
	FiresWhen: "the first InternalIP is not a private IP of the instance's ENIs",
	NotOn:     "an IPv6 address when the instance's ENIs have none recorded",
	Why:       "API server to kubelet traffic (logs, exec, metrics) goes to the wrong host",
	Remedy:    "remove `--node-ip` overrides, or delete a stale Node reused by another instance",
	Sources: []string{
		"kubernetes/cloud-provider-aws pkg/providers/v1/aws.go (extractIPv4NodeAddresses)",
		"awslabs/amazon-eks-ami nodeadm/internal/kubelet/config.go (withNodeIp)",
	},
	Verified: []Verified{
		{UpstreamEC2API, "types/types.go (Instance.NetworkInterfaces, InstanceNetworkInterface.PrivateIpAddresses, Ipv6Addresses)",
			"An instance's addresses are the PrivateIpAddresses and Ipv6Addresses of its attached interfaces."},
	},
}

// internalIPNotInstanceIP finds nodes whose first InternalIP of a family belongs to none of
// their instance's ENIs. The API server, metrics-server and webhooks dial kubelet on that
// address; on EKS it then lands on another host or nowhere. An IPv6 address is compared only
// when the instance's ENIs have IPv6 addresses.
var internalIPNotInstanceIP = Check{
	Spec: specInternalIPNotInstanceIP,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Instance == nil {
				continue
			}
			for _, ip := range firstInternalIPs(n) {
				if has, family := instanceHasIP(n.Instance, ip); has || !family {
					continue
				}
				ips := instanceIPs(n.Instance, ip.Is6())
				family, primary := "private IPs", primaryIP(n.Instance)
				if ip.Is6() {
					family, primary = "IPv6 addresses", primaryIPv6(n.Instance)
				}
				out = append(out, Finding{
					Node:     n.Name(),
					Resource: nodeRef(n.Name()),
					Message: fmt.Sprintf("InternalIP %s is none of the %d %s of instance %s (primary %s)",
						ip, len(ips), family, n.Instance.ID, cmp.Or(primary, "unknown")),
					Remedy: fmt.Sprintf("kubelet must report the instance's primary IP: remove any --node-ip override, then %s; "+
						"or delete the stale Node %s if another instance took its name", replaceNodeProse(n, ""), n.Name()),
					Commands: replaceNodeCommands(n),
				})
			}
		}
		return out
	},
}

// firstInternalIPs returns the node's first InternalIP of each family, IPv4 first.
func firstInternalIPs(n *NodeInfo) []netip.Addr {
	var v4, v6 netip.Addr
	for _, s := range n.InternalIPs() {
		ip, err := netip.ParseAddr(s)
		switch {
		case err != nil:
		case ip.Is4() || ip.Is4In6():
			if !v4.IsValid() {
				v4 = ip.Unmap()
			}
		case !v6.IsValid():
			v6 = ip
		}
	}
	var out []netip.Addr
	for _, ip := range []netip.Addr{v4, v6} {
		if ip.IsValid() {
			out = append(out, ip)
		}
	}
	return out
}

// subnetCIDRs returns the subnet's CIDRs of one family that parse.
func subnetCIDRs(s *snapshot.Subnet, v6 bool) []netip.Prefix {
	texts := []string{s.CIDR}
	if v6 {
		texts = s.IPv6CIDRs
	}
	var out []netip.Prefix
	for _, t := range texts {
		if p, err := netip.ParsePrefix(t); err == nil && p.Addr().Is6() == v6 {
			out = append(out, p)
		}
	}
	return out
}

// instanceIPs returns every private address of one family of the instance and its ENIs.
func instanceIPs(in *snapshot.Instance, v6 bool) map[netip.Addr]bool {
	ips := map[netip.Addr]bool{}
	eachInstanceIP(in, func(ip netip.Addr) bool {
		if ip.Is6() == v6 {
			ips[ip] = true
		}
		return true
	})
	return ips
}

// instanceHasIP reports whether ip is one of the instance's addresses (as instanceIPs has
// them), and whether it has any address of ip's family; it builds nothing, for the check of every node.
func instanceHasIP(in *snapshot.Instance, ip netip.Addr) (has, family bool) {
	eachInstanceIP(in, func(a netip.Addr) bool {
		if a.Is6() == ip.Is6() {
			family = true
			has = a == ip
		}
		return !has
	})
	return has, family
}

// eachInstanceIP calls f with each address of the instance that parses (the private IP, and
// each ENI's primary, private and IPv6 addresses) until f returns false.
func eachInstanceIP(in *snapshot.Instance, f func(netip.Addr) bool) {
	visit := func(s string) bool {
		ip, err := netip.ParseAddr(s)
		return err != nil || f(ip)
	}
	if !visit(in.PrivateIP) {
		return
	}
	for _, e := range in.ENIs {
		if !visit(e.PrimaryIP) {
			return
		}
		for _, s := range e.PrivateIPs {
			if !visit(s) {
				return
			}
		}
		for _, s := range e.IPv6Addresses {
			if !visit(s) {
				return
			}
		}
	}
}

// primaryIP returns the instance's primary private IP: PrivateIP, else the primary IP of the
// ENI on card 0, device 0.
func primaryIP(in *snapshot.Instance) string {
	if in.PrivateIP != "" {
		return in.PrivateIP
	}
	if e := primaryENI(in); e != nil {
		return e.PrimaryIP
	}
	return ""
}

// primaryIPv6 returns the first IPv6 address of the instance's primary ENI, or "".
func primaryIPv6(in *snapshot.Instance) string {
	if e := primaryENI(in); e != nil && len(e.IPv6Addresses) > 0 {
		return e.IPv6Addresses[0]
	}
	return ""
}

// primaryENI returns the instance's ENI on card 0, device 0, or nil.
func primaryENI(in *snapshot.Instance) *snapshot.ENI {
	for i := range in.ENIs {
		if e := &in.ENIs[i]; e.NetworkCardIndex == 0 && e.DeviceIndex == 0 {
			return e
		}
	}
	return nil
}
