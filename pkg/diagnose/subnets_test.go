package diagnose

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

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
					"(tags or id); otherwise let Karpenter replace the node",
			}},
		},
		{name: "empty status is silent", edit: func(s *snapshot.Snapshot) { s.NodeClasses[0].StatusSubnets = nil }},
		{name: "missing NodeClass is silent", edit: edits(moved, func(s *snapshot.Snapshot) { s.NodeClasses = nil })},
		{name: "missing instance is silent", edit: edits(moved, func(s *snapshot.Snapshot) { s.Instances = nil })},
	})
}

func TestSubnetIPExhaustion(t *testing.T) {
	free := func(n int32) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { s.Subnets[0].AvailableIPs = n }
	}
	remedy := "add subnets in us-west-2a to spec.subnetSelectorTerms of EC2NodeClass default, " + remedyTail
	finding := func(sev Severity, msg string) []Finding {
		return []Finding{{ID: "subnet-ip-exhaustion", Severity: sev, Resource: "subnet/" + subnetA, Message: msg, Remedy: remedy}}
	}
	// m5.large: 3 x (10 - 1) + 2 = 29 pods, so one more node needs 30 and five need 150.
	head := subnetA + " (us-west-2a, 10.0.1.0/24) has %d free of 251 usable IPs"
	need := "one more node of EC2NodeClass default (m5.large) needs up to 30 (29 ENI-limited pods + 1)"
	runCheckCases(t, subnetIPExhaustion, []checkCase{
		{name: "plenty of IPs is silent", edit: free(150)},
		{name: "an IPv6 node takes one IPv4 address: 29 free is silent", edit: edits(free(29), ipv6Node)},
		{name: "a Windows node takes its primary ENI's 10: 60 free is silent", edit: edits(free(60), windowsNode)},
		{name: "a node aws-node does not run on holds 2: 29 free is silent", edit: edits(free(29), ciliumAWSNode)},
		{
			name: "a node aws-node does not run on is sized by what it holds",
			edit: edits(free(9), ciliumAWSNode),
			want: finding(Warning, fmt.Sprintf(head, 9)+", fewer than 5 x 2 = 10 for the next nodes: one more node like "+nodeA+
				", which aws-node does not run on, holds 2 addresses here now"),
		},
		{name: "29 free is critical", edit: free(29), want: finding(Critical, fmt.Sprintf(head, 29)+", fewer than "+need)},
		{name: "30 free is a warning", edit: free(30), want: finding(Warning, fmt.Sprintf(head, 30)+", fewer than 5 x 30 = 150 for the next nodes: "+need)},
		{name: "149 free is a warning", edit: free(149), want: finding(Warning, fmt.Sprintf(head, 149)+", fewer than 5 x 30 = 150 for the next nodes: "+need)},
		{
			name: "under 10% of a large subnet is a warning",
			edit: edits(free(400), func(s *snapshot.Snapshot) { s.Subnets[0].CIDR = "10.0.0.0/20" }),
			want: finding(Warning, subnetA+" (us-west-2a, 10.0.0.0/20) has 400 free of 4091 usable IPs, under 10% of the subnet; "+need),
		},
		{
			name: "unknown type skips the need rules but keeps the 10% rule",
			edit: edits(free(20), func(s *snapshot.Snapshot) { s.InstanceTypes = nil }),
			want: finding(Warning, fmt.Sprintf(head, 20)+", under 10% of the subnet; no instance type is known to size the next node"),
		},
		{
			name: "unknown type and 10% free is silent",
			edit: edits(free(26), func(s *snapshot.Snapshot) { s.InstanceTypes = nil }),
		},
		{
			name: "subnet only in NodeClass status uses the class's node types",
			edit: func(s *snapshot.Snapshot) {
				s.NodeClasses[0].StatusSubnets = append(s.NodeClasses[0].StatusSubnets, snapshot.SubnetStatus{ID: "subnet-0bbb"})
				s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0bbb", CIDR: "10.0.2.0/24", Zone: "us-west-2b", AvailableIPs: 10})
			},
			want: []Finding{{
				ID: "subnet-ip-exhaustion", Severity: Critical, Resource: "subnet/subnet-0bbb",
				Message: "subnet-0bbb (us-west-2b, 10.0.2.0/24) has 10 free of 251 usable IPs, fewer than " + need,
				Remedy:  "add subnets in us-west-2b to spec.subnetSelectorTerms of EC2NodeClass default, " + remedyTail,
			}},
		},
		{
			name: "subnet of non-Karpenter nodes uses their types",
			edit: edits(free(29), func(s *snapshot.Snapshot) {
				s.NodeClasses, s.NodeClaims, s.NodePools = nil, nil, nil
				delete(s.Nodes[0].Labels, snapshot.LabelNodePool)
				delete(s.Nodes[0].Labels, snapshot.LabelEC2NodeClass)
				s.Nodes[0].Labels["eks.amazonaws.com/nodegroup"] = "ng-1"
			}),
			want: []Finding{{
				ID: "subnet-ip-exhaustion", Severity: Critical, Resource: "subnet/" + subnetA,
				Message: fmt.Sprintf(head, 29) + ", fewer than one more node like its non-Karpenter nodes (m5.large) needs up to 30 (29 ENI-limited pods + 1)",
				Remedy:  "add subnets in us-west-2a to the node group's subnet list, " + remedyTail,
			}},
		},
		{
			name: "largest type of the class gives the need",
			edit: edits(free(40), func(s *snapshot.Snapshot) {
				n := karpenterNode("ip-10-0-1-20.us-west-2.compute.internal", "i-0123456789abcdef1", "10.0.1.20")
				n.Labels[corev1.LabelInstanceTypeStable] = "m5.xlarge"
				s.Nodes = append(s.Nodes, n)
				in := instance("i-0123456789abcdef1", "10.0.1.20")
				in.Type = "m5.xlarge"
				s.Instances = append(s.Instances, in)
				s.InstanceTypes = append(s.InstanceTypes, snapshot.InstanceType{
					Name: "m5.xlarge", Hypervisor: "nitro", MaxENIs: 4, NetworkCards: []snapshot.NetworkCard{{MaxENIs: 4}}, IPv4PerENI: 15,
				})
			}),
			want: finding(Critical, fmt.Sprintf(head, 40)+", fewer than one more node of EC2NodeClass default (m5.xlarge) needs up to 59 (58 ENI-limited pods + 1)"),
		},
		{
			name: "custom networking: a node subnet gives one address per node",
			edit: edits(free(29), customNetworking("10.0.1.0/24", 3000)),
		},
		{
			name: "custom networking: a pod subnet needs what the secondary ENIs hold",
			edit: edits(free(29), customNetworking("100.64.0.0/24", 20)),
			want: []Finding{
				{
					ID: "subnet-ip-exhaustion", Severity: Warning, Resource: "subnet/subnet-0pod",
					Message: "subnet-0pod (us-west-2a, 100.64.0.0/24) has 20 free of 251 usable IPs, fewer than 5 x 18 = 90 " +
						"for the next nodes: one more node with ENIConfig us-west-2a (m5.large) can take 18 pod addresses here",
					Remedy: "point the ENIConfigs of us-west-2a at a larger pod subnet (kubectl edit eniconfig; spec.subnet), " +
						"or add a secondary CIDR to the VPC for a new one",
				},
			},
		},
		{
			name: "custom networking: a pod subnet below one node's pod addresses is critical",
			edit: edits(free(29), customNetworking("100.64.0.0/24", 17)),
			want: []Finding{
				{
					ID: "subnet-ip-exhaustion", Severity: Critical, Resource: "subnet/subnet-0pod",
					Message: "subnet-0pod (us-west-2a, 100.64.0.0/24) has 17 free of 251 usable IPs, fewer than " +
						"one more node with ENIConfig us-west-2a (m5.large) can take 18 pod addresses here",
					Remedy: "point the ENIConfigs of us-west-2a at a larger pod subnet (kubectl edit eniconfig; spec.subnet), " +
						"or add a secondary CIDR to the VPC for a new one",
				},
			},
		},
		{name: "subnet gap is silent", edit: edits(free(1), func(s *snapshot.Snapshot) { s.Subnets = nil }, gap(snapshot.SourceDescribeSubnets))},
	})
}

const remedyTail = "or give the VPC a larger or secondary CIDR; custom networking moves pod addresses to other subnets, and prefix delegation (aws-node ENABLE_PREFIX_DELEGATION=true) packs them into /28 prefixes"

// customNetworking turns on custom networking with an ENIConfig per zone whose pod subnet has
// the given CIDR and free addresses.
func customNetworking(podCIDR string, free int32) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.AWSNode = &snapshot.AWSNode{Env: map[string]string{
			SettingCustomNetwork: "true", SettingENIConfigLabel: corev1.LabelTopologyZone,
		}}
		s.ENIConfigs = []snapshot.ENIConfig{{Name: "us-west-2a", Subnet: "subnet-0pod"}}
		s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0pod", CIDR: podCIDR, Zone: "us-west-2a", AvailableIPs: free})
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
