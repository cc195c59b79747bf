package diagnose

import (
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// launchErr is a Launched=Unknown condition with a launch error, set a minute ago.
func launchErr(reason, message string) snapshot.Condition {
	return cond(condLaunched, "Unknown", reason, message, time.Minute)
}

// publicIPTwoInterfaces makes class default ask for a public IP with two network interfaces.
func publicIPTwoInterfaces(s *snapshot.Snapshot) {
	on := true
	s.NodeClasses[0].AssociatePublicIPAddress = &on
	s.NodeClasses[0].NetworkInterfaces = []snapshot.NetworkInterface{{DeviceIndex: 0, InterfaceType: "interface"},
		{NetworkCardIndex: 1, InterfaceType: "efa-only"}}
}

func TestNodeClaimLaunchFailed(t *testing.T) {
	runCheckCases(t, nodeClaimLaunchFailed, []checkCase{
		{name: "subnet full (Karpenter v1.2+ reason)", edit: edits(unjoined(90*time.Second, false,
			launchErr("InsufficientFreeAddressesInSubnet", "There are not enough free IP addresses to launch an instance in this subnet")),
			func(s *snapshot.Snapshot) { s.Subnets[0].AvailableIPs = 0 }), want: []Finding{{
			ID: "nodeclaim-launch-failed", Severity: Critical, Resource: "nodeclaim/" + claimB,
			Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) has not launched 2m after its " +
				"creation: Launched=Unknown, reason InsufficientFreeAddressesInSubnet: \"There are not enough free IP " +
				"addresses to launch an instance in this subnet\"; the subnets are out of addresses: EC2NodeClass default " +
				"selects subnet-0aaa (10.0.1.0/24, 0 free of 251 usable); Karpenter deletes it and tries again in about " +
				"4m (5-minute launch timeout)",
			Remedy: "add subnets with free addresses to EC2NodeClass default spec.subnetSelectorTerms (Karpenter launches " +
				"into the roomiest subnet of each zone), or free addresses in the full ones (see instance-orphaned for " +
				"instances that hold addresses without a NodeClaim)",
		}}},
		{name: "public IP with several interfaces (raw error, older Karpenter)", edit: unjoined(time.Minute, false,
			launchErr("LaunchFailed", "creating nodeclaim, creating instance, with fleet error(s), InvalidParameterCombination: "+
				"The associatePublicIPAddress parameter cannot be specified when launching with multiple network interfaces.")),
			want: []Finding{{
				ID: "nodeclaim-launch-failed", Severity: Critical, Resource: "nodeclaim/" + claimB,
				Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) has not launched 1m after its " +
					"creation: Launched=Unknown, reason LaunchFailed: \"creating nodeclaim, creating instance, with fleet " +
					"error(s), InvalidParameterCombination: The associatePublicIPAddress parameter cannot be specified when " +
					"launching with multiple network interfaces.\"; EC2 refuses a public IPv4 address on an instance launched " +
					"with several network interfaces; Karpenter deletes it and tries again in about 4m (5-minute launch timeout)",
				Remedy: "remove spec.associatePublicIPAddress from EC2NodeClass default (or set it to false) and give the " +
					"nodes outbound access through a NAT gateway",
			}}},
		{name: "generic LaunchFailed on a class with a public IP and two interfaces", edit: edits(publicIPTwoInterfaces,
			unjoined(time.Minute, false, launchErr("LaunchFailed", "Instance launch failed"))), want: []Finding{{
			ID: "nodeclaim-launch-failed", Severity: Critical, Resource: "nodeclaim/" + claimB,
			Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) has not launched 1m after its " +
				"creation: Launched=Unknown, reason LaunchFailed: \"Instance launch failed\"; EC2NodeClass default sets " +
				"associatePublicIPAddress: true with 2 network interfaces, which EC2 refuses (InvalidParameterCombination) " +
				"and Karpenter reports only as LaunchFailed; Karpenter deletes it and tries again in about 4m (5-minute " +
				"launch timeout)",
			Remedy:   "remove spec.associatePublicIPAddress from EC2NodeClass default, or read the full EC2 error in " + karpenterLogText,
			Commands: karpenterLogCommands(),
		}}},
		{name: "Launched=False with an unknown error and an event", edit: edits(
			unjoined(time.Minute, false, cond(condLaunched, "False", "AMINotFound", "AMI used for instance launch either does not exist", time.Minute)),
			claimEvent("FailedLaunch", "retrying", 10*time.Second)), want: []Finding{{
			ID: "nodeclaim-launch-failed", Severity: Critical, Resource: "nodeclaim/" + claimB,
			Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) has not launched 1m after its " +
				"creation: Launched=False, reason AMINotFound: \"AMI used for instance launch either does not exist\"; the " +
				"error is not a networking one karpnet knows; last event FailedLaunch (x2): \"retrying\"; Karpenter deletes " +
				"it and tries again in about 4m (5-minute launch timeout)",
			Remedy:   "read the full EC2 error in " + karpenterLogText,
			Commands: karpenterLogCommands(),
		}}},
		{name: "throttled: a warning", edit: unjoined(6*time.Minute, false, cond(condLaunched, "Unknown", "RequestLimitExceeded", "Request limit exceeded", 6*time.Minute)),
			want: []Finding{{
				ID: "nodeclaim-launch-failed", Severity: Warning, Resource: "nodeclaim/" + claimB,
				Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) has not launched 6m after its " +
					"creation: Launched=Unknown, reason RequestLimitExceeded: \"Request limit exceeded\"; EC2 throttled the " +
					"request or failed internally; Karpenter retries; its 5-minute launch timeout passed 1m ago and " +
					"Karpenter has not deleted it: check that Karpenter runs",
				Remedy:   "nothing if it clears; if it persists, read " + karpenterLogText,
				Commands: karpenterLogCommands(),
			}}},
		{name: "a security group that does not exist names the command that shows the class's groups",
			edit: unjoined(time.Minute, false, launchErr("LaunchFailed", "InvalidGroup.NotFound: The security group 'sg-0gone' does not exist")),
			want: []Finding{{
				ID: "nodeclaim-launch-failed", Severity: Critical, Resource: "nodeclaim/" + claimB,
				Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) has not launched 1m after its " +
					"creation: Launched=Unknown, reason LaunchFailed: \"InvalidGroup.NotFound: The security group 'sg-0gone' " +
					"does not exist\"; a security group the launch uses does not exist; Karpenter deletes it and tries " +
					"again in about 4m (5-minute launch timeout)",
				Remedy: "fix EC2NodeClass default spec.securityGroupSelectorTerms so they match existing groups " +
					"(status.securityGroups, condition SecurityGroupsReady); the command shows them",
				Commands: []Command{{Argv: []string{"kubectl", "get", "ec2nodeclass", "default", "-o", "yaml"}, ReadOnly: true}},
			}}},
		{name: "still launching seconds after creation", edit: unjoined(5*time.Second, false,
			cond(condLaunched, "Unknown", reasonAwaitingRec, "object is awaiting reconciliation", 5*time.Second))},
		{name: "no Launched condition yet", edit: unjoined(time.Second, false)},
		{name: "claim being deleted", edit: edits(unjoined(time.Minute, false, launchErr("InsufficientFreeAddressesInSubnet", "x")), claimDeleting)},
		{name: "launched claim with its Node"},
		{name: "NodeClaims not readable", edit: edits(unjoined(time.Minute, false, launchErr("LaunchFailed", "x")), gap(snapshot.SourceNodeClaims))},
	})
}

// registeredUnknown is Karpenter's Registered condition while no Node has joined, set at creation.
func registeredUnknown(ago time.Duration) snapshot.Condition {
	return cond(condRegistered, "Unknown", "NodeNotFound", "Node not registered with cluster", ago)
}

func TestNodeClaimNotRegistered(t *testing.T) {
	launched := func(ago time.Duration) func(*snapshot.Snapshot) {
		return unjoined(ago, true, cond(condLaunched, "True", "", "", ago), registeredUnknown(ago))
	}
	remedy := "check that a new node in the subnet can reach the EKS API endpoint, ECR and STS on 443 (a route to a NAT " +
		"or internet gateway, or the VPC endpoints of a private cluster; security-group egress; the subnet's network " +
		"ACL) and that the node role has an EKS access entry; the instance's console shows where it stopped (the command)"
	console := []Command{{Argv: []string{"aws", "ec2", "get-console-output", "--instance-id", "i-0fedcba9876543210", "--latest"},
		ReadOnly: true}}
	runCheckCases(t, nodeClaimNotRegistered, []checkCase{
		{name: "launched 7 minutes ago, no Node", edit: edits(launched(7*time.Minute),
			claimEvent("Registering", "waiting for node", 30*time.Second)), want: []Finding{{
			ID: "nodeclaim-not-registered", Severity: Critical, Resource: "nodeclaim/" + claimB,
			Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) launched 7m ago and no Node " +
				"registered (Registered=Unknown, NodeNotFound: \"Node not registered with cluster\"); instance " +
				"i-0fedcba9876543210 is running in subnet-0aaa (10.0.1.0/24) at 10.0.1.50; last event Registering (x2): " +
				"\"waiting for node\"; Karpenter deletes it and tries again in about 8m (15-minute registration TTL)",
			Remedy: remedy, Commands: console,
		}}},
		{name: "past the registration TTL", edit: launched(20 * time.Minute), want: []Finding{{
			ID: "nodeclaim-not-registered", Severity: Critical, Resource: "nodeclaim/" + claimB,
			Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) launched 20m ago and no Node " +
				"registered (Registered=Unknown, NodeNotFound: \"Node not registered with cluster\"); instance " +
				"i-0fedcba9876543210 is running in subnet-0aaa (10.0.1.0/24) at 10.0.1.50; its 15-minute registration " +
				"TTL passed 5m ago and Karpenter has not deleted it: check that Karpenter runs",
			Remedy: remedy, Commands: console,
		}}},
		{name: "instance terminated before registering: info", edit: edits(launched(2*time.Minute),
			func(s *snapshot.Snapshot) { s.Instances[len(s.Instances)-1].State = "terminated" }), want: []Finding{{
			ID: "nodeclaim-not-registered", Severity: Info, Resource: "nodeclaim/" + claimB,
			Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) launched 2m ago and no Node " +
				"registered (Registered=Unknown, NodeNotFound: \"Node not registered with cluster\"); instance " +
				"i-0fedcba9876543210 is terminated in subnet-0aaa (10.0.1.0/24) at 10.0.1.50; Karpenter deletes it and " +
				"tries again in about 13m (15-minute registration TTL)",
			Remedy: "find why the instance ended in its state reason (the command; Client.InternalError at boot is often " +
				"an encrypted EBS volume whose KMS key the launching role cannot use); Karpenter removes the NodeClaim itself",
			Commands: []Command{{Argv: []string{"aws", "ec2", "describe-instances", "--instance-ids", "i-0fedcba9876543210",
				"--query", "Reservations[].Instances[].StateReason"}, ReadOnly: true}},
		}}},
		{name: "no route and no endpoints: the finding says so", edit: edits(launched(7*time.Minute), withoutDefaultRoute,
			func(s *snapshot.Snapshot) { s.NetworkACLs = nil }), want: []Finding{{
			ID: "nodeclaim-not-registered", Severity: Critical, Resource: "nodeclaim/" + claimB,
			Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) launched 7m ago and no Node " +
				"registered (Registered=Unknown, NodeNotFound: \"Node not registered with cluster\"); instance " +
				"i-0fedcba9876543210 is running in subnet-0aaa (10.0.1.0/24) at 10.0.1.50; subnet subnet-0aaa has no way " +
				"out: no default route; VPC endpoints missing: ec2, ecr.api, ecr.dkr, s3, sts; Karpenter deletes it and " +
				"tries again in about 8m (15-minute registration TTL)",
			Remedy: remedy, Commands: console,
		}}},
		{name: "a NAT gateway without an internet gateway route: the finding names it", edit: edits(launched(7*time.Minute),
			natOnMainTable), want: []Finding{{
			ID: "nodeclaim-not-registered", Severity: Critical, Resource: "nodeclaim/" + claimB,
			Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) launched 7m ago and no Node " +
				"registered (Registered=Unknown, NodeNotFound: \"Node not registered with cluster\"); instance " +
				"i-0fedcba9876543210 is running in subnet-0aaa (10.0.1.0/24) at 10.0.1.50; its subnet routes to " +
				"nat-0aaa, which sits in subnet-0public without an internet gateway route (route table rtb-0main (the " +
				"VPC's main table)), and no VPC endpoints stand in for it (missing: ec2, ecr.api, ecr.dkr, s3, sts); " +
				"Karpenter deletes it and tries again in about 8m (15-minute registration TTL)",
			Remedy: remedy, Commands: console,
		}}},
		{name: "a regional NAT gateway without an internet gateway route: the finding names it, with no subnet",
			edit: edits(launched(7*time.Minute), regionalNATRoute("")), want: []Finding{{
				ID: "nodeclaim-not-registered", Severity: Critical, Resource: "nodeclaim/" + claimB,
				Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) launched 7m ago and no Node " +
					"registered (Registered=Unknown, NodeNotFound: \"Node not registered with cluster\"); instance " +
					"i-0fedcba9876543210 is running in subnet-0aaa (10.0.1.0/24) at 10.0.1.50; its subnet routes to " +
					"nat-0regional, a regional NAT gateway whose route table rtb-0natregional has no internet gateway " +
					"route, and no VPC endpoints stand in for it (missing: ec2, ecr.api, ecr.dkr, s3, sts); Karpenter " +
					"deletes it and tries again in about 8m (15-minute registration TTL)",
				Remedy: remedy, Commands: console,
			}}},
		{name: "a private NAT gateway whose subnet routes to the internet gateway: the finding says it drops it",
			edit: edits(launched(7*time.Minute), withPrivateNAT(igwA)), want: []Finding{{
				ID: "nodeclaim-not-registered", Severity: Critical, Resource: "nodeclaim/" + claimB,
				Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) launched 7m ago and no Node " +
					"registered (Registered=Unknown, NodeNotFound: \"Node not registered with cluster\"); instance " +
					"i-0fedcba9876543210 is running in subnet-0aaa (10.0.1.0/24) at 10.0.1.50; its subnet routes to " +
					"nat-0aaa, a private NAT gateway in subnet-0public whose route table rtb-0public sends 0.0.0.0/0 to " +
					"igw-0a, which drops its traffic (a private NAT gateway reaches other networks through a transit or " +
					"virtual private gateway, never the internet), and no VPC endpoints stand in for it (missing: ec2, " +
					"ecr.api, ecr.dkr, s3, sts); Karpenter deletes it and tries again in about 8m (15-minute " +
					"registration TTL)",
				Remedy: remedy, Commands: console,
			}}},
		{name: "a regional NAT gateway: no cause named", edit: edits(launched(7*time.Minute), withRegionalNAT),
			want: []Finding{{
				ID: "nodeclaim-not-registered", Severity: Critical, Resource: "nodeclaim/" + claimB,
				Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) launched 7m ago and no Node " +
					"registered (Registered=Unknown, NodeNotFound: \"Node not registered with cluster\"); instance " +
					"i-0fedcba9876543210 is running in subnet-0aaa (10.0.1.0/24) at 10.0.1.50; Karpenter deletes it " +
					"and tries again in about 8m (15-minute registration TTL)",
				Remedy: remedy, Commands: console,
			}}},
		{name: "a NAT gateway in a public subnet: no cause named", edit: edits(launched(7*time.Minute), withNATPath),
			want: []Finding{{
				ID: "nodeclaim-not-registered", Severity: Critical, Resource: "nodeclaim/" + claimB,
				Message: "NodeClaim default-xk2p9 (NodePool default, EC2NodeClass default) launched 7m ago and no Node " +
					"registered (Registered=Unknown, NodeNotFound: \"Node not registered with cluster\"); instance " +
					"i-0fedcba9876543210 is running in subnet-0aaa (10.0.1.0/24) at 10.0.1.50; Karpenter deletes it " +
					"and tries again in about 8m (15-minute registration TTL)",
				Remedy: remedy, Commands: console,
			}}},
		{name: "launched 30 seconds ago, not registered yet", edit: launched(30 * time.Second)},
		{name: "registered claim with its Node"},
		{name: "claim being deleted", edit: edits(launched(10*time.Minute), claimDeleting)},
		{name: "claim still launching", edit: unjoined(10*time.Minute, false, launchErr("LaunchFailed", "x"))},
		{name: "Nodes not readable", edit: edits(launched(10*time.Minute), gap(snapshot.SourceNodes))},
	})
}

// poolCondition returns an edit that sets NodeRegistrationHealthy on NodePool default.
func poolCondition(status, reason, message string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.NodePools[0].Conditions = append(s.NodePools[0].Conditions,
			cond(condNodeRegistrationHealthy, status, reason, message, 3*time.Minute))
	}
}

func TestNodePoolRegistrationUnhealthy(t *testing.T) {
	runCheckCases(t, nodePoolRegistrationUnhealthy, []checkCase{
		{name: "registration failed, tied to the failing claim", edit: edits(poolCondition("False", "RegistrationFailed", "Failed to register node"),
			unjoined(8*time.Minute, true, cond(condLaunched, "True", "", "", 8*time.Minute), registeredUnknown(8*time.Minute))),
			want: []Finding{{
				ID: "nodepool-registration-unhealthy", Severity: Critical, Resource: "nodepool/default",
				Message: "NodePool default has NodeRegistrationHealthy=False since 3m ago, reason RegistrationFailed: " +
					"\"Failed to register node\"; its NodeClaims without a Node: default-xk2p9 (not registered)",
				Remedy: "instances launched but never became Nodes: check the node subnets' way out to the EKS API endpoint, " +
					"ECR and STS on 443 (routes to a NAT or internet gateway, or VPC endpoints; security-group egress; " +
					"network ACLs) and the node role's EKS access entry; see nodeclaim-not-registered findings",
			}}},
		{name: "launch error carried over, the claims already deleted", edit: poolCondition("False", "InsufficientFreeAddressesInSubnet",
			"There are not enough free IP addresses to launch an instance in this subnet"), want: []Finding{{
			ID: "nodepool-registration-unhealthy", Severity: Critical, Resource: "nodepool/default",
			Message: "NodePool default has NodeRegistrationHealthy=False since 3m ago, reason InsufficientFreeAddressesInSubnet: " +
				"\"There are not enough free IP addresses to launch an instance in this subnet\"; no NodeClaim of the pool is " +
				"failing now (Karpenter deletes failed ones after 5 minutes unlaunched or 15 unregistered; the condition " +
				"stays False until a node registers or the NodePool or its NodeClass changes)",
			Remedy: "add subnets with free addresses to EC2NodeClass default spec.subnetSelectorTerms (Karpenter launches " +
				"into the roomiest subnet of each zone), or free addresses in the full ones (see instance-orphaned for " +
				"instances that hold addresses without a NodeClaim)",
		}}},
		{name: "healthy registrations", edit: poolCondition("True", "NodeRegistrationHealthy", "")},
		{name: "not known yet (new NodePool or NodeClass generation)", edit: poolCondition("Unknown", reasonAwaitingRec, "")},
		{name: "Karpenter before v1.4, no condition"},
		{name: "NodePools not readable", edit: edits(poolCondition("False", "RegistrationFailed", "x"), gap(snapshot.SourceNodePools))},
	})
}

// leaked returns an edit that adds a running instance of NodePool default for cluster demo,
// launched ago before the snapshot, that no NodeClaim names, with the given tags on top.
func leaked(ago time.Duration, tags map[string]string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.ClusterName = "demo"
		in := instance("i-0aaaabbbbccccdddd", "10.0.1.77")
		in.LaunchTime = joinTaken().Add(-ago)
		in.ENIs[0].IPv4Prefixes = []string{"10.0.1.96/28"}
		in.ENIs = append(in.ENIs, snapshot.ENI{ID: "eni-0second", InterfaceType: "interface", DeviceIndex: 1,
			SubnetID: "subnet-0bbb", PrimaryIP: "10.0.2.9", PrivateIPs: []string{"10.0.2.9"}})
		in.Tags = map[string]string{
			"karpenter.sh/nodepool": "default", "karpenter.k8s.aws/ec2nodeclass": "default",
			"kubernetes.io/cluster/demo": "owned", "eks:eks-cluster-name": "demo",
		}
		for k, v := range tags {
			if v == "" {
				delete(in.Tags, k)
			} else {
				in.Tags[k] = v
			}
		}
		s.Instances = append(s.Instances, in)
	}
}

func TestInstanceOrphaned(t *testing.T) {
	runCheckCases(t, instanceOrphaned, []checkCase{
		{name: "running three hours without a NodeClaim", edit: leaked(3*time.Hour, nil), want: []Finding{{
			ID: "instance-orphaned", Severity: Warning, Resource: "instance/i-0aaaabbbbccccdddd",
			Message: "instance i-0aaaabbbbccccdddd (m5.large, running, launched 3h0m ago at 2026-08-21T09:00:00Z, NodePool " +
				"default) was launched by Karpenter for cluster demo but no NodeClaim or Node names it; it holds 18 " +
				"addresses in subnet-0aaa (10.0.1.200, 10.0.1.77; 1 prefix 10.0.1.96/28), 1 address in subnet-0bbb " +
				"(10.0.2.9); Karpenter's garbage collection terminates such instances once they are 30 seconds old, at most 2 " +
				"minutes later, so Karpenter is not running or cannot reach EC2",
			Remedy: "if no NodeClaim should own it, terminate it (the command); then check that Karpenter runs with the " +
				"cluster name demo",
			Commands: []Command{{Argv: []string{"aws", "ec2", "terminate-instances", "--instance-ids", "i-0aaaabbbbccccdddd"},
				Changes: "instance/i-0aaaabbbbccccdddd"}},
		}}},
		{name: "older tag set Karpenter's garbage collection does not list", edit: leaked(time.Hour, map[string]string{
			"karpenter.sh/nodepool": "", "karpenter.k8s.aws/ec2nodeclass": "", "eks:eks-cluster-name": "",
			"karpenter.sh/provisioner-name": "default"}), want: []Finding{{
			ID: "instance-orphaned", Severity: Warning, Resource: "instance/i-0aaaabbbbccccdddd",
			Message: "instance i-0aaaabbbbccccdddd (m5.large, running, launched 1h0m ago at 2026-08-21T11:00:00Z, " +
				"provisioner default) was launched by Karpenter for cluster demo but no NodeClaim or Node names it; it " +
				"holds 18 addresses in subnet-0aaa (10.0.1.200, 10.0.1.77; 1 prefix 10.0.1.96/28), 1 address in " +
				"subnet-0bbb (10.0.2.9); Karpenter's garbage collection will not remove it: it lists only instances " +
				"tagged karpenter.sh/nodepool, karpenter.k8s.aws/ec2nodeclass and eks:eks-cluster-name, and this one " +
				"lacks karpenter.sh/nodepool, karpenter.k8s.aws/ec2nodeclass, eks:eks-cluster-name=demo",
			Remedy: "if no NodeClaim should own it, terminate it (the command); then check that Karpenter runs with the " +
				"cluster name demo",
			Commands: []Command{{Argv: []string{"aws", "ec2", "terminate-instances", "--instance-ids", "i-0aaaabbbbccccdddd"},
				Changes: "instance/i-0aaaabbbbccccdddd"}},
		}}},
		{name: "launched a minute ago, its NodeClaim may not name it yet", edit: leaked(time.Minute, nil)},
		{name: "launched 2.5 minutes ago, garbage collection's next pass may still take it", edit: leaked(150*time.Second, nil)},
		{name: "another cluster's instance in the VPC", edit: leaked(time.Hour, map[string]string{
			"kubernetes.io/cluster/demo": "", "kubernetes.io/cluster/other": "owned", "eks:eks-cluster-name": "other"})},
		{name: "terminated", edit: edits(leaked(time.Hour, nil), func(s *snapshot.Snapshot) { s.Instances[1].State = "terminated" })},
		{name: "cluster name unknown", edit: edits(leaked(time.Hour, nil), func(s *snapshot.Snapshot) { s.ClusterName = "" })},
		{name: "named by a NodeClaim without a Node", edit: edits(leaked(time.Hour, nil), func(s *snapshot.Snapshot) {
			s.NodeClaims = append(s.NodeClaims, snapshot.NodeClaim{Name: "x", ProviderID: "aws:///us-west-2a/i-0aaaabbbbccccdddd"})
		})},
		{name: "a node's instance carrying the tags", edit: func(s *snapshot.Snapshot) {
			s.ClusterName = "demo"
			s.Instances[0].Tags = map[string]string{"karpenter.sh/nodepool": "default", "eks:eks-cluster-name": "demo"}
		}},
		{name: "cluster instances not readable", edit: edits(leaked(time.Hour, nil), gap(snapshot.SourceClusterInstances))},
	})
}
