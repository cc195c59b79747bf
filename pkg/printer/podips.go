package printer

import (
	"strconv"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// PodIPs is a node's pods against the pod addresses that can back them: the figure its sheet's
// capacity section shows and its findings compare with, which the terminal UI's PODS/IPS
// column and sort read too. On a node whose pods take addresses from Cilium's ENI IPAM it is
// Cilium's pod IPs (the addresses Cilium can give less its router and health endpoint, as
// cilium-max-pods-exceeds-ip-capacity says); elsewhere the IP capacity of the VPC CNI's
// formula (Karpenter's max pods: the ENIs' addresses, plus the host-network pods that take
// none), which EKS Auto Mode's nodes only estimate.
type PodIPs struct {
	// Pods is the node's status.capacity.pods.
	Pods int64
	// IPs is the figure; Known is false when it cannot be computed (Cilium without the instance
	// type's limits or a usable first interface index).
	IPs   int64
	Known bool
	// Estimate marks karpnet's estimate of EKS Auto Mode's unpublished formula; Windows a
	// Windows node's vpc.amazonaws.com/PrivateIPv4Address; IPv6 a node whose pods take
	// addresses of a /80 prefix, with no IPv4 ceiling.
	Estimate, Windows, IPv6 bool
	// Label names the figure as the sheet does: "Pod IPs" (Cilium) or "IP capacity".
	Label string
}

// NodePodIPs returns n's pods and pod IPs; false when neither its capacity nor its Cilium IPAM
// is known.
func NodePodIPs(n diagnose.NodeReport) (PodIPs, bool) {
	if c := n.Cilium; c != nil {
		return PodIPs{Pods: c.Pods, IPs: c.PodIPs, Known: c.Formula != "", Label: "Pod IPs"}, true
	}
	c := n.Capacity
	if c == nil {
		return PodIPs{}, false
	}
	return PodIPs{Pods: c.Pods, IPs: c.IPCapacity, Known: true, Estimate: c.Estimate, Windows: c.Windows,
		IPv6: c.IPFamily == diagnose.IPv6, Label: "IP capacity"}, true
}

// Ceiling reports whether p is a known IPv4 ceiling the pods can be held against.
func (p PodIPs) Ceiling() bool { return p.Known && p.IPs > 0 && !p.IPv6 }

// Cell renders p as the PODS/IPS column does: "29/16", "~" before an estimate, "w" after a
// Windows node's figure, "v6" for an IPv6 node's /80, "?" for an unknown figure.
func (p PodIPs) Cell() string {
	ips := strconv.FormatInt(p.IPs, 10)
	switch {
	case !p.Known:
		ips = "?"
	case p.Estimate:
		ips = "~" + ips
	case p.IPv6 && p.IPs > 0:
		ips = "v6" // a /80 prefix: no IP ceiling
	case p.Windows:
		ips += "w" // vpc.amazonaws.com/PrivateIPv4Address
	}
	return strconv.FormatInt(p.Pods, 10) + "/" + ips
}
