package diagnose

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/subnetcap"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestSubnetNotSelected(t *testing.T) {
	moved := func(s *snapshot.Snapshot) {
		s.NodeClasses[0].StatusSubnets = []snapshot.SubnetStatus{{ID: "subnet-0ccc"}, {ID: "subnet-0bbb"}}
	}
	runCheckCases(t, subnetNotSelected, []checkCase{
		{name: "selected subnet is silent"},
		{
			name: "unselected subnet fires",
			edit: moved,
			want: []Finding{{
				ID: "subnet-not-selected", Severity: Warning, Node: nodeA, Resource: "ec2nodeclass/default",
				Message: "instance " + instanceA + " is in " + subnetA + ", which EC2NodeClass default does not select " +
					"(status.subnets: subnet-0bbb, subnet-0ccc); Karpenter will replace the node as drifted (SubnetDrift)",
				Remedy: "if " + subnetA + " should be used, make it match spec.subnetSelectorTerms of EC2NodeClass default " +
					"(tags or id; EC2NodeClass default serves 1 node (m5.large), and each in a subnet the terms then leave out " +
					"drifts); otherwise let Karpenter replace the node",
			}},
		},
		{name: "empty status is silent", edit: func(s *snapshot.Snapshot) { s.NodeClasses[0].StatusSubnets = nil }},
		{name: "missing NodeClass is silent", edit: edits(moved, func(s *snapshot.Snapshot) { s.NodeClasses = nil })},
		{name: "missing instance is silent", edit: edits(moved, func(s *snapshot.Snapshot) { s.Instances = nil })},
	})
}

// TestSubnetIPExhaustion: the healthy m5.large holds 2 addresses of subnetA (a /24 with 200
// free); a new one takes 10 at once (1 primary IP and, WARM_ENI_TARGET=1, the primary ENI's 9
// secondary IPs).
func TestSubnetIPExhaustion(t *testing.T) {
	free := func(n int32) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { s.Subnets[0].AvailableIPs = n }
	}
	finding := func(sev Severity, resource, msg, remedy string) []Finding {
		return []Finding{{ID: "subnet-ip-exhaustion", Severity: sev, Resource: resource, Message: msg, Remedy: remedy}}
	}
	const classTail = "or give the VPC a larger or secondary CIDR; subnet discovery puts pods' ENIs in subnets tagged " +
		"kubernetes.io/role/cni=1 (VPC CNI 1.18+), and prefix delegation (aws-node ENABLE_PREFIX_DELEGATION=true) packs pod " +
		"addresses into /28 prefixes"
	classRemedy := func(zone string) string {
		return "add subnets in " + zone + " to spec.subnetSelectorTerms of EC2NodeClass default (new nodes go to the roomiest " +
			"subnet of the zone; EC2NodeClass default serves 1 node (m5.large), which stay where they are), " + classTail
	}
	only := func(n int) string {
		return fmt.Sprintf("its only subnet subnet-0aaa (10.0.1.0/24, %d free of 251 usable)", n)
	}
	const m5Take = "1 primary IP + 9 warm addresses (WARM_ENI_TARGET=1: the primary ENI's 9 secondary IPs) of this m5.large"
	// sibling adds a second subnet of zone a to the class, with free addresses.
	sibling := func(free int32) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.NodeClasses[0].StatusSubnets = append(s.NodeClasses[0].StatusSubnets, snapshot.SubnetStatus{ID: "subnet-0sib", Zone: "us-west-2a"})
			s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0sib", CIDR: "10.0.2.0/28", Zone: "us-west-2a", AvailableIPs: free})
		}
	}
	// holding makes the healthy node hold n addresses on a second ENI of its subnet.
	holding := func(n int) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			e := snapshot.ENI{ID: "eni-0second", InterfaceType: "interface", DeviceIndex: 1, SubnetID: subnetA, PrimaryIP: "10.0.1.50"}
			for i := range n {
				e.PrivateIPs = append(e.PrivateIPs, fmt.Sprintf("10.0.1.%d", 50+i))
			}
			s.Instances[0].ENIs = append(s.Instances[0].ENIs, e)
		}
	}
	runCheckCases(t, subnetIPExhaustion, []checkCase{
		{name: "200 free is silent: 20 more nodes fit"},
		{name: "9 free is critical: the next launch and warm pool do not fit", edit: free(9),
			want: finding(Critical, "subnet/"+subnetA, "EC2NodeClass default in us-west-2a can take no more node: "+only(9)+
				" has fewer free addresses than the 10 the next node takes at once ("+m5Take+")", classRemedy("us-west-2a"))},
		{name: "30 free is a warning: 3 more nodes fit", edit: free(30),
			want: finding(Warning, "subnet/"+subnetA, "only 3 more nodes of EC2NodeClass default in us-west-2a fit in "+only(30)+
				": each takes about 10 addresses (as much as the next node takes at once: "+m5Take+")", classRemedy("us-west-2a"))},
		{name: "50 free is silent", edit: free(50)},
		{name: "a small full sibling next to a roomy subnet is silent", edit: sibling(1)},
		{
			name: "a full sibling next to a full subnet: the roomiest decides",
			edit: edits(free(4), sibling(8)),
			want: finding(Critical, "subnet/subnet-0sib", "EC2NodeClass default in us-west-2a can take no more node: its roomiest subnet "+
				"subnet-0sib (10.0.2.0/28, 8 free of 11 usable) has fewer free addresses than the 10 the next node takes at once ("+
				m5Take+"); its other subnets: subnet-0aaa (10.0.1.0/24, 4 free of 251 usable)", classRemedy("us-west-2a")),
		},
		{
			name: "nodes that grew are sized by what they hold",
			edit: edits(free(150), holding(40)),
			want: finding(Warning, "subnet/"+subnetA, "only 3 more nodes of EC2NodeClass default in us-west-2a fit in "+only(150)+
				": each takes about 42 addresses (what its nodes hold in their subnet now, as the CNI grows with pods: the median of 1 node)",
				classRemedy("us-west-2a")),
		},
		{
			// m5.24xlarge: 15 ENIs x 50 IPv4; its ENI-limited 737 pods are not what a new node takes.
			name: "a 24xlarge class on an emptied /21 is silent",
			edit: func(s *snapshot.Snapshot) {
				s.Subnets[0].CIDR, s.Subnets[0].AvailableIPs = "10.0.0.0/21", 1900
				s.Instances[0].Type = "m5.24xlarge"
				s.Nodes[0].Labels[corev1.LabelInstanceTypeStable] = "m5.24xlarge"
				s.InstanceTypes = append(s.InstanceTypes, snapshot.InstanceType{Name: "m5.24xlarge", Hypervisor: "nitro", VCPUs: 96,
					MaxENIs: 15, NetworkCards: []snapshot.NetworkCard{{MaxENIs: 15}}, IPv4PerENI: 50})
			},
		},
		{name: "prefix delegation: a launch takes a /28", edit: edits(free(16), cniEnv(SettingPrefixDelegation, "true")),
			want: finding(Critical, "subnet/"+subnetA, "EC2NodeClass default in us-west-2a can take no more node: "+only(16)+
				" has fewer free addresses than the 17 the next node takes at once (1 primary IP + 1 /28 prefix (16 addresses, "+
				"WARM_PREFIX_TARGET=1) of this m5.large)", "add subnets in us-west-2a to spec.subnetSelectorTerms of EC2NodeClass "+
				"default (new nodes go to the roomiest subnet of the zone; EC2NodeClass default serves 1 node (m5.large), which stay where they are), or give the VPC a larger or secondary CIDR; subnet "+
				"discovery puts pods' ENIs in subnets tagged kubernetes.io/role/cni=1 (VPC CNI 1.18+)")},
		{name: "WARM_IP_TARGET sets the warm pool", edit: edits(free(3), cniEnv(SettingWarmIPTarget, "3")),
			want: finding(Critical, "subnet/"+subnetA, "EC2NodeClass default in us-west-2a can take no more node: "+only(3)+
				" has fewer free addresses than the 4 the next node takes at once (1 primary IP + 3 secondary IPs "+
				"(WARM_IP_TARGET/MINIMUM_IP_TARGET 3) of this m5.large)", classRemedy("us-west-2a"))},
		{name: "a zone no NodePool allows is not judged", edit: edits(free(1), func(s *snapshot.Snapshot) {
			s.NodePools[0].Requirements = []snapshot.Requirement{{Key: corev1.LabelTopologyZone, Operator: "In", Values: []string{"us-west-2b"}}}
		})},
		{name: "a class no NodePool uses is not judged", edit: edits(free(1), func(s *snapshot.Snapshot) { s.NodePools = nil })},
		{name: "an IPv6 node takes one IPv4 address: 29 free is silent", edit: edits(free(29), ipv6Node)},
		{name: "a Windows node takes its launch and what it holds: 29 free is silent", edit: edits(free(29), windowsNode)},
		{name: "a node aws-node does not run on holds 2: 29 free is silent", edit: edits(free(29), ciliumAWSNode)},
		{
			name: "a node aws-node does not run on is sized by what it holds",
			edit: edits(free(9), ciliumAWSNode),
			want: finding(Warning, "subnet/"+subnetA, "only 4 more nodes of EC2NodeClass default in us-west-2a fit in "+only(9)+
				": each takes about 2 addresses (what its nodes hold in their subnet now, as the CNI grows with pods: the median of 1 node)",
				"add subnets in us-west-2a to spec.subnetSelectorTerms of EC2NodeClass default (new nodes go to the roomiest subnet "+
					"of the zone; EC2NodeClass default serves 1 node (m5.large), which stay where they are), "+classTail),
		},
		{
			name: "the subnet of non-Karpenter nodes is their node group's",
			edit: edits(free(9), func(s *snapshot.Snapshot) {
				s.NodeClasses, s.NodeClaims, s.NodePools = nil, nil, nil
				delete(s.Nodes[0].Labels, snapshot.LabelNodePool)
				delete(s.Nodes[0].Labels, snapshot.LabelEC2NodeClass)
				s.Nodes[0].Labels["eks.amazonaws.com/nodegroup"] = "ng-1"
			}),
			want: finding(Critical, "subnet/"+subnetA, "node group ng-1 in us-west-2a can take no more node: "+only(9)+
				" has fewer free addresses than the 10 the next node takes at once ("+m5Take+")",
				"add subnets in us-west-2a to the node group's subnet list, "+classTail),
		},
		{name: "custom networking: the node subnet gives one address per node", edit: edits(free(5), customNetworking("100.64.0.0/24", 3000))},
		{
			name: "custom networking: a pod subnet below 5 nodes' first pod ENIs is a warning",
			edit: customNetworking("100.64.0.0/24", 20),
			want: finding(Warning, "subnet/subnet-0pod", "only 2 more nodes of the pod subnet of ENIConfig us-west-2a fit in its only "+
				"subnet subnet-0pod (100.64.0.0/24, 20 free of 251 usable): each takes about 10 addresses (as much as its first pod ENI: an m5.large's first pod ENI, filled: 10 "+
				"addresses (WARM_ENI_TARGET=1))",
				"point ENIConfig us-west-2a (spec.subnet) at a larger pod subnet, or add a "+
					"secondary CIDR to the VPC for a new one in us-west-2a"),
		},
		{
			name: "custom networking: a pod subnet below one first pod ENI is critical",
			edit: customNetworking("100.64.0.0/24", 9),
			want: finding(Critical, "subnet/subnet-0pod", "the pod subnet of ENIConfig us-west-2a can take no more node: its only "+
				"subnet subnet-0pod (100.64.0.0/24, 9 free of 251 usable) has fewer free addresses than the 10 the next node "+
				"takes at once (an m5.large's first pod ENI, filled: 10 addresses (WARM_ENI_TARGET=1))",
				"point ENIConfig us-west-2a (spec.subnet) at a larger pod subnet, or add a "+
					"secondary CIDR to the VPC for a new one in us-west-2a"),
		},
		{
			// Subnet discovery: pods' later ENIs go to the roomiest of the zone's tagged subnets
			// and the node subnet, so the node subnet is judged on the launch only, and the
			// pool as a whole on the pods.
			name: "subnet discovery: a roomy cni subnet carries the pods",
			edit: edits(free(60), discoveredSubnet(4000), podsInDiscovered(40)),
		},
		{
			name: "subnet discovery: the pool of pod subnets running dry is a warning",
			edit: edits(free(60), discoveredSubnet(30), podsInDiscovered(40)),
			want: finding(Warning, "subnet/"+subnetA, "only 1 more node of the pod subnets of us-west-2a (subnet discovery: "+
				"kubernetes.io/role/cni=1 and the nodes' own) fit in its subnets subnet-0aaa (10.0.1.0/24, 60 free of 251 usable), "+
				"subnet-0cni (100.64.0.0/24, 30 free of 251 usable): each takes about 31 addresses (what the zone's nodes hold there "+
				"beyond their launch: the median of 1 node)",
				"tag another subnet of us-west-2a with kubernetes.io/role/cni=1 (from a secondary VPC CIDR if the VPC is full), so "+
					"the VPC CNI puts pods' ENIs there"),
		},
		{
			// VPC CNI 1.22+ keeps pods off a primary subnet tagged kubernetes.io/role/cni=0:
			// only the discovered subnets are the pool, and the node subnet takes the launch.
			name: "subnet discovery: a node subnet tagged cni=0 is not a pod subnet",
			edit: edits(free(60), discoveredSubnet(100), podsInDiscovered(40), tagNodeSubnet("0")),
			want: finding(Warning, "subnet/subnet-0cni", "only 2 more nodes of the pod subnets of us-west-2a (subnet discovery: "+
				"kubernetes.io/role/cni=1 and the nodes' own) fit in its only subnet subnet-0cni (100.64.0.0/24, 100 free of 251 "+
				"usable): each takes about 39 addresses (what the zone's nodes hold there beyond their launch: the median of 1 node)",
				"tag another subnet of us-west-2a with kubernetes.io/role/cni=1 (from a secondary VPC CIDR if the VPC is full), so "+
					"the VPC CNI puts pods' ENIs there"),
		},
		{
			name: "subnet discovery: before VPC CNI 1.22 the cni=0 tag leaves the node subnet in the pool",
			edit: edits(free(4000), discoveredSubnet(100), podsInDiscovered(40), tagNodeSubnet("0"), cniImage("v1.21.1")),
		},
		{name: "subnet discovery off: tagged subnets are not pod subnets", edit: edits(free(50), discoveredSubnet(1), cniEnv(SettingSubnetDiscovery, "false"))},
		{name: "subnet gap is silent", edit: edits(free(1), gap(snapshot.SourceDescribeSubnets))},
	})
}

// discoveredSubnet adds a subnet of zone a tagged kubernetes.io/role/cni=1 with free addresses.
func discoveredSubnet(free int32) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0cni", CIDR: "100.64.0.0/24", Zone: "us-west-2a",
			AvailableIPs: free, Tags: map[string]string{subnetcap.TagRoleCNI: "1"}})
	}
}

// tagNodeSubnet tags the healthy node's subnet kubernetes.io/role/cni=v.
func tagNodeSubnet(v string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) { s.Subnets[0].Tags = map[string]string{subnetcap.TagRoleCNI: v} }
}

// cniImage gives aws-node the VPC CNI release tag.
func cniImage(tag string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.AWSNode.Image = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:" + tag
	}
}

// podsInDiscovered moves the healthy node's pod addresses to a second ENI of n addresses in
// the discovered subnet, as subnet discovery puts them there.
func podsInDiscovered(n int) func(*snapshot.Snapshot) {
	return podENI("subnet-0cni", "100.64.0.", n)
}

// podENI gives the healthy node's pods a second ENI of n addresses in subnet (addresses from
// prefix), leaving the primary ENI its own address only.
func podENI(subnet, prefix string, n int) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		in := &s.Instances[0]
		in.ENIs[0].PrivateIPs = in.ENIs[0].PrivateIPs[:1]
		e := snapshot.ENI{ID: "eni-0pods", InterfaceType: "interface", DeviceIndex: 1, SubnetID: subnet, PrimaryIP: prefix + "10"}
		for i := range n {
			e.PrivateIPs = append(e.PrivateIPs, fmt.Sprintf("%s%d", prefix, 10+i))
		}
		in.ENIs = append(in.ENIs, e)
	}
}

// customNetworking turns on custom networking with an ENIConfig per zone whose pod subnet has
// the given CIDR and free addresses; the node's pods hold 10 addresses there.
func customNetworking(podCIDR string, free int32) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.AWSNode.Env[SettingCustomNetwork] = "true"
		s.AWSNode.Env[SettingENIConfigLabel] = corev1.LabelTopologyZone
		s.ENIConfigs = []snapshot.ENIConfig{{Name: "us-west-2a", Subnet: "subnet-0pod"}}
		s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0pod", CIDR: podCIDR, Zone: "us-west-2a", AvailableIPs: free})
		podENI("subnet-0pod", "100.64.0.", 10)(s)
	}
}

func TestUsableIPs(t *testing.T) {
	for _, tc := range []struct {
		cidr string
		want int64
	}{
		{"10.0.0.0/24", 251},
		{"10.0.0.0/28", 11},
		{"10.0.0.0/16", 65531},
		{"2600:1f14::/64", 0},
		{"garbage", 0},
	} {
		t.Run(tc.cidr, func(t *testing.T) {
			if got := usableIPs(tc.cidr); got != tc.want {
				t.Errorf("usableIPs(%q) = %d, want %d", tc.cidr, got, tc.want)
			}
		})
	}
}

// ciliumAWSNode patches aws-node as Cilium's EKS install does: a nodeSelector no node carries.
func ciliumAWSNode(s *snapshot.Snapshot) {
	s.AWSNode.Scheduling.NodeSelector = map[string]string{"io.cilium/aws-node-enabled": "true"}
}
