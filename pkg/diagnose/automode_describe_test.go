package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestDescribeAutoMode(t *testing.T) {
	const tail = "; EKS does not publish Auto Mode's max pods, capacity.pods is the real figure"
	autoMode := "Auto: /28 prefixes, with /32 secondary IPs when the subnet is too fragmented"
	capacity := &CapacityReport{IPFamily: IPv4,
		AutoMode: true, Estimate: true, Pods: 27, IPCapacity: 27, DefaultCardENIs: 3, IPv4PerENI: 10,
		PrefixDelegation: true, UsableENIs: 3, ENIsAttached: 2,
		Formula: "estimate min(110, 3 ENIs x (10 IPv4 - 1)) = 27" + tail,
	}
	type view struct {
		Identity Identity
		Capacity *CapacityReport
		AutoMode *AutoModeReport
	}
	identity := Identity{
		Node: autoNode, ProviderID: "aws:///us-west-2a/" + autoInstance, InstanceID: autoInstance, InstanceState: "running",
		InstanceType: "m5.large", Zone: "us-west-2a", ZoneID: "usw2-az1", NodePool: "general", NodeClass: "default",
		NodeClassKind: snapshot.KindNodeClass, AutoMode: true, NodeClaim: "general-xyz12",
	}
	cases := []struct {
		name string
		edit func(*snapshot.Snapshot)
		want view
	}{
		{
			name: "capacity.pods with an estimated IP capacity",
			want: view{identity, capacity, &AutoModeReport{NodeClass: "default", IPMode: autoMode}},
		},
		{
			name: "the estimate does not need aws-node",
			edit: edits(func(s *snapshot.Snapshot) { s.AWSNode = nil }, gap(snapshot.SourceAWSNode)),
			want: view{identity, capacity, &AutoModeReport{NodeClass: "default", IPMode: autoMode}},
		},
		{
			name: "pod subnets leave out the primary ENI",
			edit: withPodSubnets,
			want: view{identity, &CapacityReport{IPFamily: IPv4,
				AutoMode: true, Estimate: true, Pods: 27, IPCapacity: 18, DefaultCardENIs: 3, IPv4PerENI: 10,
				PrefixDelegation: true, UsableENIs: 2, ENIsAttached: 2,
				Formula: "estimate min(110, (3 ENIs - 1 primary (pod subnets)) x (10 IPv4 - 1)) = 18" + tail,
			}, &AutoModeReport{
				NodeClass: "default", IPMode: autoMode, PodSubnetSelectorTerms: []string{"tags kubernetes.io/role/pod=1"},
				PodSecurityGroupSelectorTerms: []string{"id sg-0pods"}, PodSubnets: []string{autoPodSubnetA},
			}},
		},
		{
			name: "secondary-IP mode and static interfaces",
			edit: func(s *snapshot.Snapshot) {
				c := autoClass(s)
				c.IPv4PrefixSize = "32"
				c.NetworkInterfaces = []snapshot.NetworkInterface{{InterfaceType: "interface"}, {NetworkCardIndex: 1, InterfaceType: interfaceEFAOnly}}
			},
			want: view{identity, &CapacityReport{IPFamily: IPv4,
				AutoMode: true, Estimate: true, Pods: 27, IPCapacity: 27, DefaultCardENIs: 3, IPv4PerENI: 10,
				UsableENIs: 3, ENIsAttached: 2,
				Formula: "estimate min(110, 3 ENIs x (10 IPv4 - 1)) = 27" + tail +
					"; with static networkInterfaces only the IPs given at launch serve pods",
			}, &AutoModeReport{
				NodeClass: "default", IPv4PrefixSize: "32", IPMode: `"32": secondary IPs only, no prefixes`, StaticInterfaces: 2,
			}},
		},
		{
			name: "unread NodeClass keeps the name only",
			edit: func(s *snapshot.Snapshot) { s.NodeClasses = s.NodeClasses[:1] },
			want: view{identity, capacity, &AutoModeReport{NodeClass: "default"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := autoHealthy()
			if tc.edit != nil {
				tc.edit(s)
			}
			r := describeFirst(s)
			got := view{r.Identity, r.Capacity, r.AutoMode}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Describe mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodeClassNotReadyAutoMode(t *testing.T) {
	unauthorized := func(s *snapshot.Snapshot) {
		autoClass(s).Conditions = []snapshot.Condition{
			{Type: "Ready", Status: "False", Reason: "UnhealthyDependents", Message: "ValidationSucceeded=False, InstanceProfileReady=False"},
			{Type: "InstanceProfileReady", Status: "False", Reason: "UnauthorizedNodeRole",
				Message: "Role AutoModeCustomRole is unauthorized to join nodes to the cluster"},
			{Type: "ValidationSucceeded", Status: "False", Reason: "DependenciesNotReady"},
		}
	}
	entryIn := func(cluster string) string {
		return "give the node role of NodeClass default (spec.role) an EKS access entry of type EC2 in " + cluster +
			" with AmazonEKSAutoNodePolicy (arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy, access scope " +
			"cluster): the AWS CLI's eks create-access-entry and then eks associate-access-policy, each with the role's ARN"
	}
	accessEntry := entryIn("the cluster")
	message := "NodeClass default is not Ready, so EKS Auto Mode launches no nodes for NodePool general: " +
		"InstanceProfileReady=False (UnauthorizedNodeRole: Role AutoModeCustomRole is unauthorized to join nodes to the cluster); " +
		"ValidationSucceeded=False (DependenciesNotReady)"
	runCasesOver(t, autoHealthy, nodeClassNotReady, []checkCase{
		{name: "Ready NodeClass is silent"},
		{
			name: "UnauthorizedNodeRole names the access entry",
			edit: unauthorized,
			want: []Finding{{
				ID: "nodeclass-not-ready", Severity: Critical, Resource: "nodeclass/default", Message: message,
				Remedy:   accessEntry + ", then check its conditions (the command)",
				Commands: []Command{{Argv: []string{"kubectl", "describe", "nodeclass", "default"}, ReadOnly: true}},
			}},
		},
		{
			name: "a known cluster name is named, the role's ARN karpnet does not read is not",
			edit: edits(unauthorized, func(s *snapshot.Snapshot) { s.ClusterName = "prod" }),
			want: []Finding{{
				ID: "nodeclass-not-ready", Severity: Critical, Resource: "nodeclass/default", Message: message,
				Remedy:   entryIn("cluster prod") + ", then check its conditions (the command)",
				Commands: []Command{{Argv: []string{"kubectl", "describe", "nodeclass", "default"}, ReadOnly: true}},
			}},
		},
		{
			name: "other failed conditions are kept in the remedy",
			edit: edits(unauthorized, func(s *snapshot.Snapshot) {
				c := autoClass(s)
				c.Conditions = append(c.Conditions, snapshot.Condition{Type: "SubnetsReady", Status: "False",
					Message: "SubnetSelector did not match any Subnets"})
			}),
			want: []Finding{{
				ID: "nodeclass-not-ready", Severity: Critical, Resource: "nodeclass/default",
				Message: "NodeClass default is not Ready, so EKS Auto Mode launches no nodes for NodePool general: " +
					"InstanceProfileReady=False (UnauthorizedNodeRole: Role AutoModeCustomRole is unauthorized to join nodes to the cluster); " +
					"SubnetsReady=False (SubnetSelector did not match any Subnets); ValidationSucceeded=False (DependenciesNotReady)",
				Remedy:   accessEntry + "; fix NodeClass default (spec.subnetSelectorTerms), then check its conditions (the command)",
				Commands: []Command{{Argv: []string{"kubectl", "describe", "nodeclass", "default"}, ReadOnly: true}},
			}},
		},
		{
			name: "the EC2NodeClass of the same name is not the NodePool's",
			edit: func(s *snapshot.Snapshot) {
				s.NodeClasses[0].Conditions = []snapshot.Condition{{Type: "Ready", Status: "False", Reason: "NodeClassNotReady"}}
			},
		},
		{name: "NodeClass not read is silent", edit: edits(unauthorized, func(s *snapshot.Snapshot) { s.NodeClasses = s.NodeClasses[:1] })},
	})
}

func TestSubnetIPExhaustionAutoMode(t *testing.T) {
	runCasesOver(t, autoHealthy, subnetIPExhaustion, []checkCase{
		{name: "plenty of IPs is silent"},
		{name: "a full subnet next to a roomier one of the NodeClass in the zone is silent", edit: func(s *snapshot.Snapshot) { s.Subnets[0].AvailableIPs = 0 }},
		{
			name: "a node subnet of an Auto Mode NodeClass is sized by what its nodes hold, with the Auto Mode remedy",
			edit: func(s *snapshot.Snapshot) {
				s.Subnets[0].AvailableIPs = 20
				for i := range s.NodeClasses {
					if s.NodeClasses[i].AutoMode() {
						s.NodeClasses[i].StatusSubnets = []snapshot.SubnetStatus{{ID: subnetA, Zone: "us-west-2a"}}
					}
				}
			},
			want: []Finding{{
				ID: "subnet-ip-exhaustion", Severity: Warning, Resource: "subnet/" + subnetA,
				Message: "only 1 more node of NodeClass default in us-west-2a fit in its only subnet " + subnetA + " (10.0.1.0/24, " +
					"20 free of 251 usable): each takes about 19 addresses (what its nodes hold in their subnet now, as the CNI " +
					"grows with pods: the median of 1 node)",
				Remedy: "add subnets in us-west-2a to spec.subnetSelectorTerms of NodeClass default (new nodes go to the roomiest " +
					"subnet of the zone; NodeClass default serves 1 node (m5.large), which stay where they are), or give the VPC a larger " +
					"or secondary CIDR; Auto Mode pods can take addresses from other subnets (spec.podSubnetSelectorTerms with " +
					"spec.podSecurityGroupSelectorTerms), and secondary-IP mode (spec.advancedNetworking.ipv4PrefixSize: \"32\") " +
					"takes single addresses instead of /28 prefixes",
			}},
		},
		{
			name: "a pod subnet of an Auto Mode NodeClass is sized by the node's pods",
			edit: edits(withPodSubnets, func(s *snapshot.Snapshot) {
				for i := range s.Subnets {
					if s.Subnets[i].ID == autoPodSubnetA {
						s.Subnets[i].AvailableIPs = 10
					}
				}
			}),
			want: []Finding{{
				ID: "subnet-ip-exhaustion", Severity: Critical, Resource: "subnet/" + autoPodSubnetA,
				Message: "the pod subnets of NodeClass default in us-west-2a can take no more node: its only subnet " + autoPodSubnetA +
					" (100.64.0.0/18, 10 free of 16379 usable) has fewer free addresses than the 18 the next node takes at once " +
					"(an m5.large's estimated pod IPs, no more than its capacity.pods)",
				Remedy: "add pod subnets in us-west-2a to spec.podSubnetSelectorTerms of NodeClass default, or add a secondary " +
					"CIDR to the VPC for a new one; secondary-IP mode (spec.advancedNetworking.ipv4PrefixSize: \"32\") takes " +
					"single addresses instead of /28 prefixes",
			}},
		},
	})
}

func TestReportSubnetsAutoMode(t *testing.T) {
	s := autoHealthy()
	withPodSubnets(s)
	got := Analyze(s, Options{}).Subnets
	want := []SubnetUse{
		{ID: subnetA, CIDR: "10.0.1.0/24", Zone: "us-west-2a", ZoneID: "usw2-az1", AvailableIPs: 200, UsableIPs: 251,
			NodeClasses: []string{"nodeclass/default"}, Nodes: 1},
		{ID: subnetAutoB, CIDR: "10.0.2.0/24", Zone: "us-west-2a", ZoneID: "usw2-az1", AvailableIPs: 200, UsableIPs: 251,
			NodeClasses: []string{"nodeclass/default"}},
		{ID: autoPodSubnetA, CIDR: "100.64.0.0/18", Zone: "us-west-2a", AvailableIPs: 16000, UsableIPs: 16379, PodSubnet: true,
			NodeClasses: []string{"nodeclass/default"}, ENINodes: 1}, // the node's pod ENI
		// the class's pod subnet in a zone it has no node in is one it selects all the same
		{ID: "subnet-0pdc", CIDR: "100.64.128.0/18", Zone: "us-west-2c", AvailableIPs: 16000, UsableIPs: 16379, PodSubnet: true,
			NodeClasses: []string{"nodeclass/default"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Report.Subnets (-want +got):\n%s", diff)
	}
}
