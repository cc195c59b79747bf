package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// securityGroupEgressBlocked finds nodes, NodeClaims without a Node and NodeClasses whose
// security groups, taken together, have no outbound rule that admits TCP 443. Security
// groups are stateful, so outbound is all that matters; without 443 a new node reaches
// neither the EKS API nor ECR, STS and EC2 (directly, through a NAT gateway or through
// endpoints), never registers, and Karpenter replaces its NodeClaim again and again. It is
// lenient: a rule admitting 443 to any destination counts. A group with no rules at all is
// read as one whose rules were not recorded, as security-group-node-to-node-blocked does.
var securityGroupEgressBlocked = Check{
	Spec: specSecurityGroupEgressBlocked,
	Run: func(x *Index) []Finding {
		if x.Unavailable(snapshot.SourceDescribeSecurityGroups) {
			return nil
		}
		var out []Finding
		seen := map[string]bool{}
		for _, s := range pathSubjects(x) {
			key := s.ref + "\x00" + strings.Join(s.groups, ",")
			if len(s.groups) == 0 || seen[key] {
				continue
			}
			seen[key] = true
			rules, known := 0, true
			admits := false
			for _, id := range s.groups {
				g := x.SecurityGroups[id]
				if g == nil || len(g.Inbound) == 0 && len(g.Outbound) == 0 {
					known = false
					break
				}
				rules += len(g.Outbound)
				admits = admits || slices.ContainsFunc(g.Outbound, admits443)
			}
			if !known || admits {
				continue
			}
			f := Finding{
				Resource: s.ref,
				Message: fmt.Sprintf("the security %s %s of %s %s no outbound rule admitting TCP 443 (%s in all): "+
					"its instances cannot reach the EKS API, ECR, STS or EC2 and never join",
					plural(len(s.groups), "group", "groups"), strings.Join(s.groups, ", "), s.label,
					plural(len(s.groups), "has", "have"), countText(rules, "outbound rule", "outbound rules")),
				Remedy: fmt.Sprintf("restore the default egress rule: `aws ec2 authorize-security-group-egress "+
					"--group-id %s --ip-permissions 'IpProtocol=-1,IpRanges=[{CidrIp=0.0.0.0/0}]'` (at least TCP 443 "+
					"to the endpoints' and the cluster's addresses)", s.groups[0]),
			}
			if name, ok := strings.CutPrefix(s.ref, "node/"); ok {
				f.Node = name
			}
			out = append(out, f)
		}
		return out
	},
}

// admits443 reports whether a security-group rule admits TCP 443 to some destination.
func admits443(r snapshot.Rule) bool {
	if len(r.CIDRs)+len(r.IPv6CIDRs)+len(r.PrefixListIDs)+len(r.GroupIDs) == 0 {
		return false
	}
	switch strings.ToLower(r.Protocol) {
	case "-1", "all":
		return true
	case "6", "tcp":
		return r.FromPort == 0 && r.ToPort == 0 || r.FromPort <= 443 && 443 <= r.ToPort
	}
	return false
}
