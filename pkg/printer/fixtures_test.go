package printer

import (
	"fmt"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func ptr[T any](v T) *T { return &v }

// takenAt is a snapshot time outside UTC, so printers must convert it.
func takenAt() time.Time {
	return time.Date(2025, 6, 1, 14, 30, 0, 0, time.FixedZone("CEST", 2*60*60))
}

const (
	gpuNode   = "ip-10-0-12-34.eu-west-1.compute.internal"
	webNode   = "ip-10-0-40-7.eu-west-1.compute.internal"
	goneNode  = "ip-10-0-77-1.eu-west-1.compute.internal"
	hybridNd  = "mi-0123456789abcdef0"
	gpuSubnet = "subnet-0a1b2c3d4e5f60718"
)

// findingsReport has findings of every severity, a data gap and a skipped node.
func findingsReport() diagnose.Report {
	return diagnose.Report{
		Kind:       diagnose.ReportKind,
		APIVersion: diagnose.ReportAPIVersion,
		Taken:      takenAt(),
		Context:    "arn:aws:eks:eu-west-1:123456789012:cluster/prod-training",
		Cluster:    "https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com",
		Region:     "eu-west-1",
		Summary: diagnose.Summary{
			Listed: 5, Statuses: map[string]int{"ok": 1, "initialising": 0, "terminating": 0, "info": 1, "warning": 1, "critical": 1, "skipped": 1},
			Nodes: 4, Clean: 1, WithInfo: 1, WithWarnings: 1, WithCritical: 1, Skipped: 1,
			Findings: map[string]int{"critical": 2, "warning": 2, "info": 1},
		},
		Nodes: []diagnose.NodeReport{gpuNodeReport()},
		Findings: []diagnose.Finding{
			{
				ID: "max-pods-exceeds-ip-capacity", Severity: diagnose.Critical, Node: webNode,
				Message: "capacity.pods 110 is above the 29 pod IPs the ENIs of this m5.large can give: " +
					"(3 ENIs - 0) x (10 IPv4 - 1) + 2 = 29",
				Remedy: "set spec.kubelet.maxPods: 29 on EC2NodeClass default, or turn on prefix delegation " +
					"(ENABLE_PREFIX_DELEGATION=true on the aws-node DaemonSet) and set maxPods to match",
			},
			{
				ID: "subnet-ip-exhaustion", Severity: diagnose.Critical, Resource: "subnet/" + gpuSubnet,
				Message: "subnet " + gpuSubnet + " (10.0.0.0/20, eu-west-1a) has 12 of 4091 IPs free (0.3%), " +
					"used by 3 nodes of EC2NodeClass gpu; new pods and nodes there will fail to get an IP",
				Remedy: "add subnets in eu-west-1a to EC2NodeClass gpu spec.subnetSelectorTerms, or give the VPC " +
					"a secondary CIDR",
			},
			{
				ID: "data-unavailable", Severity: diagnose.Warning, Resource: "ec2/DescribePlacementGroups",
				Message: "could not read ec2:DescribePlacementGroups (UnauthorizedOperation); checks that " +
					"need it were skipped",
				Remedy: "allow ec2:DescribePlacementGroups to the caller's IAM role",
			},
			{
				ID: "security-group-drift", Severity: diagnose.Warning, Node: gpuNode,
				Resource: "ec2nodeclass/gpu",
				Message: "instance i-0fedcba9876543210 security groups differ from EC2NodeClass gpu " +
					"status.securityGroups: extra sg-0ccc333333333333c; missing sg-0bbb222222222222b",
				Remedy: "make spec.securityGroupSelectorTerms of EC2NodeClass gpu select exactly the groups " +
					"the node should have, then let Karpenter drift the node",
			},
			{
				ID: "instance-type-mismatch", Severity: diagnose.Info, Node: webNode,
				Message: "label node.kubernetes.io/instance-type is m5.xlarge but instance " +
					"i-0123456789abcdef0 is an m5.large",
				Remedy: "remove the label from NodePool spec.template.metadata.labels",
			},
		},
		Gaps: []snapshot.Gap{{
			Source: "ec2:DescribePlacementGroups", Reason: "UnauthorizedOperation",
			Remedy: "allow ec2:DescribePlacementGroups",
		}},
	}
}

// cleanReport has nodes and no findings; its lists are nil to test their JSON shape.
func cleanReport() diagnose.Report {
	return diagnose.Report{
		Taken:   takenAt(),
		Context: "staging",
		Region:  "us-east-1",
		Summary: diagnose.Summary{Listed: 3, Nodes: 3, Clean: 3,
			Statuses: map[string]int{"ok": 3, "initialising": 0, "terminating": 0, "info": 0, "warning": 0, "critical": 0, "skipped": 0}},
	}
}

// gpuNodeReport is a full Karpenter p4d node with EFA and a cluster placement group.
func gpuNodeReport() diagnose.NodeReport {
	ips := make([]string, 50)
	for i := range ips {
		ips[i] = fmt.Sprintf("10.0.12.%d", 34+i)
	}
	sgs := []string{"sg-0aaa111111111111a", "sg-0ccc333333333333c"}
	enis := []diagnose.ENIReport{
		{NetworkCardIndex: 0, DeviceIndex: 0, ID: "eni-0a0a0a0a0a0a0a0a0", InterfaceType: "efa",
			SubnetID: gpuSubnet, PrivateIPs: ips, SecurityGroups: sgs},
		{NetworkCardIndex: 0, DeviceIndex: 1, ID: "eni-0b0b0b0b0b0b0b0b0", InterfaceType: "interface",
			SubnetID: gpuSubnet, PrivateIPs: []string{"10.0.13.5"},
			IPv4Prefixes: []string{"10.0.14.0/28", "10.0.14.16/28", "10.0.14.32/28"}, SecurityGroups: sgs},
	}
	for card := int32(1); card < 4; card++ {
		enis = append(enis, diagnose.ENIReport{NetworkCardIndex: card, DeviceIndex: 0,
			ID: fmt.Sprintf("eni-0c0c0c0c0c0c0c0c%d", card), InterfaceType: "efa-only",
			SubnetID: gpuSubnet, SecurityGroups: sgs[:1]})
	}
	return diagnose.NodeReport{
		Identity: diagnose.Identity{
			Node: gpuNode, ProviderID: "aws:///eu-west-1a/i-0fedcba9876543210",
			InstanceID: "i-0fedcba9876543210", InstanceState: "running", InstanceType: "p4d.24xlarge",
			Zone: "eu-west-1a", ZoneID: "euw1-az2", NodePool: "gpu", NodeClass: "gpu", NodeClaim: "gpu-x7k2p",
		},
		Addresses: []diagnose.AddressReport{{Address: "10.0.12.34", InSubnet: ptr(true), IsPrimaryIP: ptr(true)}},
		Subnet: &diagnose.SubnetReport{ID: gpuSubnet, CIDR: "10.0.0.0/20", Zone: "eu-west-1a",
			ZoneID: "euw1-az2", AvailableIPs: ptr(int32(12)), Selected: ptr(true)},
		SecurityGroups: &diagnose.SecurityGroups{
			Groups: []diagnose.SecurityGroupReport{
				{ID: "sg-0aaa111111111111a", Name: "eks-cluster-sg-prod-training-1234567890", InNodeClass: ptr(true)},
				{ID: "sg-0ccc333333333333c", Name: "legacy-efa-self-referencing-group-for-hpc-jobs", InNodeClass: ptr(false)},
			},
			NodeClass: []string{"sg-0aaa111111111111a", "sg-0bbb222222222222b"},
			Match:     ptr(false),
		},
		ENIs: enis,
		Capacity: &diagnose.CapacityReport{Pods: 737, IPCapacity: 737, DefaultCardENIs: 15, IPv4PerENI: 50,
			UsableENIs: 15, ENIsAttached: 2, Formula: "(15 ENIs - 0) x (50 IPv4 - 1) + 2 = 737"},
		EFA: &diagnose.EFAReport{Supported: true, MaxInterfaces: 4, Attached: 4, Allocatable: 4, NodeClassEFAOnly: 3},
		Placement: &diagnose.PlacementReport{GroupName: "training-cluster", GroupID: "pg-0123456789abcdef0",
			Strategy: "cluster", NodeClassSelects: "name=training-cluster"},
		Findings: []diagnose.Finding{
			{
				ID: "security-group-drift", Severity: diagnose.Warning, Node: gpuNode, Resource: "ec2nodeclass/gpu",
				Message: "instance i-0fedcba9876543210 security groups differ from EC2NodeClass gpu " +
					"status.securityGroups: extra sg-0ccc333333333333c; missing sg-0bbb222222222222b",
				Remedy: "make spec.securityGroupSelectorTerms of EC2NodeClass gpu select exactly the groups " +
					"the node should have, then let Karpenter drift the node",
			},
		},
		Status: "warning",
	}
}

// goneNodeReport is a node whose instance is gone: every EC2 section is missing.
func goneNodeReport() diagnose.NodeReport {
	return diagnose.NodeReport{
		Identity: diagnose.Identity{
			Node: goneNode, ProviderID: "aws:///eu-west-1b/i-0deadbeefdeadbeef",
			InstanceID: "i-0deadbeefdeadbeef", Zone: "eu-west-1b",
		},
		Addresses: []diagnose.AddressReport{{Address: "10.0.77.1"}},
		Findings: []diagnose.Finding{{
			ID: "instance-not-found", Severity: diagnose.Critical, Node: goneNode,
			Message: "DescribeInstances in Region eu-west-1 returned no instance i-0deadbeefdeadbeef for " +
				"providerID aws:///eu-west-1b/i-0deadbeefdeadbeef",
			Remedy: "if the instance is gone, delete the stale Node (the command)",
			Commands: []diagnose.Command{{Argv: []string{"kubectl", "delete", "node", goneNode},
				Changes: "node/" + goneNode}},
		}},
		Status: "critical",
	}
}

// skippedNodeReport is a hybrid node that was not checked against EC2.
func skippedNodeReport() diagnose.NodeReport {
	return diagnose.NodeReport{
		Identity: diagnose.Identity{
			Node: hybridNd, ProviderID: "eks-hybrid:///eu-west-1/prod-training/mi-0123456789abcdef0",
			Skipped: `providerID "eks-hybrid:///eu-west-1/prod-training/mi-0123456789abcdef0" is not an EC2 one`,
		},
		Status: "skipped",
	}
}

// nodesReport holds one node, as `describe node NAME` passes it.
func nodesReport(nodes ...diagnose.NodeReport) diagnose.Report {
	r := diagnose.Report{
		Kind: diagnose.ReportKind, APIVersion: diagnose.ReportAPIVersion, Taken: takenAt(),
		Context: "prod", Region: "eu-west-1", Nodes: nodes, Findings: []diagnose.Finding{},
	}
	r.Summary = diagnose.Summary{Nodes: len(nodes), Findings: map[string]int{}}
	for _, n := range nodes {
		r.Findings = append(r.Findings, n.Findings...)
		for _, f := range n.Findings {
			r.Summary.Findings[f.Severity.String()]++
		}
		switch n.Status {
		case "ok":
			r.Summary.Clean++
		case "info":
			r.Summary.WithInfo++
		case "warning":
			r.Summary.WithWarnings++
		case "critical":
			r.Summary.WithCritical++
		case "skipped":
			r.Summary.Skipped++
		}
	}
	return r
}
