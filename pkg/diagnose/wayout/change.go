package wayout

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Change is one AWS CLI command a fix of the way out runs: its argument vector and the object it
// changes. What the change reaches is Affects when the model knows it without the nodes, else
// the nodes of the subnets that use RouteTable or ACL, which the caller counts.
type Change struct {
	Argv    []string
	Changes string
	Affects string
	// RouteTable and ACL are the shared object whose subnets' nodes the change reaches; nil
	// when Affects says it, or the change reaches no running node.
	RouteTable *snapshot.RouteTable
	ACL        *snapshot.NetworkACL
}

// ACLMaxRule is the highest rule number a network ACL entry can take; the implicit last rule,
// "*", comes after it (EC2 CreateNetworkAclEntry: rule numbers 1-32766).
const ACLMaxRule = 32766

// aclEntry is one allow entry a network ACL lacks: TCP on ports from..to with cidr, in one
// direction, placed before the rules in denied.
type aclEntry struct {
	egress   bool
	from, to int32
	cidr     string
	denied   []deniedPorts
}

// aclEntryChanges are the AWS CLI commands that add entries to acl, each with a rule number no
// entry of its direction has yet and below the first rule that denies its traffic (so it
// decides first); an entry with no such number left gets no command and is named in missing.
func aclEntryChanges(acl *snapshot.NetworkACL, entries []aclEntry) (cmds []Change, missing []string) {
	taken := map[bool]map[int32]bool{false: {}, true: {}}
	for _, e := range acl.Entries {
		taken[e.Egress][e.RuleNumber] = true
	}
	for _, e := range entries {
		limit := int32(ACLMaxRule + 1)
		for _, d := range e.denied {
			if n, err := strconv.Atoi(d.rule); err == nil && int32(n) < limit {
				limit = int32(n)
			}
		}
		rule := int32(0)
		for n := limit - 1; n >= 1; n-- {
			if !taken[e.egress][n] {
				rule = n
				break
			}
		}
		dir := "--ingress"
		if e.egress {
			dir = "--egress"
		}
		ports := fmt.Sprintf("From=%d,To=%d", e.from, e.to)
		if rule == 0 {
			missing = append(missing, fmt.Sprintf("%s TCP %s %s (no rule number below %d is free)", dir[2:], ports, e.cidr, limit))
			continue
		}
		taken[e.egress][rule] = true
		cmds = append(cmds, Change{Argv: []string{"aws", "ec2", "create-network-acl-entry", "--network-acl-id", acl.ID,
			dir, "--rule-number", strconv.Itoa(int(rule)), "--protocol", "6", "--port-range", ports,
			"--cidr-block", e.cidr, "--rule-action", "allow"}, Changes: "network-acl/" + acl.ID, ACL: acl})
	}
	return cmds, missing
}

// RouteChange is the AWS CLI command that points route table t's 0.0.0.0/0 at target
// (create-route when the table has no such route, replace-route when it has one); flag is
// the target's option, e.g. --nat-gateway-id.
func RouteChange(t *snapshot.RouteTable, replace bool, flag, target string) Change {
	verb := "create-route"
	if replace {
		verb = "replace-route"
	}
	return Change{Argv: []string{"aws", "ec2", verb, "--route-table-id", t.ID, "--destination-cidr-block", "0.0.0.0/0",
		flag, target}, Changes: "route-table/" + t.ID, RouteTable: t}
}

// NACLFix is the entries that let a subnet's nodes exchange their HTTPS traffic with the peers
// of their way out w through its network ACL, as NACL judges them: TCP 443 out, and the replies
// in on 1024-65535 (every client's ephemeral ports, Linux and Windows alike). It returns the
// ACL (nil when it was not read), the changes, and the entries no rule number is left for.
func (n *Net) NACLFix(subnet *snapshot.Subnet, windows bool, w *WayOut) (*snapshot.NetworkACL, []Change, []string) {
	acl := n.NetworkACL(subnet.ID, subnet.VpcID)
	if acl == nil || n.s.Unavailable(snapshot.SourceDescribeNetworkAcls) {
		return nil, nil, nil
	}
	lo, hi := int32(linuxEphemeralFrom), int32(linuxEphemeralTo)
	if windows {
		lo, hi = windowsEphemeralFrom, windowsEphemeralTo
	}
	var entries []aclEntry
	for _, peer := range n.aclPeers(subnet, w) {
		cidr := "0.0.0.0/0"
		if peer.kind == peerCIDR {
			cidr = peer.cidr.String()
		}
		if out, _ := aclDenied(acl, true, 443, 443, peer); len(out) > 0 {
			entries = append(entries, aclEntry{egress: true, from: 443, to: 443, cidr: cidr, denied: out})
		}
		if in, _ := aclDenied(acl, false, lo, hi, peer); len(in) > 0 {
			// Placed before every rule that denies part of 1024-65535, so that the entry admits
			// the replies to Linux and Windows nodes alike, whichever of them the finding is about.
			all, _ := aclDenied(acl, false, natReplyFrom, natReplyTo, peer)
			entries = append(entries, aclEntry{from: natReplyFrom, to: natReplyTo, cidr: cidr, denied: all})
		}
	}
	cmds, missing := aclEntryChanges(acl, entries)
	return acl, cmds, missing
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sortedUnique returns the non-empty strings of ss, sorted, each once.
func sortedUnique(ss []string) []string {
	out := slices.DeleteFunc(slices.Clone(ss), func(s string) bool { return s == "" })
	slices.Sort(out)
	return slices.Compact(out)
}
