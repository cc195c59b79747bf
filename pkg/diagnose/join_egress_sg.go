package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specSecurityGroupEgressBlocked = &Spec{
	ID:       "security-group-egress-blocked",
	Severity: Critical,
	Family:   FamilyJoin,
	Needs:    []string{snapshot.SourceDescribeSecurityGroups},
	Examines: []string{SubjectNode, SubjectNodeClaim, SubjectNodeClass},
	Title:    "no outbound security-group rule of the nodes admits TCP 443",
	FiresWhen: "no outbound rule in the union of the security groups an instance has (a node, a NodeClaim without a " +
		"Node) or that new nodes get (an EC2NodeClass's `status.securityGroups`) admits TCP 443: protocol `-1`, or " +
		"TCP with a port range covering 443, to any CIDR, IPv6 CIDR, prefix list or group",
	NotOn: "a group that was not read (DescribeSecurityGroups gap or an ID it did not return) or has no rules at " +
		"all (read as rules not recorded; node groups always have inbound rules); which destination " +
		"the rule admits (lenient: a rule admitting 443 anywhere counts, whether or not that is the endpoints' or " +
		"the cluster's address); the default allow-all egress rule",
	Why: "security groups are stateful, so outbound 443 is what a node needs for the EKS API, ECR, STS and EC2; " +
		"without it the node never registers and Karpenter replaces its NodeClaim again and again",
	Remedy: "restore the allow-all egress rule or add TCP 443 (`aws ec2 authorize-security-group-egress`)",
	Scope:  "the default allow-all egress rule restored on the node's security group (or TCP 443 only, as the prose says); every interface in the group gets it, which the Affects names",
	Sources: []string{
		"https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html (node outbound rules)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/security-group-rules.html (default outbound rule, stateful)",
		"kubernetes-sigs/karpenter designs/node-registration-healthy.md (\"missing outbound rule\")",
		"aws/karpenter-provider-aws issues #7320, #6323 (nodes without outbound access never register)",
	},
	Verified: []Verified{
		{UpstreamAWSDocs, "https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html (Default cluster security group; Restricting cluster traffic)",
			"the default cluster security group allows all outbound traffic; without it the minimum rules include outbound TCP 443 to the cluster security group, and nodes need outbound internet access for the EKS APIs and registration"},
	},
}

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
				Remedy: fmt.Sprintf("restore the default egress rule on %s (the command; at least TCP 443 to the endpoints' "+
					"and the cluster's addresses)", s.groups[0]),
				Commands: []Command{{Argv: []string{"aws", "ec2", "authorize-security-group-egress", "--group-id", s.groups[0],
					"--ip-permissions", jsonArg([]any{map[string]any{"IpProtocol": "-1",
						"IpRanges": []any{map[string]string{"CidrIp": "0.0.0.0/0"}}}})},
					Changes: "securitygroup/" + s.groups[0], Affects: groupAffects(x, s.groups[0])}},
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
