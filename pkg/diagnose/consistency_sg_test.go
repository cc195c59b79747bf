package diagnose

import (
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

// ownRule sets the inbound rules of the node security group, with the default egress rule.
func ownRules(rules ...snapshot.Rule) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.SecurityGroups[0].Inbound = rules
		s.SecurityGroups[0].Outbound = []snapshot.Rule{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}
	}
}

func TestSecurityGroupNodeToNodeBlocked(t *testing.T) {
	blocked := func(rules, resource, where string) []Finding {
		return []Finding{{
			ID: "security-group-node-to-node-blocked", Severity: Warning, Node: nodeA, Resource: resource,
			Message: "no security group of instance " + instanceA + " (sg-0nodes: " + rules + ") admits all traffic in " +
				"from the node's own groups or its subnet 10.0.1.0/24: node-to-node and pod-to-pod traffic across " +
				"nodes (CoreDNS, Services, webhooks) is dropped",
			Remedy: "allow all traffic from the node security group to itself (aws ec2 authorize-security-group-ingress " +
				"--group-id sg-0nodes --protocol -1 --source-group sg-0nodes), or add the EKS cluster security group to " + where,
		}}
	}
	const class = "spec.securityGroupSelectorTerms of EC2NodeClass default"
	https := snapshot.Rule{Protocol: "tcp", FromPort: 443, ToPort: 443, GroupIDs: []string{sgNodes}}
	runCheckCases(t, securityGroupNodeToNodeBlocked, []checkCase{
		{name: "groups read without rules are silent"},
		{name: "all traffic from itself is silent", edit: ownRules(snapshot.Rule{Protocol: "-1", GroupIDs: []string{sgNodes}})},
		{name: "every TCP port from itself is silent", edit: ownRules(snapshot.Rule{Protocol: "tcp", FromPort: 0, ToPort: 65535, GroupIDs: []string{sgNodes}})},
		{name: "TCP 1-65535 from itself is silent", edit: ownRules(snapshot.Rule{Protocol: "6", FromPort: 1, ToPort: 65535, GroupIDs: []string{sgNodes}})},
		{name: "all traffic from the VPC CIDR is silent", edit: ownRules(snapshot.Rule{Protocol: "-1", CIDRs: []string{"10.0.0.0/16"}})},
		{name: "all traffic from anywhere is silent", edit: ownRules(snapshot.Rule{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}})},
		{name: "prefix list cannot be judged", edit: ownRules(snapshot.Rule{Protocol: "-1", PrefixListIDs: []string{"pl-0abc"}})},
		{name: "egress only fires", edit: ownRules(), want: blocked("0 inbound rules", "ec2nodeclass/default", class)},
		{name: "one port from itself fires", edit: ownRules(https), want: blocked("1 inbound rule", "ec2nodeclass/default", class)},
		{name: "all traffic from another group fires", edit: ownRules(https, snapshot.Rule{Protocol: "-1", GroupIDs: []string{"sg-0other"}}),
			want: blocked("2 inbound rules", "ec2nodeclass/default", class)},
		{name: "another subnet's CIDR fires", edit: ownRules(snapshot.Rule{Protocol: "-1", CIDRs: []string{"10.0.2.0/24"}}),
			want: blocked("1 inbound rule", "ec2nodeclass/default", class)},
		{name: "CIDR with unknown subnet cannot be judged", edit: edits(ownRules(snapshot.Rule{Protocol: "-1", CIDRs: []string{"10.0.2.0/24"}}),
			func(s *snapshot.Snapshot) { s.Subnets = nil })},
		{name: "non-Karpenter node names the node", edit: edits(ownRules(https), func(s *snapshot.Snapshot) {
			s.NodeClasses, s.NodeClaims, s.NodePools = nil, nil, nil
			delete(s.Nodes[0].Labels, snapshot.LabelEC2NodeClass)
			delete(s.Nodes[0].Labels, snapshot.LabelNodePool)
		}), want: blocked("1 inbound rule", "node/"+nodeA, "the node group's security groups")},
		{name: "every group is listed", edit: edits(ownRules(https), func(s *snapshot.Snapshot) {
			s.Instances[0].SecurityGroups = append(s.Instances[0].SecurityGroups, snapshot.GroupRef{ID: "sg-0zz"})
			s.SecurityGroups = append(s.SecurityGroups, snapshot.SecurityGroup{ID: "sg-0zz",
				Outbound: []snapshot.Rule{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}})
		}), want: []Finding{{
			ID: "security-group-node-to-node-blocked", Severity: Warning, Node: nodeA, Resource: "ec2nodeclass/default",
			Message: "no security group of instance " + instanceA + " (sg-0nodes: 1 inbound rule; sg-0zz: 0 inbound rules) " +
				"admits all traffic in from the node's own groups or its subnet 10.0.1.0/24: node-to-node and pod-to-pod " +
				"traffic across nodes (CoreDNS, Services, webhooks) is dropped",
			Remedy: "allow all traffic from the node security group to itself (aws ec2 authorize-security-group-ingress " +
				"--group-id sg-0nodes --protocol -1 --source-group sg-0nodes), or add the EKS cluster security group to " + class,
		}}},
		{name: "a rule of one group from the other admits", edit: edits(ownRules(), func(s *snapshot.Snapshot) {
			s.Instances[0].SecurityGroups = append(s.Instances[0].SecurityGroups, snapshot.GroupRef{ID: "sg-0zz"})
			s.SecurityGroups = append(s.SecurityGroups, snapshot.SecurityGroup{ID: "sg-0zz",
				Inbound: []snapshot.Rule{{Protocol: "-1", GroupIDs: []string{sgNodes}}}})
		})},
		{name: "unknown group is silent", edit: edits(ownRules(https), func(s *snapshot.Snapshot) {
			s.Instances[0].SecurityGroups = append(s.Instances[0].SecurityGroups, snapshot.GroupRef{ID: "sg-0unread"})
		})},
		{name: "groups not readable is silent", edit: edits(ownRules(https), gap(snapshot.SourceDescribeSecurityGroups))},
	})
}
