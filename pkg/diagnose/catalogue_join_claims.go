package diagnose

// The catalogue entries of the join family's NodeClaim and leaked-instance checks.

var specNodeClaimLaunchFailed = &Spec{
	ID:       "nodeclaim-launch-failed",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyJoin,
	Examines: []string{SubjectNodeClaim},
	Title:    "a NodeClaim without a Node failed to launch its instance",
	FiresWhen: "a NodeClaim with no Node has `Launched=False`, or `Launched=Unknown` with a reason other than " +
		"`AwaitingReconciliation` (Karpenter v1 keeps Unknown with the EC2 error as reason and message); " +
		"InsufficientFreeAddressesInSubnet, InvalidParameterCombination (public IP with several network " +
		"interfaces), SecurityGroupSubnetVPCMismatch, missing security groups or subnets and Unauthorized map to " +
		"their networking cause; warning for RequestLimitExceeded and InternalError, which Karpenter retries",
	NotOn: "claims still launching (`Launched=Unknown` without an error reason); claims being deleted; claims " +
		"with a Node; NodeClaims or Nodes not readable",
	Why: "the pods that asked for the node stay Pending; Karpenter retries and deletes the claim after 5 minutes, " +
		"and a claim whose errors were all capacity errors is deleted at once, leaving only its event",
	Remedy: "the cause's field: more subnets or free addresses, `associatePublicIPAddress`, selector terms, the " +
		"controller role's EC2 permissions; otherwise Karpenter's log",
	Sources: []string{
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/launch.go (Launched=Unknown with the CreateError reason)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go (5-minute launch timeout)",
		"aws/karpenter-provider-aws pkg/errors/errors.go (ToReasonMessage, capacity error codes)",
		"aws/karpenter-provider-aws pkg/providers/instance/instance.go (combineFleetErrors, SubnetResolutionFailed)",
		"awslabs/operatorpkg status/condition_set.go (initial reason AwaitingReconciliation)",
		"https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html",
	},
}

var specNodeClaimNotRegistered = &Spec{
	ID:       "nodeclaim-not-registered",
	Severity: Critical,
	Lower:    []Severity{Info},
	Family:   FamilyJoin,
	Examines: []string{SubjectNodeClaim},
	Title:    "a NodeClaim's instance launched but never became a Node",
	FiresWhen: "a NodeClaim with no Node has `Launched=True` for at least 5 minutes (its Launched transition, else " +
		"its creation) and `Registered` is not True; info when its instance is already `shutting-down` or " +
		"`terminated`",
	NotOn: "claims launched under 5 minutes ago (a node registers 1-3 minutes after launch); claims being deleted; " +
		"registered claims; NodeClaims or Nodes not readable",
	Why: "the instance runs and bills but never joins, most often because the node subnet has no way out to the EKS " +
		"endpoint, ECR or STS; Karpenter deletes the claim at its 15-minute registration TTL and launches another " +
		"that fails the same way",
	Remedy: "fix the subnet's way out (route, VPC endpoints, security-group egress, network ACL) or the node " +
		"role's access entry; read the instance console output",
	Sources: []string{
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go (15-minute registration TTL)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go (Registered=Unknown NodeNotFound)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/garbagecollection/controller.go (only registered claims are collected)",
		"kubernetes-sigs/karpenter designs/noderegistrationhealthy-status-condition.md (missing outbound rule)",
		"aws/karpenter-provider-aws website/content/en/docs/troubleshooting.md (Node NotReady; Node terminates before ready on failed encrypted EBS volume)",
	},
}

var specNodePoolRegistrationUnhealthy = &Spec{
	ID:       "nodepool-registration-unhealthy",
	Severity: Critical,
	Family:   FamilyJoin,
	Examines: []string{SubjectNodePool},
	Title:    "Karpenter marked the NodePool's node registrations unhealthy",
	FiresWhen: "the NodePool has `NodeRegistrationHealthy=False` (Karpenter v1.4+): a NodeClaim of the pool failed " +
		"to launch or register within its timeout; the finding names the pool's NodeClaims without a Node",
	NotOn: "`NodeRegistrationHealthy` True or Unknown; NodePools without the condition (Karpenter before v1.4); " +
		"NodePools not readable",
	Why: "Karpenter goes on launching nodes from the pool, and they fail the same way until the cause is fixed; the " +
		"condition stays False until a node registers or the NodePool or its NodeClass changes",
	Remedy: "for reason RegistrationFailed fix the node subnets' way out or the node role's access entry; otherwise " +
		"fix the launch error the reason names",
	Sources: []string{
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go (updateNodePoolRegistrationHealth)",
		"kubernetes-sigs/karpenter pkg/controllers/nodepool/registrationhealth/controller.go (Unknown on a new generation)",
		"kubernetes-sigs/karpenter pkg/apis/v1/nodepool_status.go (ConditionTypeNodeRegistrationHealthy, v1.4.0)",
		"kubernetes-sigs/karpenter designs/noderegistrationhealthy-status-condition.md",
	},
}

var specInstanceOrphaned = &Spec{
	ID:       "instance-orphaned",
	Severity: Warning,
	Family:   FamilyJoin,
	Examines: []string{SubjectInstance},
	Title:    "an instance Karpenter launched for the cluster has no NodeClaim",
	FiresWhen: "a `pending` or `running` instance tagged `karpenter.sh/nodepool` (or `karpenter.sh/provisioner-name`) " +
		"and `kubernetes.io/cluster/NAME` or `eks:eks-cluster-name=NAME`, NAME being the cluster's name, launched at " +
		"least 2 minutes ago, whose ID no NodeClaim's providerID and no Node's providerID names",
	NotOn: "instances of other clusters in the VPC; an unknown cluster name; instances launched under 2 minutes ago " +
		"(their NodeClaim may have been read before its providerID was set) or at an unknown time; stopped or " +
		"terminated instances; the cluster-tag DescribeInstances, NodeClaims or Nodes not readable",
	Why: "a leaked instance holds subnet addresses that new nodes then lack, and costs money; Karpenter's garbage " +
		"collection removes such instances within a minute unless it is not running or the instance lacks the tags " +
		"it lists by",
	Remedy: "terminate it (`aws ec2 terminate-instances --instance-ids ID`) if nothing should own it; check that " +
		"Karpenter runs with the cluster's name",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/utils/utils.go (GetTags: kubernetes.io/cluster/NAME, karpenter.sh/nodepool, eks:eks-cluster-name)",
		"aws/karpenter-provider-aws pkg/providers/instance/instance.go (List: the tag filters garbage collection uses)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclaim/garbagecollection/controller.go (30-second grace)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclaim/tagging/controller.go (karpenter.sh/nodeclaim after registration)",
	},
}
