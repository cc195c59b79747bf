package wayout

import (
	"fmt"
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

func (d deniedPorts) String() string { return d.ports() + " by rule " + d.rule }

// ports is the range as "443" or "1024-65535".
func (d deniedPorts) ports() string {
	ports := strconv.Itoa(int(d.from))
	if d.to != d.from {
		ports += "-" + strconv.Itoa(int(d.to))
	}
	return ports
}

// aclDenied evaluates a network ACL's IPv4 entries of one direction in rule-number order for
// TCP on ports lo..hi exchanged with peer, and returns the ports denied and the allow entries
// passed over because their CIDR does not hold the peer (for messages). Which entries match the
// peer is aclPeer's to say.
func aclDenied(acl *snapshot.NetworkACL, egress bool, lo, hi int32, peer aclPeer) (denied []deniedPorts, passed []snapshot.ACLEntry) {
	var entries []snapshot.ACLEntry
	for _, e := range acl.Entries {
		if e.Egress == egress && e.CIDR != "" && tcpProtocol(e.Protocol) {
			entries = append(entries, e)
		}
	}
	slices.SortStableFunc(entries, func(a, b snapshot.ACLEntry) int { return int(a.RuleNumber) - int(b.RuleNumber) })
	open := []deniedPorts{{from: lo, to: hi}}
	for _, e := range entries {
		from, to := entryPorts(e)
		allow := strings.EqualFold(e.Action, snapshot.ACLAllow)
		if !peer.matches(e.CIDR, allow) {
			if allow && overlapsAny(open, from, to) {
				passed = append(passed, e)
			}
			continue
		}
		var rest []deniedPorts
		for _, r := range open {
			a, b := max(r.from, from), min(r.to, to)
			if a > b {
				rest = append(rest, r)
				continue
			}
			if !allow {
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
	return denied, passed
}

// entryPorts returns the TCP ports an ACL entry covers: all of them for all traffic or a
// range left zero.
func entryPorts(e snapshot.ACLEntry) (from, to int32) {
	if e.Protocol == "-1" || e.FromPort == 0 && e.ToPort == 0 {
		return 0, 65535
	}
	return e.FromPort, e.ToPort
}

// overlapsAny reports whether from..to overlaps one of the ranges.
func overlapsAny(ranges []deniedPorts, from, to int32) bool {
	return slices.ContainsFunc(ranges, func(r deniedPorts) bool { return max(r.from, from) <= min(r.to, to) })
}

// tcpProtocol reports whether a network ACL protocol matches TCP: all traffic, or 6.
func tcpProtocol(p string) bool {
	return p == "-1" || p == "6" || strings.EqualFold(p, "tcp") || strings.EqualFold(p, "all")
}

// NACL evaluates the subnet's network ACL for a node's HTTPS traffic along its way
// out w: outbound TCP 443 to the peers the traffic goes to, and the inbound replies from them
// on the ephemeral ports (windows picks Windows' range). It returns the ACL's ID, the verdict
// and, when it blocks, which rule drops which direction.
func (n *Net) NACL(subnet *snapshot.Subnet, windows bool, w *WayOut) (id, verdict, reason string) {
	if n.s.Unavailable(snapshot.SourceDescribeNetworkAcls) {
		return "", NACLUnknown, "the network ACLs were not read"
	}
	acl := n.NetworkACL(subnet.ID, subnet.VpcID)
	if acl == nil {
		return "", NACLUnknown, "no network ACL of the subnet's VPC was read"
	}
	lo, hi, os := int32(linuxEphemeralFrom), int32(linuxEphemeralTo), "Linux"
	if windows {
		lo, hi, os = windowsEphemeralFrom, windowsEphemeralTo, "Windows"
	}
	var problems []string
	for _, peer := range n.aclPeers(subnet, w) {
		if out, passed := aclDenied(acl, true, 443, 443, peer); len(out) > 0 {
			problems = append(problems, fmt.Sprintf("outbound TCP 443 to %s denied by rule %s%s", peer.name, out[0].rule,
				passedText(passed, "to")))
		}
		if in, passed := aclDenied(acl, false, lo, hi, peer); len(in) > 0 {
			problems = append(problems, fmt.Sprintf("inbound TCP replies from %s to the %s ephemeral ports %d-%d denied "+
				"on %s%s", peer.name, os, lo, hi, deniedText(in), passedText(passed, "from")))
		}
	}
	if len(problems) == 0 {
		return acl.ID, NACLAllows, ""
	}
	return acl.ID, NACLBlocks, strings.Join(problems, "; ")
}

// deniedText lists denied port ranges with their rules.
func deniedText(denied []deniedPorts) string {
	parts := make([]string, len(denied))
	for i, d := range denied {
		parts[i] = d.String()
	}
	return strings.Join(parts, ", ")
}

// passedText says which allow entries matched the ports but not the peer, e.g. " (rule 100
// allows all only from 10.0.0.0/16)"; dir is "to" or "from". At most three are named.
func passedText(passed []snapshot.ACLEntry, dir string) string {
	if len(passed) == 0 {
		return ""
	}
	var parts []string
	for i, e := range passed {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more", len(passed)-3))
			break
		}
		what := "all"
		if e.Protocol != "-1" {
			what = "TCP"
			if from, to := entryPorts(e); from != 0 || to != 65535 {
				what += " " + deniedPorts{from: from, to: to}.ports()
			}
		}
		parts = append(parts, fmt.Sprintf("rule %d allows %s only %s %s", e.RuleNumber, what, dir, e.CIDR))
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
