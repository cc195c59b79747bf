package diagnose

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specNetworkACLBlocksNodeTraffic = &Spec{
	ID:       "network-acl-blocks-node-traffic",
	Severity: Critical,
	Family:   FamilyJoin,
	Needs:    []string{snapshot.SourceDescribeNetworkAcls},
	Examines: []string{SubjectSubnet},
	Title:    "a node subnet's network ACL denies outbound 443 or its return traffic",
	FiresWhen: "the subnet's network ACL (its association, else the VPC's default ACL), read in rule-number order, " +
		"denies outbound TCP 443 to the peers of the subnet's way out, or inbound TCP from them on some of the " +
		"ephemeral ports replies come back to (Linux 32768-60999; Windows 49152-65535 for Windows nodes and " +
		"NodeClasses). Through an internet or NAT gateway the peers are the internet: only an entry whose CIDR is " +
		"`0.0.0.0/0` or a public range of /8 or wider counts, so an allow of the VPC CIDR or an RFC 1918 range does " +
		"not admit it and a narrow deny (a /24 blocklist) does not block it. Through VPC endpoints the peers are the " +
		"subnets of the interface endpoints: an allow overlapping one counts, a deny holding all of it. The message " +
		"says which direction is dropped, on which ports, by which rule (`*` is the implicit last rule), and which " +
		"allow rules did not cover the peer. The network ACL of the subnet a NAT gateway sits in is " +
		"subnet-no-egress-route's: it makes the NAT gateway no way out",
	NotOn: "subnets whose network ACL was not read; the default ACL (allow all); an ACL allowing TCP 443 out and " +
		"TCP 1024-65535 in from `0.0.0.0/0` plus all within the VPC; an ACL allowing only the VPC when the VPC " +
		"endpoints are the way out; ways out karpnet cannot follow (transit gateway, appliance, firewall endpoint: " +
		"judged leniently, any allow counts and only a `0.0.0.0/0` deny blocks); the S3 gateway endpoint's prefix " +
		"list; IPv6 entries; DNS to the Route 53 Resolver and NTP to 169.254.169.123, which network ACLs do not " +
		"filter",
	Why: "network ACLs are stateless: replies to a node's HTTPS requests need their own inbound rule, and " +
		"without either direction the node never reaches the EKS API, ECR, STS or EC2 and never registers",
	Remedy: "allow TCP 443 out and TCP 1024-65535 in before the denying rules (`aws ec2 create-network-acl-entry`)",
	Scope:  "allow entries added to the subnet's network ACL, each numbered just below the rule that denies its traffic and above none it must not pass, for TCP 443 out and the replies in on 1024-65535 from the way out's peers only (the internet, or the endpoints' subnets); the ACL filters every subnet associated with it, which the Affects names",
	Sources: []string{
		"https://docs.aws.amazon.com/vpc/latest/userguide/vpc-network-acls.html (rule order, stateless)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/nacl-basics.html (evaluated as traffic enters and leaves the subnet; Amazon DNS, instance metadata and Amazon Time Sync traffic is not filtered)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/nacl-ephemeral-ports.html (Linux 32768-60999, Windows 49152-65535)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/default-network-acl.html",
		"https://docs.aws.amazon.com/vpc/latest/userguide/custom-network-acl.html (inbound return traffic from 0.0.0.0/0 for requests that originate in the subnet)",
		"kubernetes-sigs/karpenter designs/degraded-nodepools.md (\"network access control lists, subnets, route tables\")",
	},
	Verified: []Verified{
		{UpstreamAWSDocs, "https://docs.aws.amazon.com/vpc/latest/userguide/nacl-ephemeral-ports.html",
			"an instance that initiates a request needs an inbound rule for its own ephemeral ports: Linux kernels 32768-61000, Windows Server 2008 and later 49152-65535; 1024-65535 covers every client"},
		{UpstreamAWSDocs, "https://docs.aws.amazon.com/vpc/latest/userguide/nacl-basics.html",
			"network ACLs are stateless (replies need their own rule), evaluated lowest rule number first as traffic enters and leaves the subnet, not as it is routed within it; a subnet without an association has the default ACL"},
		{UpstreamAWSDocs, "https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html (Restricting cluster traffic)",
			"nodes need outbound TCP 443 and internet access (or the private cluster endpoints) for the EKS APIs and node registration at launch"},
	},
}

// networkACLBlocksNodeTraffic finds the subnets nodes run in or launch into whose network ACL
// denies a node's HTTPS traffic with the peers of its way out (the internet through an
// internet or NAT gateway, the endpoints' subnets through VPC endpoints): outbound TCP 443, or
// the replies coming back to the ephemeral ports (Linux 32768-60999, Windows 49152-65535).
// Network ACLs are stateless, so the return traffic needs its own inbound rule from the same
// peers; an ACL that admits everything from the VPC CIDR but nothing from the internet drops
// every reply that comes back through a NAT gateway, and the node never joins.
var networkACLBlocksNodeTraffic = Check{
	Spec: specNetworkACLBlocksNodeTraffic,
	Run: func(x *Index) []Finding {
		type group struct {
			subnet, acl, reason string
			users               []string
			fixes               []Command
			missing             []string
		}
		groups := map[string]*group{}
		var order []string
		for _, s := range pathSubjects(x) {
			w := x.net.Decide(s.subnet, s.pub, s.windows)
			id, verdict, reason := x.net.NACL(s.subnet, s.windows, &w)
			if verdict != wayout.NACLBlocks {
				continue
			}
			key := s.subnet.ID + "\x00" + reason
			g := groups[key]
			if g == nil {
				g = &group{subnet: s.subnet.ID, acl: id, reason: reason}
				_, changes, missing := x.net.NACLFix(s.subnet, s.windows, &w)
				g.fixes, g.missing = wayOutCommands(x, changes), missing
				groups[key] = g
				order = append(order, key)
			}
			g.users = append(g.users, s.label)
		}
		var out []Finding
		for _, key := range order {
			g := groups[key]
			remedy := "allow the traffic in network ACL " + g.acl + " with entries numbered below the denying rules " +
				"(the commands: TCP 443 out, and the replies in on 1024-65535, the ephemeral ports of every client)"
			if len(g.missing) > 0 {
				remedy += "; renumber the ACL's entries to make room for " + strings.Join(g.missing, " and ")
			}
			out = append(out, Finding{
				Resource: subnetRef(g.subnet),
				Message: fmt.Sprintf("network ACL %s of subnet %s blocks the nodes' HTTPS traffic (stateless: replies need "+
					"their own inbound rule): %s; used by %s", g.acl, g.subnet, g.reason, abbreviate(sortedUnique(g.users), 5)),
				Remedy:   remedy,
				Commands: g.fixes,
			})
		}
		return out
	},
}
