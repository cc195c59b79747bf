package diagnose

// The catalogue entries of the way out of the node subnets (family join): routes and VPC
// endpoints, security-group egress, network ACLs.

var specSubnetNoEgressRoute = &Spec{
	ID:       "subnet-no-egress-route",
	Severity: Critical,
	Lower:    []Severity{Info},
	Family:   FamilyJoin,
	Examines: []string{SubjectSubnet},
	Title:    "a node subnet has neither a usable default route nor the VPC endpoints nodes need to join",
	FiresWhen: "a subnet that a node, a NodeClaim without a Node or an EC2NodeClass's `status.subnets` uses has no " +
		"usable `0.0.0.0/0` route (none; `blackhole`; a NAT gateway that is not an available public one; an internet " +
		"gateway while its instances get no public IPv4: no `PublicIp`, or `associatePublicIPAddress`/" +
		"`MapPublicIpOnLaunch` off for new nodes; `::/0` through an internet or egress-only gateway counts in an IPv6 " +
		"subnet) and its VPC lacks a usable endpoint for one of `ec2`, `ecr.api`, `ecr.dkr`, `sts` (Interface, " +
		"available, private DNS on) and `s3` (a Gateway endpoint on the subnet's route table, or an Interface one). " +
		"Info when the default route goes to a target karpnet cannot follow (transit gateway, Gateway Load Balancer " +
		"or Network Firewall endpoint, network interface, peering connection, virtual private gateway, carrier " +
		"gateway): it is assumed to be a way out",
	NotOn: "subnets whose route table or VPC endpoints were not read (a snapshot written before karpnet read them, " +
		"or a gap); a private cluster with every endpoint and no default route; the EKS API endpoint itself (karpnet " +
		"cannot read the cluster's endpoint access without `eks:DescribeCluster` and assumes the private endpoint " +
		"is on); the endpoints' own security groups; a blackhole or broken default route when every endpoint is " +
		"there (nodes still join)",
	Why: "a node that cannot reach ECR, STS and EC2 never pulls its pause and CNI images and never registers; " +
		"Karpenter deletes the NodeClaim after its 15-minute registration TTL and launches another into the same " +
		"subnet, while pods stay Pending",
	Remedy: "a `0.0.0.0/0` route to an available public NAT gateway (`aws ec2 create-route`), or the missing VPC " +
		"endpoints (`aws ec2 create-vpc-endpoint`)",
	Sources: []string{
		"https://docs.aws.amazon.com/eks/latest/userguide/private-clusters.html (required VPC endpoints)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/VPC_Route_Tables.html (main table, explicit association, blackhole)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/vpc-nat-gateway.html (public and private connectivity)",
		"https://docs.aws.amazon.com/vpc/latest/privatelink/vpc-endpoints-s3.html (gateway endpoint route tables)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/vpc-ip-addressing.html (public IPv4 on launch)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go (15-minute registration TTL)",
		"aws/karpenter-provider-aws issues #7917, #6084, #5405 (nodes never join from subnets without egress)",
	},
}

var specSecurityGroupEgressBlocked = &Spec{
	ID:       "security-group-egress-blocked",
	Severity: Critical,
	Family:   FamilyJoin,
	Examines: []string{SubjectNode, SubjectNodeClaim, SubjectNodeClass},
	Title:    "no outbound security-group rule of the nodes admits TCP 443",
	FiresWhen: "no outbound rule in the union of the security groups an instance has (a node, a NodeClaim without a " +
		"Node) or that new nodes get (an EC2NodeClass's `status.securityGroups`) admits TCP 443: protocol `-1`, or " +
		"TCP with a port range covering 443, to any CIDR, IPv6 CIDR, prefix list or group",
	NotOn: "a group that was not read (DescribeSecurityGroups gap or an ID it did not return) or has no rules at " +
		"all (read as rules not recorded; node groups always have inbound rules); which destination " +
		"the rule admits (lenient: a rule admitting 443 anywhere counts, whether or not that is the endpoints' or " +
		"the cluster's address); the default allow-all egress rule",
	Why: "security groups are stateful, so outbound 443 is what a node needs for the EKS API, ECR, STS and EC2; " +
		"without it the node never registers and Karpenter replaces its NodeClaim again and again",
	Remedy: "restore the allow-all egress rule or add TCP 443 (`aws ec2 authorize-security-group-egress`)",
	Sources: []string{
		"https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html (node outbound rules)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/security-group-rules.html (default outbound rule, stateful)",
		"kubernetes-sigs/karpenter designs/node-registration-healthy.md (\"missing outbound rule\")",
		"aws/karpenter-provider-aws issues #7320, #6323 (nodes without outbound access never register)",
	},
}

var specNetworkACLBlocksNodeTraffic = &Spec{
	ID:       "network-acl-blocks-node-traffic",
	Severity: Critical,
	Family:   FamilyJoin,
	Examines: []string{SubjectSubnet},
	Title:    "a node subnet's network ACL denies outbound 443 or its return traffic",
	FiresWhen: "the subnet's network ACL (its association, else the VPC's default ACL), read in rule-number order, " +
		"denies outbound TCP 443 to `0.0.0.0/0`, or inbound TCP from `0.0.0.0/0` on some of the ephemeral ports " +
		"replies come back to (Linux 32768-60999; Windows 49152-65535 for Windows nodes and NodeClasses); the " +
		"message gives the denied port ranges and the rules that deny them (`*` is the implicit last rule)",
	NotOn: "subnets whose network ACL was not read; the default ACL (allow all); a hardened ACL that allows 443 out " +
		"and 1024-65535 in; narrower CIDRs (lenient: an allow rule for any CIDR counts, a deny rule only for " +
		"`0.0.0.0/0`); IPv6 entries",
	Why: "network ACLs are stateless: replies to a node's HTTPS requests need their own inbound rule, and " +
		"without either direction the node never reaches the EKS API, ECR, STS or EC2 and never registers",
	Remedy: "allow TCP 443 out and TCP 1024-65535 in before the denying rules (`aws ec2 create-network-acl-entry`)",
	Sources: []string{
		"https://docs.aws.amazon.com/vpc/latest/userguide/vpc-network-acls.html (rule order, stateless)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/nacl-ephemeral-ports.html (Linux 32768-60999, Windows 49152-65535)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/default-network-acl.html",
		"kubernetes-sigs/karpenter designs/degraded-nodepools.md (\"network access control lists, subnets, route tables\")",
	},
}
