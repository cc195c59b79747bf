package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// requireZones returns an edit that gives NodePool default the requirement key op values.
func requireZones(key, op string, values ...string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.NodePools[0].Requirements = append(s.NodePools[0].Requirements,
			snapshot.Requirement{Key: key, Operator: op, Values: values})
	}
}

// secondSubnet adds subnet-0bbb in us-west-2b (usw2-az2) to EC2NodeClass default.
func secondSubnet(s *snapshot.Snapshot) {
	s.NodeClasses[0].StatusSubnets = append(s.NodeClasses[0].StatusSubnets,
		snapshot.SubnetStatus{ID: "subnet-0bbb", Zone: "us-west-2b", ZoneID: "usw2-az2"})
}

func TestNodePoolZoneUnreachable(t *testing.T) {
	const zone, zoneID = "topology.kubernetes.io/zone", "topology.k8s.aws/zone-id"
	critical := func(rule, has string) []Finding {
		return []Finding{{
			ID: "nodepool-zone-unreachable", Severity: Critical, Resource: "nodepool/default",
			Message: "NodePool default requires " + rule + " but EC2NodeClass default has subnets only in " + has +
				": no zone is left, so Karpenter can launch no node for this NodePool",
			Remedy: "add a subnet in a required zone to spec.subnetSelectorTerms of EC2NodeClass default, or change " +
				"the zone requirement in spec.template.spec.requirements of NodePool default to zones the class has " +
				"subnets in (" + has + ")",
		}}
	}
	runCheckCases(t, nodePoolZoneUnreachable, []checkCase{
		{name: "no zone requirement is silent"},
		{name: "a zone the class has is silent", edit: requireZones(zone, "In", "us-west-2a")},
		{name: "other requirements are silent", edit: requireZones("kubernetes.io/arch", "In", "arm64")},
		{name: "zone outside the class's subnets is critical", edit: requireZones(zone, "In", "us-west-2c", "us-west-2d"),
			want: critical("topology.kubernetes.io/zone In [us-west-2c, us-west-2d]", "us-west-2a")},
		{name: "NotIn every zone of the class is critical", edit: edits(secondSubnet, requireZones(zone, "NotIn", "us-west-2a", "us-west-2b")),
			want: critical("topology.kubernetes.io/zone NotIn [us-west-2a, us-west-2b]", "us-west-2a, us-west-2b")},
		{name: "NotIn leaving a zone is silent", edit: edits(secondSubnet, requireZones(zone, "NotIn", "us-west-2b"))},
		{name: "two In requirements intersect", edit: edits(secondSubnet, requireZones(zone, "In", "us-west-2a", "us-west-2c"),
			requireZones(zone, "In", "us-west-2b", "us-west-2c")),
			want: critical("topology.kubernetes.io/zone In [us-west-2c]", "us-west-2a, us-west-2b")},
		{name: "zone ID outside the class's subnets is critical", edit: requireZones(zoneID, "In", "usw2-az4"),
			want: critical("topology.k8s.aws/zone-id In [usw2-az4]", "us-west-2a (usw2-az1)")},
		{name: "zone ID from the subnet when status has none", edit: edits(
			func(s *snapshot.Snapshot) { s.NodeClasses[0].StatusSubnets[0].ZoneID = "" }, requireZones(zoneID, "In", "usw2-az1"))},
		{name: "unknown zone ID is silent", edit: edits(func(s *snapshot.Snapshot) {
			s.NodeClasses[0].StatusSubnets[0].ZoneID, s.Subnets = "", nil
		}, requireZones(zoneID, "In", "usw2-az4"))},
		{
			name: "required zone without a subnet is a warning",
			edit: edits(secondSubnet, requireZones(zone, "In", "us-west-2a", "us-west-2b", "us-west-2c")),
			want: []Finding{{
				ID: "nodepool-zone-unreachable", Severity: Warning, Resource: "nodepool/default",
				Message: "NodePool default requires topology.kubernetes.io/zone In [us-west-2a, us-west-2b, us-west-2c] but " +
					"EC2NodeClass default has no subnet in us-west-2c (its subnets are in us-west-2a, us-west-2b): " +
					"Karpenter launches no node there, so pods that must run in us-west-2c stay Pending",
				Remedy: "add a subnet in us-west-2c to spec.subnetSelectorTerms of EC2NodeClass default, or remove " +
					"us-west-2c from the zone requirement in spec.template.spec.requirements of NodePool default",
			}},
		},
		{name: "class without status subnets is silent", edit: edits(requireZones(zone, "In", "us-west-2c"),
			func(s *snapshot.Snapshot) { s.NodeClasses[0].StatusSubnets = nil })},
		{name: "unknown class is silent", edit: edits(requireZones(zone, "In", "us-west-2c"),
			func(s *snapshot.Snapshot) { s.NodeClasses = nil })},
		{name: "v1beta1 reference without kind is checked", edit: edits(requireZones(zone, "In", "us-west-2c"),
			func(s *snapshot.Snapshot) { s.NodePools[0].NodeClassRef = snapshot.NodeClassRef{Name: "default"} }),
			want: critical("topology.kubernetes.io/zone In [us-west-2c]", "us-west-2a")},
	})
}

// inVPC puts the healthy subnet and security group in vpc-0abc, where the instance is.
func inVPC(s *snapshot.Snapshot) {
	s.Subnets[0].VpcID, s.SecurityGroups[0].VpcID = "vpc-0abc", "vpc-0abc"
}

// foreignSubnet adds subnet-0other of vpc-0other to the snapshot and to EC2NodeClass default.
func foreignSubnet(s *snapshot.Snapshot) {
	s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0other", VpcID: "vpc-0other", CIDR: "172.16.0.0/24", Zone: "us-west-2a"})
	s.NodeClasses[0].StatusSubnets = append(s.NodeClasses[0].StatusSubnets, snapshot.SubnetStatus{ID: "subnet-0other", Zone: "us-west-2a"})
}

func TestNodeClassSubnetVPCMismatch(t *testing.T) {
	const selectors = "spec.subnetSelectorTerms and spec.securityGroupSelectorTerms of EC2NodeClass default"
	const reject = "; EC2 rejects launches that pair a subnet with a security group of another VPC (\"Security group " +
		"... and subnet ... belong to different networks\")"
	const clusterTail = "; the cluster's nodes run in vpc-0abc, and a node launched in another VPC cannot reach the cluster"
	runCheckCases(t, nodeClassSubnetVPCMismatch, []checkCase{
		{name: "unknown VPCs are silent"},
		{name: "one VPC, the cluster's, is silent", edit: inVPC},
		{
			name: "subnet of another VPC is critical",
			edit: edits(inVPC, foreignSubnet),
			want: []Finding{{
				ID: "nodeclass-subnet-vpc-mismatch", Severity: Critical, Resource: "ec2nodeclass/default",
				Message: "EC2NodeClass default resolves subnets and security groups in 2 VPCs: vpc-0abc (sg-0nodes, " +
					"subnet-0aaa), vpc-0other (subnet-0other)" + reject + clusterTail,
				Remedy: "make " + selectors + " select only resources in vpc-0abc (drop subnet-0other): the selectors " +
					"have no VPC filter, so select by ID or by tags only the cluster VPC's subnets and groups carry",
			}},
		},
		{
			name: "class wholly in another VPC is critical",
			edit: edits(inVPC, foreignSubnet, func(s *snapshot.Snapshot) {
				s.NodeClasses[0].StatusSubnets = s.NodeClasses[0].StatusSubnets[1:]
				s.SecurityGroups[0].VpcID = "vpc-0other"
			}),
			want: []Finding{{
				ID: "nodeclass-subnet-vpc-mismatch", Severity: Critical, Resource: "ec2nodeclass/default",
				Message: "EC2NodeClass default resolves subnets and security groups only in vpc-0other (sg-0nodes, " +
					"subnet-0other)" + clusterTail,
				Remedy: "make " + selectors + " select only resources in vpc-0abc (drop sg-0nodes, subnet-0other): the " +
					"selectors have no VPC filter, so select by ID or by tags only the cluster VPC's subnets and groups carry",
			}},
		},
		{
			name: "two VPCs without nodes are critical",
			edit: edits(inVPC, foreignSubnet, func(s *snapshot.Snapshot) { s.Instances = nil }),
			want: []Finding{{
				ID: "nodeclass-subnet-vpc-mismatch", Severity: Critical, Resource: "ec2nodeclass/default",
				Message: "EC2NodeClass default resolves subnets and security groups in 2 VPCs: vpc-0abc (sg-0nodes, " +
					"subnet-0aaa), vpc-0other (subnet-0other)" + reject,
				Remedy: "make " + selectors + " select resources of the cluster's VPC only: the selectors have no VPC " +
					"filter, so select by ID or by tags only that VPC's subnets and groups carry",
			}},
		},
		{name: "one other VPC is silent when the nodes' VPCs tie", edit: edits(inVPC, foreignSubnet, func(s *snapshot.Snapshot) {
			s.NodeClasses[0].StatusSubnets = s.NodeClasses[0].StatusSubnets[1:]
			s.SecurityGroups[0].VpcID = "vpc-0other"
			s.Nodes = append(s.Nodes, karpenterNode(nodeB, instanceB, "172.16.0.10"))
			in := instance(instanceB, "172.16.0.10")
			in.VpcID = "vpc-0other"
			s.Instances = append(s.Instances, in)
		})},
		{name: "subnets not readable is silent", edit: edits(inVPC, foreignSubnet, func(s *snapshot.Snapshot) {
			s.Subnets = nil
		}, gap(snapshot.SourceDescribeSubnets))},
	})
}
