package diagnose

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Return ports of a node's outbound connections: the Linux ephemeral range
// (net.ipv4.ip_local_port_range on Amazon Linux and Bottlerocket) and Windows' dynamic range.
// A stateless network ACL must let replies in on them.
const (
	linuxEphemeralFrom   = 32768
	linuxEphemeralTo     = 60999
	windowsEphemeralFrom = 49152
	windowsEphemeralTo   = 65535
)

// NACL verdicts of a WayOut.
const (
	NACLAllows  = "allows"
	NACLBlocks  = "blocks"
	NACLUnknown = "unknown"
)

// deniedPorts is a range of ports a network ACL denies and the rule that denies it ("*" for
// the implicit last rule).
type deniedPorts struct {
	from, to int32
	rule     string
}

func (d deniedPorts) String() string {
	ports := strconv.Itoa(int(d.from))
	if d.to != d.from {
		ports += "-" + strconv.Itoa(int(d.to))
	}
	return ports + " by rule " + d.rule
}

// aclDenied evaluates a network ACL's IPv4 entries of one direction in rule-number order for
// TCP on ports lo..hi from or to anywhere, and returns the ports denied. It is lenient: an
// allow entry counts whatever its CIDR (some destination is let through), a deny entry only
// when its CIDR is 0.0.0.0/0.
func aclDenied(acl *snapshot.NetworkACL, egress bool, lo, hi int32) []deniedPorts {
	var entries []snapshot.ACLEntry
	for _, e := range acl.Entries {
		if e.Egress == egress && e.CIDR != "" && tcpProtocol(e.Protocol) {
			entries = append(entries, e)
		}
	}
	slices.SortStableFunc(entries, func(a, b snapshot.ACLEntry) int { return int(a.RuleNumber) - int(b.RuleNumber) })
	open := []deniedPorts{{from: lo, to: hi}}
	var denied []deniedPorts
	for _, e := range entries {
		from, to := e.FromPort, e.ToPort
		if e.Protocol == "-1" || from == 0 && to == 0 {
			from, to = 0, 65535
		}
		all := isAnywhere(e.CIDR)
		if strings.EqualFold(e.Action, snapshot.ACLDeny) && !all {
			continue
		}
		var rest []deniedPorts
		for _, r := range open {
			a, b := max(r.from, from), min(r.to, to)
			if a > b {
				rest = append(rest, r)
				continue
			}
			if !strings.EqualFold(e.Action, snapshot.ACLAllow) {
				denied = append(denied, deniedPorts{a, b, strconv.Itoa(int(e.RuleNumber))})
			}
			if r.from < a {
				rest = append(rest, deniedPorts{from: r.from, to: a - 1})
			}
			if b < r.to {
				rest = append(rest, deniedPorts{from: b + 1, to: r.to})
			}
		}
		open = rest
	}
	for _, r := range open {
		denied = append(denied, deniedPorts{r.from, r.to, "*"})
	}
	slices.SortFunc(denied, func(a, b deniedPorts) int { return int(a.from) - int(b.from) })
	return denied
}

// tcpProtocol reports whether a network ACL protocol matches TCP: all traffic, or 6.
func tcpProtocol(p string) bool {
	return p == "-1" || p == "6" || strings.EqualFold(p, "tcp") || strings.EqualFold(p, "all")
}

// isAnywhere reports whether cidr is 0.0.0.0/0 (or written another way with prefix length 0).
func isAnywhere(cidr string) bool {
	p, err := netip.ParsePrefix(cidr)
	return err == nil && p.Bits() == 0
}

// naclVerdict evaluates the subnet's network ACL for a node's HTTPS traffic: outbound TCP 443
// and the inbound replies on the ephemeral ports (windows picks Windows' range). It returns
// the ACL's ID, the verdict and, when it blocks, what it denies.
func naclVerdict(x *Index, subnet *snapshot.Subnet, windows bool) (id, verdict, reason string) {
	if x.Unavailable(snapshot.SourceDescribeNetworkAcls) {
		return "", NACLUnknown, "the network ACLs were not read"
	}
	acl := x.net.networkACL(subnet.ID, subnet.VpcID)
	if acl == nil {
		return "", NACLUnknown, "no network ACL of the subnet's VPC was read"
	}
	var problems []string
	if out := aclDenied(acl, true, 443, 443); len(out) > 0 {
		problems = append(problems, "outbound TCP 443 to 0.0.0.0/0 denied by rule "+out[0].rule)
	}
	lo, hi, os := int32(linuxEphemeralFrom), int32(linuxEphemeralTo), "Linux"
	if windows {
		lo, hi, os = windowsEphemeralFrom, windowsEphemeralTo, "Windows"
	}
	if in := aclDenied(acl, false, lo, hi); len(in) > 0 {
		var parts []string
		for _, d := range in {
			parts = append(parts, d.String())
		}
		problems = append(problems, fmt.Sprintf("inbound TCP return traffic from 0.0.0.0/0 on the %s ephemeral "+
			"ports %d-%d denied on %s", os, lo, hi, strings.Join(parts, ", ")))
	}
	if len(problems) == 0 {
		return acl.ID, NACLAllows, ""
	}
	return acl.ID, NACLBlocks, strings.Join(problems, "; ")
}
