package printer

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// CiliumIPAMHeader heads the Cilium IPAM section of a node sheet, in place of the VPC CNI's
// "Pod capacity".
const CiliumIPAMHeader = "Cilium IPAM (ENI mode)"

// ciliumIPAM writes the Cilium IPAM section of a node whose pods take addresses of ENIs
// Cilium attaches, in place of the VPC CNI's pod capacity; found says which checks fired on
// the node, to mark the pod count Cilium cannot address.
func ciliumIPAM(t *text, c *diagnose.CiliumReport, ips PodIPs, found map[string]bool) {
	t.header(CiliumIPAMHeader)
	first := "unset (the operator gives the node no address)"
	if c.FirstInterfaceIndex != nil {
		first = strconv.Itoa(int(*c.FirstInterfaceIndex))
	}
	if c.FirstInterfaceIndexProblem != "" {
		first = t.offending(first) + " (" + c.FirstInterfaceIndexProblem + ": nothing is computed from it)"
	}
	pods := strconv.FormatInt(c.Pods, 10)
	if found["cilium-max-pods-exceeds-ip-capacity"] {
		pods = t.offending(pods)
	}
	pairs := []kv{
		{"CiliumNode", c.CiliumNode},
		{"First interface index", first},
		{"Subnets", ciliumSelection(c.SubnetIDs, c.SubnetTags, "the node's own")},
		{"Security groups", ciliumSelection(c.SecurityGroups, c.SecurityGroupTags, "the primary interface's")},
		{"Prefix delegation", yesNo(c.PrefixDelegation)},
	}
	if ips.Known {
		hostNet := fmt.Sprintf("%d (%s)", c.HostNetworkPods, strings.Join(c.HostNetwork, ", "))
		switch {
		case len(c.HostNetwork) == 0 && c.HostNetworkPods > 0:
			hostNet = fmt.Sprintf("%d (assumed, as Karpenter's formula does: the DaemonSets were not listed)", c.HostNetworkPods)
		case len(c.HostNetwork) == 0:
			hostNet = "0"
		}
		pairs = append(pairs, kv{"capacity.pods", pods}, kv{ips.Label, strconv.FormatInt(ips.IPs, 10)},
			kv{"Host-network pods", hostNet}, kv{"Formula", c.Formula})
	} else {
		pairs = append(pairs, kv{ips.Label, "unknown (no instance type limits or usable interface index)"})
	}
	if c.OperatorError != "" {
		pairs = append(pairs, kv{"Operator error", t.offending(c.OperatorError)})
	}
	t.kvs(indent, pairs)
	if len(c.ENIs) == 0 {
		t.para(indent, "no interface in the CiliumNode's status yet")
		return
	}
	iw := 0
	for _, e := range c.ENIs {
		iw = max(iw, width(e.ID))
	}
	for _, e := range c.ENIs {
		use := "not for pods (below the first interface index)"
		switch {
		case e.Excluded:
			use = "not for pods (exclude-interface-tags)"
		case c.FirstInterfaceIndexProblem != "":
			use = fmt.Sprintf("%d addresses, %d prefixes (whether for pods is unknown: the first interface index is out of range)",
				e.Addresses, e.Prefixes)
		case e.Managed:
			use = fmt.Sprintf("%d addresses, %d prefixes", e.Addresses, e.Prefixes)
		}
		t.hanging(indent, pad(t.st.Strong.Render(e.ID), iw)+"  ",
			fmt.Sprintf("device %d  %s  %s  %s", e.Device, orUnknown(e.Subnet), orNone(strings.Join(e.SecurityGroups, ", ")), use))
	}
}

// ciliumSelection writes how a CiliumNode selects subnets or security groups.
func ciliumSelection(ids []string, tags map[string]string, otherwise string) string {
	var parts []string
	if len(ids) > 0 {
		parts = append(parts, strings.Join(ids, ", "))
	}
	if len(tags) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			kv = append(kv, k+"="+tags[k])
		}
		parts = append(parts, "tagged "+strings.Join(kv, ", "))
	}
	if len(parts) == 0 {
		return "not set (" + otherwise + ")"
	}
	return strings.Join(parts, "; ")
}
