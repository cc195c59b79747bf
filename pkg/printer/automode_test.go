package printer

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// autoNodeReport is an EKS Auto Mode node with pod subnets: its class is a NodeClass, its
// capacity.pods the figure EKS set and its IP capacity an estimate.
func autoNodeReport() diagnose.NodeReport {
	const inst = "i-0a1b2c3d4e5f60718"
	sgs := []string{"sg-0aaa111111111111a"}
	return diagnose.NodeReport{
		Identity: diagnose.Identity{
			Node: inst, ProviderID: "aws:///eu-west-1a/" + inst, InstanceID: inst, InstanceState: "running",
			InstanceType: "c6a.large", Zone: "eu-west-1a", ZoneID: "euw1-az2", NodePool: "general-purpose",
			NodeClass: "default", NodeClassKind: "NodeClass", AutoMode: true, NodeClaim: "general-purpose-q8v4m",
		},
		Addresses: []diagnose.AddressReport{{Address: "10.0.12.40", InSubnet: ptr(true), IsPrimaryIP: ptr(true)}},
		Subnet: &diagnose.SubnetReport{ID: gpuSubnet, CIDR: "10.0.0.0/20", Zone: "eu-west-1a", ZoneID: "euw1-az2",
			AvailableIPs: ptr(int32(3900)), Selected: ptr(true)},
		SecurityGroups: &diagnose.SecurityGroups{
			Groups:    []diagnose.SecurityGroupReport{{ID: sgs[0], Name: "eks-cluster-sg-prod-1234567890", InNodeClass: ptr(true)}},
			NodeClass: sgs, Match: ptr(true),
		},
		ENIs: []diagnose.ENIReport{
			{ID: "eni-0a0a0a0a0a0a0a0a0", InterfaceType: "interface", SubnetID: gpuSubnet,
				PrivateIPs: []string{"10.0.12.40"}, SecurityGroups: sgs},
			{DeviceIndex: 1, ID: "eni-0b0b0b0b0b0b0b0b0", InterfaceType: "interface", SubnetID: "subnet-0pods1111111111",
				PrivateIPs: []string{"100.64.0.5", "100.64.0.6"}, IPv4Prefixes: []string{"100.64.0.16/28"},
				SecurityGroups: []string{"sg-0pods11111111111"}},
		},
		Capacity: &diagnose.CapacityReport{AutoMode: true, Estimate: true, Pods: 27, IPCapacity: 18,
			DefaultCardENIs: 3, IPv4PerENI: 10, PrefixDelegation: true, UsableENIs: 2, ENIsAttached: 2,
			Formula: "estimate min(110, (3 ENIs - 1 primary (pod subnets)) x (10 IPv4 - 1)) = 18; EKS does not " +
				"publish Auto Mode's max pods, capacity.pods is the real figure"},
		AutoMode: &diagnose.AutoModeReport{
			NodeClass: "default", IPMode: "Auto: /28 prefixes, with /32 secondary IPs when the subnet is too fragmented",
			PodSubnetSelectorTerms: []string{"tags kubernetes.io/role/pod=1"}, PodSubnets: []string{"subnet-0pods1111111111"},
			PodSecurityGroupSelectorTerms: []string{"id sg-0pods11111111111"},
		},
		EFA:       &diagnose.EFAReport{},
		Placement: &diagnose.PlacementReport{},
		Findings:  []diagnose.Finding{},
		Status:    "ok",
	}
}

func TestAutoModeSheet(t *testing.T) {
	cases := []struct {
		name    string
		node    diagnose.NodeReport
		want    []string
		notWant []string
	}{
		{
			name: "Auto Mode node names its NodeClass and shows capacity.pods with an estimate",
			node: autoNodeReport(),
			want: []string{
				"NodeClass:     default", "EKS Auto Mode: yes", "Selected by NodeClass", "Matches NodeClass",
				"27 (set by EKS Auto Mode)", "about 18 (estimate)", "Auto Mode pod networking",
				"Pod subnet terms", "tags kubernetes.io/role/pod=1", "Pod SG terms", "NodeClass selects",
			},
			notWant: []string{"EC2NodeClass", "Custom networking", "Trunk ENI"},
		},
		{
			name:    "self-managed node keeps EC2NodeClass and no Auto Mode section",
			node:    gpuNodeReport(),
			want:    []string{"EC2NodeClass", "Selected by EC2NodeClass", "Custom networking"},
			notWant: []string{"EKS Auto Mode", "Auto Mode pod networking", "estimate"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := NodeSheet(tc.node, nil, 100, nil)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("sheet lacks %q; got:\n%s", w, got)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("sheet has %q, want it absent; got:\n%s", w, got)
				}
			}
		})
	}
}
