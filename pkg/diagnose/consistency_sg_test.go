package diagnose

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// publicIP sets associatePublicIPAddress on EC2NodeClass default.
func publicIP(v bool) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) { s.NodeClasses[0].AssociatePublicIPAddress = &v }
}

// twoInterfaces gives EC2NodeClass default an ENA interface and an efa-only one on card 0.
func twoInterfaces(s *snapshot.Snapshot) {
	s.NodeClasses[0].NetworkInterfaces = []snapshot.NetworkInterface{
		{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
		{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "efa-only"},
	}
}

// efaClaim makes node A's NodeClaim request EFA on an instance type with maxEFA interfaces.
func efaClaim(maxEFA int32) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.NodeClaims[0].Requests = map[string]string{"vpc.amazonaws.com/efa": "1"}
		s.InstanceTypes[0].EFASupported, s.InstanceTypes[0].MaxEFAInterfaces = true, maxEFA
	}
}

func TestNodeClassPublicIPMultiENI(t *testing.T) {
	const head = "EC2NodeClass default sets associatePublicIPAddress: true and launches several network interfaces ("
	const tail = "): EC2 rejects such launches with InvalidParameterCombination (\"The associatePublicIPAddress " +
		"parameter cannot be specified when launching with multiple network interfaces\")"
	const remedy = "remove spec.associatePublicIPAddress from EC2NodeClass default (or set it to false) and give " +
		"the nodes outbound access through a NAT gateway in private subnets"
	const efa = "NodeClaim default-abcde requests vpc.amazonaws.com/efa, for which Karpenter launches one EFA " +
		"interface per network card"
	finding := func(why string) []Finding {
		return []Finding{{ID: "nodeclass-public-ip-multi-eni", Severity: Critical, Resource: "ec2nodeclass/default",
			Message: head + why + tail, Remedy: remedy}}
	}
	runCheckCases(t, nodeClassPublicIPMultiENI, []checkCase{
		{name: "healthy is silent"},
		{name: "public IP with one interface is silent", edit: publicIP(true)},
		{name: "several interfaces without public IP are silent", edit: edits(publicIP(false), twoInterfaces, efaClaim(4))},
		{name: "public IP with two networkInterfaces is critical", edit: edits(publicIP(true), twoInterfaces),
			want: finding("spec.networkInterfaces has 2 entries")},
		{name: "public IP with EFA claims on a multi-EFA type is critical", edit: edits(publicIP(true), efaClaim(4)),
			want: finding(efa)},
		{name: "both reasons are named", edit: edits(publicIP(true), twoInterfaces, efaClaim(4)),
			want: finding("spec.networkInterfaces has 2 entries; " + efa)},
		{name: "EFA claim on a single-EFA type is silent", edit: edits(publicIP(true), efaClaim(1))},
		{name: "EFA claim of unknown type is silent", edit: edits(publicIP(true), efaClaim(4), func(s *snapshot.Snapshot) {
			s.InstanceTypes = nil
		})},
		{name: "type from the claim's label without a node", edit: edits(publicIP(true), efaClaim(4), func(s *snapshot.Snapshot) {
			s.Nodes, s.Instances = nil, nil
			s.NodeClaims[0].Labels[corev1.LabelInstanceTypeStable] = "m5.large"
			s.NodeClaims = append(s.NodeClaims, snapshot.NodeClaim{Name: "default-zzzzz", NodeClassRef: s.NodeClaims[0].NodeClassRef,
				Labels: map[string]string{corev1.LabelInstanceTypeStable: "m5.large"}, Requests: map[string]string{"vpc.amazonaws.com/efa": "0"}})
		}), want: finding(efa)},
	})
}

// ownRules sets the inbound rules of the node security group, with the default egress rule.
func ownRules(rules ...snapshot.Rule) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.SecurityGroups[0].Inbound = rules
		s.SecurityGroups[0].Outbound = []snapshot.Rule{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}
	}
}

// selfRule is a rule of protocol p from ports from to to that names the group id.
func selfRule(id, p string, from, to int32) snapshot.Rule {
	return snapshot.Rule{Protocol: p, FromPort: from, ToPort: to, GroupIDs: []string{id}}
}

// terraformNodeRules are the node-to-node rules of terraform-aws-eks's node security group:
// CoreDNS over TCP and UDP and TCP 1025-65535 from itself.
func terraformNodeRules(id string) []snapshot.Rule {
	return []snapshot.Rule{selfRule(id, "tcp", 53, 53), selfRule(id, "udp", 53, 53), selfRule(id, "tcp", 1025, 65535)}
}

func TestSecurityGroupNodeToNodeBlocked(t *testing.T) {
	const class = "spec.securityGroupSelectorTerms of EC2NodeClass default"
	const udp = "DNS to CoreDNS over UDP 53"
	const tcp = "DNS to CoreDNS over TCP 53"
	const pods = "pod and Service traffic over TCP 1025-65535"
	const affects = "every interface in sg-0nodes: 1 node (m5.large)"
	ingress := func(g, protocol, port, affects string) Command {
		return Command{Argv: []string{"aws", "ec2", "authorize-security-group-ingress", "--group-id", g, "--protocol", protocol,
			"--port", port, "--source-group", g}, Changes: "securitygroup/" + g, Affects: affects}
	}
	egress := func(protocol, from, to string) Command {
		return Command{Argv: []string{"aws", "ec2", "authorize-security-group-egress", "--group-id", "sg-0nodes", "--ip-permissions",
			`[{"FromPort":` + from + `,"IpProtocol":"` + protocol + `","ToPort":` + to + `,"UserIdGroupPairs":[{"GroupId":"sg-0nodes"}]}]`},
			Changes: "securitygroup/sg-0nodes", Affects: affects}
	}
	fixUDP := ingress("sg-0nodes", "udp", "53", affects)
	fixTCP := ingress("sg-0nodes", "tcp", "53", affects)
	fixPods := ingress("sg-0nodes", "tcp", "1025-65535", affects)
	blocked := func(groups, flows, resource string, fixes []Command, where string) []Finding {
		return []Finding{{
			ID: "security-group-node-to-node-blocked", Severity: Warning, Node: nodeA, Resource: resource,
			Message: "the security groups of instance " + instanceA + " (" + groups + ") block " + flows +
				" between nodes: pods on other nodes cannot reach it (CoreDNS, Services and webhooks break)",
			Remedy: "open the flows between the nodes' groups (the " + plural(len(fixes), "command", "commands") + "), or add " +
				"the EKS cluster security group, which admits all traffic from itself, to " + where,
			Commands: fixes,
		}}
	}
	into := func(flows ...string) string {
		for i := range flows {
			flows[i] += " into the node's groups"
		}
		return strings.Join(flows, "; ")
	}
	https := selfRule(sgNodes, "tcp", 443, 443)
	const oneRule = "sg-0nodes: 1 inbound rule, 1 outbound rule"
	runCheckCases(t, securityGroupNodeToNodeBlocked, []checkCase{
		{name: "groups read without rules are silent"},
		{name: "all traffic from itself is silent", edit: ownRules(snapshot.Rule{Protocol: "-1", GroupIDs: []string{sgNodes}})},
		{name: "terraform-aws-eks's node group rules are silent", edit: ownRules(terraformNodeRules(sgNodes)...)},
		{name: "ports covered by two rules together are silent", edit: ownRules(selfRule(sgNodes, "17", 53, 53),
			selfRule(sgNodes, "6", 0, 1024), selfRule(sgNodes, "6", 1000, 65535))},
		{name: "all traffic from the VPC CIDR is silent", edit: ownRules(snapshot.Rule{Protocol: "-1", CIDRs: []string{"10.0.0.0/16"}})},
		{name: "all traffic from anywhere is silent", edit: ownRules(snapshot.Rule{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}})},
		{name: "an IPv6 CIDR holding the subnet's IPv6 CIDR is silent", edit: edits(ownRules(snapshot.Rule{Protocol: "-1",
			IPv6CIDRs: []string{"2600:1f14:aaa::/56"}}), func(s *snapshot.Snapshot) { s.Subnets[0].IPv6CIDRs = []string{"2600:1f14:aaa:1::/64"} })},
		{name: "a prefix list cannot be judged", edit: ownRules(snapshot.Rule{Protocol: "-1", PrefixListIDs: []string{"pl-0abc"}})},
		{name: "egress only fires for every flow", edit: ownRules(),
			want: blocked("sg-0nodes: 0 inbound rules, 1 outbound rule", into(udp, tcp, pods), "ec2nodeclass/default",
				[]Command{fixPods, fixTCP, fixUDP}, class)},
		{name: "one port from itself fires", edit: ownRules(https),
			want: blocked(oneRule, into(udp, tcp, pods), "ec2nodeclass/default", []Command{fixPods, fixTCP, fixUDP}, class)},
		{name: "every TCP port but no UDP 53 fires for DNS over UDP only", edit: ownRules(selfRule(sgNodes, "tcp", 0, 65535)),
			want: blocked(oneRule, into(udp), "ec2nodeclass/default", []Command{fixUDP}, class)},
		{
			name: "egress restricted to HTTPS fires for every flow out",
			edit: edits(ownRules(terraformNodeRules(sgNodes)...), func(s *snapshot.Snapshot) {
				s.SecurityGroups[0].Outbound = []snapshot.Rule{{Protocol: "tcp", FromPort: 443, ToPort: 443, CIDRs: []string{"0.0.0.0/0"}}}
			}),
			want: blocked("sg-0nodes: 3 inbound rules, 1 outbound rule", udp+" out of the node's groups; "+tcp+" out of the node's groups; "+
				pods+" out of the node's groups", "ec2nodeclass/default", []Command{
				egress("tcp", "1025", "65535"), egress("tcp", "53", "53"), egress("udp", "53", "53"),
			}, class),
		},
		{name: "all traffic from another group fires", edit: ownRules(https, snapshot.Rule{Protocol: "-1", GroupIDs: []string{"sg-0other"}}),
			want: blocked("sg-0nodes: 2 inbound rules, 1 outbound rule", into(udp, tcp, pods), "ec2nodeclass/default", []Command{fixPods, fixTCP, fixUDP}, class)},
		{name: "another subnet's CIDR fires", edit: ownRules(snapshot.Rule{Protocol: "-1", CIDRs: []string{"10.0.2.0/24"}}),
			want: blocked(oneRule, into(udp, tcp, pods), "ec2nodeclass/default", []Command{fixPods, fixTCP, fixUDP}, class)},
		{name: "a CIDR while the subnet is unknown cannot be judged", edit: edits(ownRules(snapshot.Rule{Protocol: "-1", CIDRs: []string{"10.0.2.0/24"}}),
			func(s *snapshot.Snapshot) { s.Subnets = nil })},
		{name: "a non-Karpenter node names the node", edit: edits(ownRules(https), func(s *snapshot.Snapshot) {
			s.NodeClasses, s.NodeClaims, s.NodePools = nil, nil, nil
			delete(s.Nodes[0].Labels, snapshot.LabelEC2NodeClass)
			delete(s.Nodes[0].Labels, snapshot.LabelNodePool)
		}), want: blocked(oneRule, into(udp, tcp, pods), "node/"+nodeA, []Command{fixPods, fixTCP, fixUDP}, "the node group's security groups")},
		{name: "a rule of one group from the other admits", edit: edits(ownRules(), func(s *snapshot.Snapshot) {
			s.Instances[0].SecurityGroups = append(s.Instances[0].SecurityGroups, snapshot.GroupRef{ID: "sg-0zz"})
			s.SecurityGroups = append(s.SecurityGroups, snapshot.SecurityGroup{ID: "sg-0zz",
				Inbound: []snapshot.Rule{{Protocol: "-1", GroupIDs: []string{sgNodes}}}})
		})},
		{
			// Custom networking: pods sit on ENIs with the ENIConfig's groups; the node group
			// carries only host traffic.
			name: "custom-networking pods are judged by their ENIConfig's groups",
			edit: edits(ownRules(https), perZoneENIConfigs, func(s *snapshot.Snapshot) {
				s.ENIConfigs[0].SecurityGroups = []string{"sg-0pods"}
				s.SecurityGroups = append(s.SecurityGroups, snapshot.SecurityGroup{ID: "sg-0pods",
					Inbound: terraformNodeRules("sg-0pods"), Outbound: []snapshot.Rule{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}})
			}),
		},
		{
			name: "an ENIConfig group that blocks DNS fires for the pods' ENIs",
			edit: edits(ownRules(snapshot.Rule{Protocol: "-1", GroupIDs: []string{sgNodes}}), perZoneENIConfigs, func(s *snapshot.Snapshot) {
				s.ENIConfigs[0].SecurityGroups = []string{"sg-0pods"}
				s.SecurityGroups = append(s.SecurityGroups, snapshot.SecurityGroup{ID: "sg-0pods",
					Inbound: []snapshot.Rule{selfRule("sg-0pods", "tcp", 0, 65535)}, Outbound: []snapshot.Rule{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}})
			}),
			want: blocked("sg-0pods: 1 inbound rule, 1 outbound rule", udp+" into ENIConfig us-west-2a's groups (the pods' ENIs)",
				"ec2nodeclass/default", []Command{ingress("sg-0pods", "udp", "53", "every interface in sg-0pods: no node now")}, class),
		},
		{name: "an unknown group is silent", edit: edits(ownRules(https), func(s *snapshot.Snapshot) {
			s.Instances[0].SecurityGroups = append(s.Instances[0].SecurityGroups, snapshot.GroupRef{ID: "sg-0unread"})
		})},
		{name: "groups not readable is silent", edit: edits(ownRules(https), gap(snapshot.SourceDescribeSecurityGroups))},
	})
}
