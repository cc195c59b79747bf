package diagnose

import (
	"fmt"
)

// networkACLBlocksNodeTraffic finds the subnets nodes run in or launch into whose network ACL
// denies a node's HTTPS traffic: outbound TCP 443, or the replies coming back to the
// ephemeral ports (Linux 32768-60999, Windows 49152-65535). Network ACLs are stateless, so
// the return traffic needs its own inbound rule; without either the node cannot reach the
// EKS API, ECR, STS or EC2 and never joins.
var networkACLBlocksNodeTraffic = Check{
	Spec: specNetworkACLBlocksNodeTraffic,
	Run: func(x *Index) []Finding {
		type group struct {
			subnet, acl, reason string
			users               []string
		}
		groups := map[string]*group{}
		var order []string
		for _, s := range pathSubjects(x) {
			id, verdict, reason := naclVerdict(x, s.subnet, s.windows)
			if verdict != NACLBlocks {
				continue
			}
			key := s.subnet.ID + "\x00" + reason
			g := groups[key]
			if g == nil {
				g = &group{subnet: s.subnet.ID, acl: id, reason: reason}
				groups[key] = g
				order = append(order, key)
			}
			g.users = append(g.users, s.label)
		}
		var out []Finding
		for _, key := range order {
			g := groups[key]
			out = append(out, Finding{
				Resource: subnetRef(g.subnet),
				Message: fmt.Sprintf("network ACL %s of subnet %s blocks the nodes' HTTPS traffic (stateless: replies need "+
					"their own inbound rule): %s; used by %s", g.acl, g.subnet, g.reason, abbreviate(sortedUnique(g.users), 5)),
				Remedy: fmt.Sprintf("allow it before the denying rules, e.g. `aws ec2 create-network-acl-entry "+
					"--network-acl-id %s --egress --rule-number 90 --protocol tcp --port-range From=443,To=443 "+
					"--cidr-block 0.0.0.0/0 --rule-action allow` and `aws ec2 create-network-acl-entry --network-acl-id "+
					"%s --ingress --rule-number 91 --protocol tcp --port-range From=1024,To=65535 --cidr-block 0.0.0.0/0 "+
					"--rule-action allow` (pick rule numbers below the denying ones)", g.acl, g.acl),
			})
		}
		return out
	},
}
