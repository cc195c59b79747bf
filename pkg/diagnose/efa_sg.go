package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specEFASecurityGroupSelfRuleMissing = &Spec{
	ID:       "efa-security-group-self-rule-missing",
	Severity: Critical,
	Family:   FamilyEFA,
	Needs:    []string{snapshot.SourceDescribeSecurityGroups},
	Examines: []string{SubjectNode},
	Title:    "no security group of an EFA interface allows all traffic to and from itself",
	FiresWhen: "no security group of an EFA interface allows all traffic (protocol -1) both in from and out to " +
		"itself",
	NotOn: "interfaces with a group karpnet could not read",
	Why: "EC2 requires a self-referencing all-traffic rule in both directions for EFA; without it EFA " +
		"traffic between nodes is dropped",
	Remedy: "`aws ec2 authorize-security-group-ingress --group-id SG --protocol -1 --source-group SG` and the " +
		"matching egress rule, or select such a group in `spec.securityGroupSelectorTerms`",
	Scope: "the all-traffic rule in from and out to the group itself, on the EFA group only: it admits only interfaces in that group, which the Affects names",
	Sources: []string{
		"https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/create-efa.html",
		"https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html#efa-start-security",
		"https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html",
		"https://docs.aws.amazon.com/pcs/latest/userguide/working-with_networking_efa_create-sg.html",
	},
	Verified: []Verified{
		{UpstreamAWSDocs, "View Amazon EKS security group requirements for clusters (Default cluster security group)",
			"The EKS cluster security group has an outbound all-traffic rule to itself so that EFA traffic flows within the cluster, next to its inbound all-traffic rule from itself."},
		{UpstreamAWSDocs, "AWS PCS User Guide: Create a security group to support EFA communications",
			"A group that supports EFA admits all protocols (-1) in from itself and out to itself: authorize-security-group-ingress and -egress with --source-group the group."},
		{UpstreamEC2API, "types/types.go (IpPermission)",
			"IpProtocol -1 allows all protocols on all ports; a rule names another group (or itself) through UserIdGroupPairs."},
	},
}

// efaSecurityGroupSelfRuleMissing finds EFA interfaces none of whose security groups allows
// all traffic in from and out to the group itself. EFA's OS-bypass traffic is not plain IP:
// EC2 requires such a self-referencing all-traffic rule in both directions, and without it
// NCCL/libfabric between nodes hangs or falls back to TCP sockets. An outbound rule to
// 0.0.0.0/0 is not enough.
var efaSecurityGroupSelfRuleMissing = Check{
	Spec: specEFASecurityGroupSelfRuleMissing,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range efaNodes(x) {
			if f, ok := efaSelfRuleFinding(x, n); ok {
				out = append(out, f)
			}
		}
		return out
	},
}

// efaSelfRuleFinding checks every EFA interface of n; an interface with a group that was not
// read is left out, as that group may carry the rules.
func efaSelfRuleFinding(x *Index, n *NodeInfo) (Finding, bool) {
	efas := efaInterfaces(n)
	var bad []string
	lacks := map[string]string{}
	var common []string
	for _, e := range efas {
		groups := e.SecurityGroups
		if len(groups) == 0 {
			groups = n.Instance.SecurityGroups
		}
		if len(groups) == 0 {
			continue
		}
		ok, known := false, true
		var ids []string
		gaps := map[string]string{}
		for _, g := range groups {
			sg := x.SecurityGroups[g.ID]
			if sg == nil {
				known = false
				continue
			}
			ids = append(ids, g.ID)
			in, out := selfAllowsAll(sg.Inbound, sg.ID), selfAllowsAll(sg.Outbound, sg.ID)
			ok = ok || in && out
			gaps[g.ID] = selfRuleGap(in, out)
		}
		if ok || !known {
			continue
		}
		bad = append(bad, e.ID)
		maps.Copy(lacks, gaps)
		slices.Sort(ids)
		if common == nil {
			common = ids
		} else {
			common = slices.DeleteFunc(common, func(id string) bool { return !slices.Contains(ids, id) })
		}
	}
	if len(bad) == 0 {
		return Finding{}, false
	}
	slices.Sort(bad)
	var groupText []string
	for _, id := range sortedKeys(lacks) {
		groupText = append(groupText, fmt.Sprintf("%s (%s)", id, lacks[id]))
	}
	resource, groupWord := nodeRef(n.Name()), plural(len(lacks), "security group", "security groups")
	if len(lacks) == 1 {
		resource = "securitygroup/" + sortedKeys(lacks)[0]
	}
	target := "a security group every EFA interface carries"
	var cmds []Command
	if len(common) > 0 {
		target = common[0]
		cmds = selfRuleCommands(x, target)
	}
	remedy := fmt.Sprintf("allow all traffic in from and out to the group itself on %s (an inbound and an outbound rule "+
		"naming the group itself, protocol -1", target)
	if len(cmds) > 0 {
		remedy += ": the commands)"
	} else {
		remedy += ")"
	}
	if n.ClassName != "" {
		remedy += fmt.Sprintf("; or select a group that has these rules in spec.securityGroupSelectorTerms of %s", n.ClassLabel())
	}
	return Finding{
		Node:     n.Name(),
		Resource: resource,
		Message: fmt.Sprintf("%d of %d EFA interfaces of instance %s (%s) are in %s %s; none allows all traffic "+
			"(protocol -1) in from and out to itself, so EFA traffic between nodes is dropped",
			len(bad), len(efas), n.Instance.ID, abbreviate(bad, 3), groupWord, strings.Join(groupText, ", ")),
		Remedy:   remedy,
		Commands: cmds,
	}, true
}

// selfAllowsAll reports whether rules hold an all-traffic rule naming the group id itself.
func selfAllowsAll(rules []snapshot.Rule, id string) bool {
	for _, r := range rules {
		if r.Protocol == "-1" && slices.Contains(r.GroupIDs, id) {
			return true
		}
	}
	return false
}

// selfRuleGap says which self-referencing all-traffic rules a group lacks.
func selfRuleGap(in, out bool) string {
	switch {
	case !in && !out:
		return "no inbound or outbound all-traffic rule with itself"
	case !in:
		return "no inbound all-traffic rule from itself"
	case !out:
		return "no outbound all-traffic rule to itself"
	}
	return "allows all traffic with itself"
}
