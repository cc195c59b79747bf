package diagnose

import (
	"fmt"
	"net/netip"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// internalIPOutsideSubnet finds nodes whose first InternalIP is not in the CIDR of their
// instance's subnet. On EKS kubelet reports the primary ENI's IP, which always lies in the
// launch subnet; anything else means a stale Node object reused by another instance, a kubelet
// --node-ip override, or a wrong subnet association, and the API server cannot reach kubelet.
var internalIPOutsideSubnet = Check{
	ID:       "internal-ip-outside-subnet",
	Severity: Critical,
	Title:    "the node's InternalIP is outside its instance's subnet",
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Instance == nil || n.Subnet == nil {
				continue
			}
			ip, ok := firstInternalIPv4(n)
			if !ok {
				continue
			}
			prefix, err := netip.ParsePrefix(n.Subnet.CIDR)
			if err != nil || !prefix.Addr().Is4() || prefix.Contains(ip) {
				continue
			}
			out = append(out, Finding{
				ID:       "internal-ip-outside-subnet",
				Severity: Critical,
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("InternalIP %s is outside %s (%s) of instance %s",
					ip, n.Subnet.ID, n.Subnet.CIDR, n.Instance.ID),
				Remedy: "kubelet must report the primary ENI's IP: remove any --node-ip override (nodeadm NodeConfig " +
					"spec.kubelet.flags or user data) and replace the node; a Node reused by another instance must be deleted",
			})
		}
		return out
	},
}

// internalIPNotInstanceIP finds nodes whose first InternalIP belongs to none of their instance's
// ENIs. The API server, metrics-server and webhooks dial kubelet on that address; on EKS it
// then lands on another host or nowhere.
var internalIPNotInstanceIP = Check{
	ID:       "internal-ip-not-instance-ip",
	Severity: Critical,
	Title:    "the node's InternalIP is not an IP of its instance",
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Instance == nil {
				continue
			}
			ip, ok := firstInternalIPv4(n)
			if !ok {
				continue
			}
			ips := instanceIPs(n.Instance)
			if len(ips) == 0 || ips[ip] {
				continue
			}
			primary := primaryIP(n.Instance)
			if primary == "" {
				primary = "unknown"
			}
			out = append(out, Finding{
				ID:       "internal-ip-not-instance-ip",
				Severity: Critical,
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("InternalIP %s is none of the %d private IPs of instance %s (primary %s)",
					ip, len(ips), n.Instance.ID, primary),
				Remedy: fmt.Sprintf("kubelet must report the instance's primary IP: remove any --node-ip override and "+
					"replace the node, or delete the stale Node (kubectl delete node %s) if another instance took its name", n.Name()),
			})
		}
		return out
	},
}

// firstInternalIPv4 returns the node's first InternalIP when it is an IPv4 address. IPv6 node
// addresses are not compared, as karpnet keeps only the IPv4 side of subnets and ENIs.
func firstInternalIPv4(n *NodeInfo) (netip.Addr, bool) {
	ips := n.InternalIPs()
	if len(ips) == 0 {
		return netip.Addr{}, false
	}
	ip, err := netip.ParseAddr(ips[0])
	if err != nil || !ip.Is4() {
		return netip.Addr{}, false
	}
	return ip, true
}

// instanceIPs returns every private IPv4 address of the instance and its ENIs.
func instanceIPs(in *snapshot.Instance) map[netip.Addr]bool {
	ips := map[netip.Addr]bool{}
	add := func(s string) {
		if ip, err := netip.ParseAddr(s); err == nil {
			ips[ip] = true
		}
	}
	add(in.PrivateIP)
	for _, e := range in.ENIs {
		add(e.PrimaryIP)
		for _, s := range e.PrivateIPs {
			add(s)
		}
	}
	return ips
}

// primaryIP returns the instance's primary private IP: PrivateIP, else the primary IP of the
// ENI on card 0, device 0.
func primaryIP(in *snapshot.Instance) string {
	if in.PrivateIP != "" {
		return in.PrivateIP
	}
	for _, e := range in.ENIs {
		if e.NetworkCardIndex == 0 && e.DeviceIndex == 0 {
			return e.PrimaryIP
		}
	}
	return ""
}
