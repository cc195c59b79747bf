package diagnose

// The check catalogue: what each check means, in catalogue order. It is the one source of the
// catalogue table of docs/checks.md, of `kubectl karpnet explain`, of completion and of the terminal
// UI's help on a finding; each Check pairs one of these with the code that runs it.

var specProviderIDInvalid = &Spec{
	ID:        "provider-id-invalid",
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "EC2 node has no parsable aws:///ZONE/INSTANCE-ID providerID",
	FiresWhen: "an EC2-looking node has no providerID, or one that is not `aws:///ZONE/INSTANCE-ID`",
	NotOn: "Fargate nodes (`aws:///ZONE/.../fargate-...`), EKS hybrid nodes, other providers, nodes being " +
		"deleted",
	Why:    "without it nothing can tie the Node to its instance; Karpenter cannot match its NodeClaim",
	Remedy: "check kubelet `--cloud-provider=external` and the cloud controller manager; replace the node",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go (providerID `aws:///%s/%s`)",
		"aws/karpenter-provider-aws pkg/utils/utils.go (providerID parse regex)",
		"kubernetes/cloud-provider-aws pkg/providers/v1/instances.go (Fargate providerIDs)",
	},
}

var specInstanceNotFound = &Spec{
	ID:        "instance-not-found",
	Severity:  Critical,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "the node's EC2 instance does not exist",
	FiresWhen: "EC2 returns no instance for the node's instance ID",
	NotOn: "nodes being deleted (see `node-termination-stuck`); a profile in another Region (EC2 is read in " +
		"the providerIDs' Region); DescribeInstances not readable",
	Why:    "the Node outlived its instance (or `--region` is wrong): pods scheduled there never run",
	Remedy: "delete the stale Node (check Karpenter's termination finalizer), or pass the right `--region`",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/instance/instance.go (state filter)",
		"kubernetes-sigs/karpenter pkg/controllers/node/termination/controller.go (awaitInstanceTermination)",
		"aws/karpenter-provider-aws pkg/utils/utils.go (instance ID from providerID)",
	},
}

var specInstanceNotRunning = &Spec{
	ID:        "instance-not-running",
	Severity:  Critical,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "the node's EC2 instance is not running",
	FiresWhen: "the instance exists but is not `running`",
	NotOn: "nodes being deleted: Karpenter keeps the Node while the instance is `shutting-down` (see " +
		"`node-termination-stuck`)",
	Why:    "a stopped or terminated instance still takes pods",
	Remedy: "find why it stopped (spot interruption, health); delete the Node so Karpenter replaces it",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/instance/instance.go (state filter: `shutting-down` still present)",
		"kubernetes-sigs/karpenter pkg/controllers/node/termination/controller.go (awaitInstanceTermination)",
	},
}

var specNodeTerminationStuck = &Spec{
	ID:       "node-termination-stuck",
	Severity: Warning,
	Family:   FamilyCore,
	Examines: []string{SubjectNode},
	Title:    "the Node is still deleting long after its instance is gone",
	FiresWhen: "the Node has been deleting (`deletionTimestamp`) for more than 15 minutes and its instance is " +
		"`terminated` or no longer returned by DescribeInstances",
	NotOn: "deletions still draining or with the instance `shutting-down`; DescribeInstances not readable",
	Why: "Karpenter removes its `karpenter.sh/termination` finalizer within minutes of the instance going; " +
		"a Node left behind keeps its name and confuses everything that lists nodes",
	Remedy: "check that Karpenter runs and reaches EC2; if it is gone, `kubectl patch node NAME --type merge " +
		"-p '{\"metadata\":{\"finalizers\":null}}'`",
	Sources: []string{
		"kubernetes-sigs/karpenter pkg/controllers/node/termination/controller.go (awaitInstanceTermination)",
		"aws/karpenter-provider-aws pkg/providers/instance/instance.go (state filter)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go (finalizer `karpenter.sh/termination`)",
		"kubernetes-sigs/karpenter pkg/apis/v1/taints.go (`karpenter.sh/disrupted`)",
	},
}

var specZoneMismatch = &Spec{
	ID:        "zone-mismatch",
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "zone label, providerID zone and instance zone disagree",
	FiresWhen: "`topology.kubernetes.io/zone`, the providerID zone and the instance zone disagree",
	NotOn:     "nodes without the zone label; nodes being deleted",
	Why:       "topology spread, volume affinity and ENIConfig selection use the label",
	Remedy:    "fix the label source (NodePool template labels) and replace the node",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go (providerID zone",
		"instanceToNodeClaim)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go (Node gets the NodeClaim's labels)",
		"aws/amazon-vpc-cni-k8s pkg/eniconfig/eniconfig.go (GetNodeSpecificENIConfigName)",
		"aws/karpenter-provider-aws#8491",
	},
}

var specInstanceTypeMismatch = &Spec{
	ID:        "instance-type-mismatch",
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "instance-type label differs from the instance's type",
	FiresWhen: "`node.kubernetes.io/instance-type` differs from the instance type",
	NotOn:     "nodes without the label; nodes being deleted",
	Why:       "scheduling and max-pods reasoning use the label",
	Remedy:    "remove the label override from the NodePool/node group template",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go (instanceToNodeClaim)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go (label copy)",
		"kubernetes-sigs/karpenter pkg/apis/v1/labels.go (well-known `node.kubernetes.io/instance-type`)",
	},
}

var specInternalIPOutsideSubnet = &Spec{
	ID:        "internal-ip-outside-subnet",
	Severity:  Critical,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "the node's InternalIP is outside its instance's subnet",
	FiresWhen: "the first InternalIP is not in the instance subnet's CIDR",
	NotOn: "pod addresses (only the first InternalIP of each family is compared); an IPv6 address when the " +
		"subnet's IPv6 CIDRs are unknown",
	Why:    "the node advertises an address that the VPC does not route to it",
	Remedy: "remove `--node-ip` overrides; replace the node",
	Sources: []string{
		"kubernetes/cloud-provider-aws pkg/providers/v1/aws.go (extractIPv4NodeAddresses)",
		"awslabs/amazon-eks-ami nodeadm/internal/kubelet/config.go (withNodeIp)",
	},
}

var specInternalIPNotInstanceIP = &Spec{
	ID:        "internal-ip-not-instance-ip",
	Severity:  Critical,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "the node's InternalIP is not an IP of its instance",
	FiresWhen: "the first InternalIP is not a private IP of the instance's ENIs",
	NotOn:     "an IPv6 address when the instance's ENIs have none recorded",
	Why:       "API server to kubelet traffic (logs, exec, metrics) goes to the wrong host",
	Remedy:    "remove `--node-ip` overrides, or delete a stale Node reused by another instance",
	Sources: []string{
		"kubernetes/cloud-provider-aws pkg/providers/v1/aws.go (extractIPv4NodeAddresses)",
		"awslabs/amazon-eks-ami nodeadm/internal/kubelet/config.go (withNodeIp)",
	},
}

var specSubnetNotSelected = &Spec{
	ID:        "subnet-not-selected",
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "the instance's subnet is not in its EC2NodeClass status.subnets",
	FiresWhen: "the instance subnet is not in its EC2NodeClass `status.subnets`",
	NotOn:     "nodes without a NodeClass or whose class has no `status.subnets`",
	Why:       "Karpenter marks the node drifted (SubnetDrift) and replaces it",
	Remedy:    "fix `spec.subnetSelectorTerms`, or let Karpenter replace the node",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/drift.go (SubnetDrift)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/subnet.go (status.subnets)",
		"aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_status.go",
	},
}

var specSecurityGroupDrift = &Spec{
	ID:        "security-group-drift",
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectNode},
	Title:     "the instance's security groups differ from its EC2NodeClass status.securityGroups",
	FiresWhen: "the instance security groups differ from its EC2NodeClass `status.securityGroups`",
	NotOn:     "ENIConfig and branch-ENI groups (Karpenter compares the instance's own, primary-ENI groups)",
	Why:       "Karpenter replaces the node (SecurityGroupDrift); hand-added groups vanish",
	Remedy:    "select the groups in `spec.securityGroupSelectorTerms`; do not attach by hand",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/drift.go (SecurityGroupDrift)",
		"aws/karpenter-provider-aws pkg/providers/instance/types.go (Instance.SecurityGroups)",
		"aws/karpenter-provider-aws pkg/providers/launchtemplate/launchtemplate.go (all class groups on every LT ENI)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/securitygroup.go",
	},
}

var specSubnetIPExhaustion = &Spec{
	ID:       "subnet-ip-exhaustion",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyCore,
	Examines: []string{SubjectSubnet},
	Title:    "the subnets new nodes or pods take addresses from cannot take the next nodes",
	FiresWhen: "judged per pool of subnets new nodes and pods draw from: for each EC2NodeClass (or Auto Mode " +
		"NodeClass) a NodePool uses, and each node group, per zone, the subnets new nodes launch into " +
		"(the class's `status.subnets` in the zones its NodePools allow; Karpenter takes the roomiest); " +
		"under custom networking each ENIConfig's pod subnet; with subnet discovery (VPC CNI 1.18+, " +
		"`ENABLE_SUBNET_DISCOVERY` not false) per zone the subnets tagged `kubernetes.io/role/cni=1` and " +
		"the nodes' own (unless tagged `=0`, VPC CNI 1.22+); Auto Mode pod subnets. Critical when the " +
		"roomiest subnet of the pool has fewer free addresses than the next node takes at once: its " +
		"launch (primary IP, `ipPrefixCount` prefixes, other interfaces) plus what ipamd takes at start " +
		"(`WARM_ENI_TARGET`, default 1: the primary ENI's secondary IPs; " +
		"`WARM_IP_TARGET`/`MINIMUM_IP_TARGET`; `WARM_PREFIX_TARGET` /28s with prefix delegation), or in a " +
		"pod subnet its first pod ENI. Warning when fewer than 5 more nodes fit, each taking what the " +
		"pool's nodes hold there now (the median), or the first take when that is more. The message shows " +
		"the free counts and how each figure was estimated",
	NotOn: "a small or full subnet next to a roomy one in the same zone, a type's ENI-limited maximum (an " +
		"empty /21 fits many m5.24xlarge), subnets no class, node group or CNI path would use for new " +
		"nodes, IPv4 for IPv6 pods, pod addresses of Windows, Auto Mode and custom-networking nodes in " +
		"the node subnet",
	Why: "launches fail with `InsufficientFreeAddressesInSubnet`; pods stick in ContainerCreating",
	Remedy: "add subnets in the zone to the selector, a larger or secondary CIDR, a larger ENIConfig pod " +
		"subnet, tag another subnet `kubernetes.io/role/cni=1`, or prefix delegation",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/subnet/subnet.go (ZonalSubnetsForLaunch, UpdateInflightIPs)",
		"aws/amazon-vpc-cni-k8s README.md (WARM_ENI_TARGET, WARM_IP_TARGET, MINIMUM_IP_TARGET, WARM_PREFIX_TARGET, ENABLE_SUBNET_DISCOVERY)",
		"aws/amazon-vpc-cni-k8s pkg/awsutils/awsutils.go (createENI, subnet discovery)",
		"aws/karpenter-provider-aws#3380",
	},
}

var specMaxPodsExceedsIPCapacity = &Spec{
	ID:       "max-pods-exceeds-ip-capacity",
	Severity: Critical,
	Family:   FamilyCore,
	Examines: []string{SubjectNode},
	Title:    "capacity.pods is above what the node's ENIs can give pods",
	FiresWhen: "`capacity.pods` is above what the node's ENIs can ever give pods (formula below, counting what " +
		"is attached to the node, not what its class asks for)",
	NotOn: "nodes aws-node does not run on (another CNI, Cilium's patched aws-node, EKS Auto Mode), Windows " +
		"nodes (110 pods, held to `vpc.amazonaws.com/PrivateIPv4Address`), IPv6 nodes (a /80 per node), " +
		"efa-only interfaces a class asks for that the instance never got (that is " +
		"`efa-interface-count-mismatch` or `efa-unsupported-instance-type`)",
	Why: "pods beyond the IP capacity never get an address: `failed to assign an IP address to container`",
	Remedy: "set `kubelet.maxPods` (EC2NodeClass at v1, NodePool at v1beta1) to at most the capacity, " +
		"`RESERVED_ENIS=1`, or prefix delegation",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s misc/eni-max-pods.txt",
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (ENILimitedPods)",
		"aws/amazon-vpc-cni-k8s pkg/ipamd/ipamd.go (hasRoomForEni: trunk and custom-networking ENIs)",
		"aws/amazon-vpc-cni-k8s#3238",
	},
}

var specNodeClassNotReady = &Spec{
	ID:       "nodeclass-not-ready",
	Severity: Critical,
	Family:   FamilyCore,
	Examines: []string{SubjectNodeClass},
	Title:    "an EC2NodeClass or NodeClass used by a NodePool is not Ready",
	FiresWhen: "an EC2NodeClass used by a NodePool has `Ready=False` (the message names each false " +
		"sub-condition: SubnetsReady, SecurityGroupsReady, PlacementGroupReady, ...)",
	NotOn:  "classes no NodePool uses",
	Why:    "Karpenter launches no node for those NodePools",
	Remedy: "fix what the sub-condition names (selector terms, IAM, placement group)",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_status.go (Ready = AND of sub-conditions)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/subnet.go (SubnetsNotFound)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/validation.go",
		"kubernetes-sigs/karpenter pkg/events/reason.go (NodeClassNotReady)",
	},
}

var specDataUnavailable = &Spec{
	ID:        DataUnavailableID,
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectSource},
	Title:     "a data source could not be read, so checks that need it were skipped",
	FiresWhen: "a source could not be read",
	NotOn: "sources a cluster does not have (no Karpenter CRDs, no aws-node, no ENIConfig CRD without custom " +
		"networking)",
	Why:    "the checks that need it are silent, so a clean report is not proof",
	Remedy: "grant the permission or pass the flag the finding names",
	Sources: []string{
		"https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html",
		"https://docs.aws.amazon.com/AWSEC2/latest/APIReference/query-api-troubleshooting.html (UnauthorizedOperation)",
	},
}

var specMaxPodsBelowIPCapacity = &Spec{
	ID:       "max-pods-below-ip-capacity",
	Severity: Info,
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "prefix delegation is on but max pods is the secondary-IP value",
	FiresWhen: "ENABLE_PREFIX_DELEGATION=true, Nitro type, and capacity.pods equals the secondary-IP value (ENIs " +
		"x (IPv4 per ENI - 1) + 2, with 0 or 1 ENI reserved and efa-only ENIs on card 0 left out) while " +
		"prefixes allow more (capped at 110, or 250 above 30 vCPUs)",
	NotOn: "IPv6 and Xen nodes, classes that set `kubelet.maxPods`, nodes aws-node does not run on",
	Why: "Karpenter computes max pods without prefixes and writes it into kubelet, so nodes are packed far " +
		"below what they can hold and more nodes are launched than needed",
	Remedy: "set `spec.kubelet.maxPods` on the EC2NodeClass (v1) or `spec.template.spec.kubelet.maxPods` on " +
		"the NodePool (v1beta1); see aws/karpenter-provider-aws#8210",
	Sources: []string{
		"aws/karpenter-provider-aws#8210",
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (ENILimitedPods)",
		"aws/karpenter-provider-aws pkg/providers/amifamily/resolver.go (maxPods always written)",
		"awslabs/amazon-eks-ami templates/al2/runtime/max-pods-calculator.sh (at b2289030^: x16 with prefixes, cap 110/250)",
	},
}

var specPodIPAllocationFailures = &Spec{
	ID:       "pod-ip-allocation-failures",
	Severity: Critical,
	Lower:    []Severity{Warning, Info},
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "pods on the node failed to get an IP address from the VPC CNI",
	FiresWhen: "the node has FailedCreatePodSandBox events in the last hour saying the CNI failed to assign an " +
		"IP (\"failed to assign an IP address to container\", \"no available IP addresses\", " +
		"\"InsufficientCidrBlocks\")",
	NotOn: "events older than an hour or without a time; severity follows the evidence: critical while a pod " +
		"keeps failing (3 or more failures, the last within 5 minutes), warning once it stopped, info " +
		"when no pod failed more than twice (a pod waiting for its branch ENI, a burst), info at most on " +
		"a node that is still initialising",
	Why: "pods stay in ContainerCreating: ENIs full, subnet exhausted or fragmented, or no ENIConfig",
	Remedy: "compare capacity.pods with IP capacity and the pod subnet's free addresses (`kubectl karpnet " +
		"describe node`), read ipamd.log; for InsufficientCidrBlocks reserve prefix space with `aws ec2 " +
		"create-subnet-cidr-reservation --reservation-type prefix`",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s pkg/ipamd/rpc_handler.go",
		"aws/amazon-vpc-cni-k8s cmd/routed-eni-cni-plugin/cni.go",
		"aws/amazon-vpc-cni-k8s#3494",
		"aws/amazon-vpc-cni-k8s#330",
	},
}

var specPrefixDelegationInactive = &Spec{
	ID:       "prefix-delegation-inactive",
	Severity: Warning,
	Lower:    []Severity{Info},
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "prefix delegation is on but the node's ENIs hold no prefix",
	FiresWhen: "ENABLE_PREFIX_DELEGATION=true, Nitro type, node older than 10 minutes, and none of its " +
		"interface/efa ENIs holds a prefix: warning when they hold no secondary IP for pods either (ipamd " +
		"got nothing), info when the node still runs on secondary IPs (prefix delegation was switched on " +
		"after it started: ipamd keeps handing out the addresses it holds and adds no prefix while enough " +
		"are free, so the node gets prefixes only when replaced)",
	NotOn: "IPv6 nodes (see `ipv6-prefix-missing`), nodes younger than 10 minutes, nodes whose network is " +
		"down or whose ENIConfig is missing, Xen types, nodes aws-node does not run on",
	Why: "ipamd has no address for pods; usually InsufficientCidrBlocks from a subnet with no free aligned " +
		"/28",
	Remedy: "check ipamd.log for InsufficientCidrBlocks; `aws ec2 create-subnet-cidr-reservation " +
		"--reservation-type prefix`, or a new pod subnet, then replace the node; for the info, nothing: " +
		"replace the node when convenient",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s pkg/ipamd/ipamd.go (isDatastorePoolTooLow, containsInsufficientCIDRsOrSubnetIPs)",
		"aws/amazon-vpc-cni-k8s README.md (ENABLE_PREFIX_DELEGATION)",
		"aws/amazon-vpc-cni-k8s#2749",
		"aws/amazon-vpc-cni-k8s#3105",
	},
}

var specIPv6PrefixMissing = &Spec{
	ID:       "ipv6-prefix-missing",
	Severity: Critical,
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "an IPv6 node's primary ENI holds no /80 prefix for pods",
	FiresWhen: "an IPv6 node (aws-node `ENABLE_IPv6=true`) that aws-node runs on, past its start-up, whose " +
		"primary ENI holds no IPv6 /80 prefix",
	NotOn: "IPv4 nodes, booting nodes, nodes whose network is down",
	Why:   "every pod of an IPv6 node takes its address from that /80: without it no pod gets one",
	Remedy: "give the subnet an IPv6 CIDR, allow `ec2:AssignIpv6Addresses` (AmazonEKS_CNI_IPv6_Policy), read " +
		"ipamd.log, replace the node",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s README.md (IPv6, ENABLE_IPv6)",
		"https://docs.aws.amazon.com/eks/latest/userguide/cni-ipv6.html",
	},
}

var specENIConfigMissing = &Spec{
	ID:       "eniconfig-missing",
	Severity: Critical,
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "custom networking is on and the node's ENIConfig does not exist",
	FiresWhen: "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true and the ENIConfig the node selects does not exist. " +
		"Selection follows the VPC CNI: the label `vpc.amazonaws.com/externalEniConfig`, else the " +
		"annotation named by ENI_CONFIG_ANNOTATION_DEF, else the label named by ENI_CONFIG_LABEL_DEF (a " +
		"setting that is unset or empty means `k8s.amazonaws.com/eniConfig`), else `default`; a key " +
		"counts when present, even with an empty value",
	NotOn: "nodes aws-node does not run on (Windows, Auto Mode, Fargate, hybrid, nodes its " +
		"nodeSelector/affinity/tolerations exclude)",
	Why: "ipamd attaches no secondary ENI; every non-host-network pod stays in ContainerCreating",
	Remedy: "create the ENIConfig with `spec.subnet` in the node's zone, or fix the node's label/annotation; " +
		"`ENI_CONFIG_LABEL_DEF=topology.kubernetes.io/zone` with one ENIConfig per zone",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s pkg/eniconfig/eniconfig.go (GetNodeSpecificENIConfigName, ErrNoENIConfig)",
		"aws/amazon-vpc-cni-k8s pkg/ipamd/ipamd.go (tryAllocateENI)",
		"aws/amazon-vpc-cni-k8s README.md (ENI_CONFIG_LABEL_DEF, ENI_CONFIG_ANNOTATION_DEF)",
		"aws/amazon-vpc-cni-k8s#884",
	},
}

var specENIConfigZoneMismatch = &Spec{
	ID:        "eniconfig-zone-mismatch",
	Severity:  Critical,
	Family:    FamilyVPCCNI,
	Examines:  []string{SubjectNode},
	Title:     "the node's ENIConfig subnet is in another zone",
	FiresWhen: "custom networking on and the node's ENIConfig `spec.subnet` is in another zone than the node",
	NotOn: "nodes aws-node does not run on; subnets karpnet could not read; a subnet EC2 does not return " +
		"(that is `eniconfig-reference-missing`)",
	Why: "an ENI cannot attach across zones, so pods get no IP",
	Remedy: "point the ENIConfig at a subnet in the node's zone, or drop a static ENIConfig label from the " +
		"NodePool template and use per-zone ENIConfigs",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s README.md (AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG: subnet in the node's AZ)",
		"aws/amazon-vpc-cni-k8s pkg/awsutils/awsutils.go (createENIUsingCustomCfg)",
		"aws/amazon-vpc-cni-k8s pkg/eniconfig/eniconfig.go (GetNodeSpecificENIConfigName)",
	},
}

var specENIConfigReferenceMissing = &Spec{
	ID:       "eniconfig-reference-missing",
	Severity: Critical,
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectENIConfig},
	Title:    "an ENIConfig in use names a subnet or security group that EC2 does not have",
	FiresWhen: "custom networking on and an ENIConfig that nodes use names a `spec.subnet` or " +
		"`spec.securityGroups` entry that EC2 does not return (deleted, mistyped, another account or " +
		"Region); one finding per ENIConfig, naming its nodes",
	NotOn: "ENIConfigs no node uses, subnets or groups karpnet could not read",
	Why: "ipamd fails to create every secondary ENI (`InvalidSubnetID.NotFound`, `InvalidGroup.NotFound`), " +
		"so the nodes' pods get no IP",
	Remedy: "point the ENIConfig at an existing pod subnet of its nodes' zone and existing groups of their " +
		"VPC (the remedy gives the `describe-subnets` / `describe-security-groups` filters), then replace " +
		"the nodes",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s pkg/awsutils/awsutils.go (createENIUsingCustomCfg)",
		"aws/amazon-vpc-cni-k8s charts/aws-vpc-cni/crds/customresourcedefinition.yaml (spec.subnet, spec.securityGroups)",
	},
}

var specENIConfigSubnetMismatch = &Spec{
	ID:       "eniconfig-subnet-mismatch",
	Severity: Warning,
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "secondary ENIs are not in the node's ENIConfig subnet",
	FiresWhen: "custom networking on and a secondary ENI (card 0, device > 0, type interface) is outside the " +
		"ENIConfig's subnet",
	NotOn: "the primary ENI, efa/efa-only/trunk ENIs, nodes aws-node does not run on",
	Why: "the CNI applies an ENIConfig only to new ENIs; pods keep the old subnet's addresses and security " +
		"groups",
	Remedy: "replace the node (`kubectl delete nodeclaim NAME`, or drain and terminate)",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s pkg/awsutils/awsutils.go (createENIUsingCustomCfg)",
		"aws/amazon-vpc-cni-k8s README.md (AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG)",
	},
}

var specTrunkENIMissing = &Spec{
	ID:       "trunk-eni-missing",
	Severity: Warning,
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "the node should have a trunk ENI for security groups for pods but has none",
	FiresWhen: "aws-node runs on the node with ENABLE_POD_ENI=true, its type supports trunking (its NodeClaim's " +
		"or its own `vpc.amazonaws.com/pod-eni` capacity, which Karpenter derives from the VPC limits), " +
		"the node is past its start-up, and no attached ENI has InterfaceType trunk; or the node is " +
		"labelled `vpc.amazonaws.com/has-trunk-attached=true` without one. The message says whether the " +
		"node's CNINode (`cninodes.vpcresources.k8s.aws`, VPC CNI 1.15+) asks for `SecurityGroupsForPods`",
	NotOn: "types without trunking (no pod-eni capacity), nodes still initialising, nodes aws-node does not " +
		"run on, nodes that are not running; a CNINode CRD or permission that is missing is a " +
		"`data-unavailable` gap, not a finding",
	Why: "when the VPC resource controller cannot attach the trunk neither the label nor pod-eni capacity " +
		"ever appears; pods selected by a SecurityGroupPolicy get no branch ENI and stay in " +
		"ContainerCreating",
	Remedy: "read the node's events for the VPC resource controller's reason (unsupported type, " +
		"AmazonEKSVPCResourceController missing on the cluster role), fix it, then replace the node",
	Sources: []string{
		"aws/amazon-vpc-resource-controller-k8s pkg/config/type.go (`vpc.amazonaws.com/has-trunk-attached`)",
		"aws/amazon-vpc-resource-controller-k8s pkg/provider/branch/trunk/trunk.go",
		"aws/amazon-vpc-resource-controller-k8s pkg/aws/vpc/limits.go (IsTrunkingCompatible, BranchInterface)",
		"aws/amazon-vpc-resource-controller-k8s config/crd/bases/vpcresources.k8s.aws_cninodes.yaml",
	},
}

var specWindowsIpamNotEnabled = &Spec{
	ID:       "windows-ipam-not-enabled",
	Severity: Critical,
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "a Windows node advertises no vpc.amazonaws.com/PrivateIPv4Address: Windows pods get no IP",
	FiresWhen: "a Windows node, past its start-up, in a cluster with aws-node, that advertises no " +
		"`vpc.amazonaws.com/PrivateIPv4Address`",
	NotOn: "Linux nodes, booting nodes, clusters without aws-node",
	Why: "the VPC resource controller gives Windows pods their IPs only with Windows IPAM on: without it " +
		"they stay in ContainerCreating",
	Remedy: "`kubectl patch configmap/amazon-vpc-cni -n kube-system --type merge -p " +
		"'{\"data\":{\"enable-windows-ipam\":\"true\"}}'` and the AmazonEKSVPCResourceController policy on the " +
		"cluster role",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/amifamily/windows.go",
		"aws/karpenter-provider-aws pkg/providers/instancetype/zz_generated.vpclimits.go (`vpc.amazonaws.com/PrivateIPv4Address` = IPv4PerInterface - 1)",
		"aws/amazon-vpc-resource-controller-k8s pkg/aws/vpc/limits.go",
	},
}

var specVPCCNIVersionTooOld = &Spec{
	ID:       "vpc-cni-version-too-old",
	Severity: Warning,
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectDaemonSet},
	Title:    "aws-node turns on a feature its VPC CNI version does not have",
	FiresWhen: "the aws-node image version is older than a feature its env turns on needs: " +
		"ENABLE_PREFIX_DELEGATION 1.9.0, ENABLE_POD_ENI 1.7.0, ENABLE_SUBNET_DISCOVERY 1.18.0, " +
		"ENABLE_MULTI_NIC 1.20.0",
	NotOn: "clusters where aws-node runs on no node (every node Auto Mode or Windows, or Cilium's " +
		"nodeSelector on aws-node)",
	Why: "the old CNI silently ignores the setting, so the feature looks configured but does nothing",
	Remedy: "upgrade the vpc-cni add-on (`aws eks update-addon --addon-name vpc-cni`) or Helm chart, or " +
		"remove the settings from aws-node",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s README.md (CNI configuration variables, \"since\" versions)",
		"aws/amazon-vpc-cni-k8s charts/aws-vpc-cni/values.yaml",
	},
}

var specNodeNetworkNotReady = &Spec{
	ID:       "node-network-not-ready",
	Severity: Critical,
	Lower:    []Severity{Info},
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "the node is not ready because of its network",
	FiresWhen: "Ready is False/Unknown with a network reason or message (NetworkPluginNotReady, \"cni plugin not " +
		"initialized\", \"network plugin is not ready\"), or NetworkUnavailable=True, or " +
		"NetworkingReady=False",
	NotOn: "nodes still initialising (created under 5 minutes ago and NodeClaim not Initialized): info, as " +
		"every node says so until ipamd is up; nodes being deleted; a lost kubelet (Unknown without a " +
		"network reason)",
	Why: "no pod can start; Karpenter deletes unregistered nodes after 15 minutes",
	Remedy: "read the aws-node pod and ipamd logs; check security groups to the EKS API, routes to EC2/API, " +
		"and AmazonEKS_CNI_Policy on the node or IRSA role",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s cmd/aws-vpc-cni/main.go (waitForIPAM)",
		"aws/karpenter-provider-aws website/content/en/docs/troubleshooting.md (Node NotReady)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go (15-minute registration TTL)",
	},
}

var specNodeClaimDrifted = &Spec{
	ID:       "nodeclaim-drifted",
	Severity: Info,
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectNode},
	Title:    "Karpenter will replace the node: its network drifted from the EC2NodeClass",
	FiresWhen: "the node's NodeClaim is Drifted=True with reason SubnetDrift, SecurityGroupDrift or " +
		"PlacementGroupDrift",
	NotOn: "drift for other reasons (AMI, NodeClass hash, requirements)",
	Why:   "Karpenter will replace the node; until then it runs on the old network",
	Remedy: "nothing if intended (or `kubectl delete nodeclaim NAME` now); otherwise restore " +
		"`subnetSelectorTerms` / `securityGroupSelectorTerms` / `placementGroupSelector`",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/drift.go (SubnetDrift, SecurityGroupDrift, PlacementGroupDrift)",
		"kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_status.go (Drifted condition)",
	},
}

var specEFAUnsupportedInstanceType = &Spec{
	ID:       "efa-unsupported-instance-type",
	Severity: Critical,
	Family:   FamilyEFA,
	Examines: []string{SubjectNode},
	Title:    "the node is meant to have EFA but its instance type does not support EFA",
	FiresWhen: "the node's EC2NodeClass `spec.networkInterfaces` has efa-only entries, or its NodeClaim requests " +
		"`vpc.amazonaws.com/efa`, but its instance type has `EfaSupported=false`",
	NotOn: "nodes whose class has no efa-only entries and whose NodeClaim requests no EFA",
	Why:   "EC2 attaches no EFA to such a type, so the pods that need EFA get no OS-bypass network",
	Remedy: "limit the NodePools to EFA-capable types (`node.kubernetes.io/instance-type` requirement) and " +
		"replace the node (`kubectl delete nodeclaim NAME`)",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (efas)",
		"aws/karpenter-provider-aws#9027",
		"aws/karpenter-provider-aws designs/efa-for-static-capacity.md",
		"https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html",
	},
}

var specEFAInterfaceCountMismatch = &Spec{
	ID:       "efa-interface-count-mismatch",
	Severity: Critical,
	Family:   FamilyEFA,
	Examines: []string{SubjectNode},
	Title:    "the EFA interfaces attached differ from what the EC2NodeClass or node capacity says",
	FiresWhen: "the EFA interfaces attached (efa + efa-only ENIs) differ from the EC2NodeClass's efa-only " +
		"entries, or (without any) from the node's `vpc.amazonaws.com/efa` capacity; both numbers stated",
	NotOn: "types without EFA (see `efa-unsupported-instance-type`), nodes whose class has no efa-only " +
		"entries and that advertise no `vpc.amazonaws.com/efa`",
	Why: "NCCL/MPI size their rails by the EFA devices they get: fewer devices means slower or failing " +
		"collectives, and EFAs are attached only at launch",
	Remedy: "replace the node (`kubectl delete nodeclaim NAME`) so Karpenter launches it with the class's " +
		"`spec.networkInterfaces`; for a capacity mismatch restart the aws-efa-k8s-device-plugin pod " +
		"first",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/launchtemplate/launchtemplate.go (generateNetworkInterfaces)",
		"aws/karpenter-provider-aws pkg/cloudprovider/cloudprovider.go (instanceToNodeClaim: efa capacity)",
		"aws/karpenter-provider-aws designs/efa-for-static-capacity.md",
		"https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/create-efa.html (attach only at launch or stopped)",
	},
}

var specEFASecurityGroupSelfRuleMissing = &Spec{
	ID:       "efa-security-group-self-rule-missing",
	Severity: Critical,
	Family:   FamilyEFA,
	Examines: []string{SubjectNode},
	Title:    "no security group of an EFA interface allows all traffic to and from itself",
	FiresWhen: "no security group of an EFA interface allows all traffic (protocol -1) both in from and out to " +
		"itself",
	NotOn: "interfaces with a group karpnet could not read",
	Why: "EC2 requires a self-referencing all-traffic rule in both directions for EFA; without it EFA " +
		"traffic between nodes is dropped",
	Remedy: "`aws ec2 authorize-security-group-ingress --group-id SG --protocol -1 --source-group SG` and the " +
		"matching egress rule, or select such a group in `spec.securityGroupSelectorTerms`",
	Sources: []string{
		"https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/create-efa.html",
		"https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html#efa-start-security",
		"https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html",
		"https://docs.aws.amazon.com/pcs/latest/userguide/working-with_networking_efa_create-sg.html",
	},
}

var specEFAResourceNotAdvertised = &Spec{
	ID:       "efa-resource-not-advertised",
	Severity: Warning,
	Family:   FamilyEFA,
	Examines: []string{SubjectNode},
	Title:    "the node has EFA interfaces but no allocatable vpc.amazonaws.com/efa",
	FiresWhen: "the node has EFA interfaces attached but allocatable `vpc.amazonaws.com/efa` is missing or 0 " +
		"(after 10 minutes)",
	NotOn: "nodes younger than 10 minutes",
	Why: "the aws-efa-k8s-device-plugin is not running there (an untolerated taint, instance type not in " +
		"its affinity), so EFA pods never schedule on the node",
	Remedy: "add tolerations (Helm `tolerations`) and the instance type (Helm " +
		"`supportedInstanceLabels.values`) to the EFA device plugin",
	Sources: []string{
		"aws/eks-charts stable/aws-efa-k8s-device-plugin/values.yaml",
		"aws/eks-charts stable/aws-efa-k8s-device-plugin/templates/daemonset.yaml",
		"aws/karpenter-provider-aws designs/efa-for-static-capacity.md (non-goal 1)",
	},
}

var specEFASubnetSplit = &Spec{
	ID:       "efa-subnet-split",
	Severity: Warning,
	Family:   FamilyEFA,
	Examines: []string{SubjectNodePool, SubjectPlacementGroup},
	Title:    "the EFA nodes of one NodePool or placement group sit in more than one subnet or zone",
	FiresWhen: "the EFA nodes of one NodePool (with its EC2NodeClass), or of one placement group, sit in more " +
		"than one subnet or zone",
	NotOn: "one class shared by NodePools that each pin a different zone, nodes without EFA interfaces",
	Why: "EFA OS-bypass traffic is only assured within one subnet and does not cross zones; Karpenter " +
		"picks a subnet per zone by free IPs",
	Remedy: "narrow `spec.subnetSelectorTerms` to one subnet or pin one zone in the NodePool, and replace the " +
		"nodes elsewhere",
	Sources: []string{
		"https://docs.aws.amazon.com/parallelcluster/latest/ug/efa-v3.html",
		"aws/karpenter-provider-aws pkg/providers/subnet/subnet.go (ZonalSubnetsForLaunch)",
		"aws/karpenter-provider-aws pkg/providers/launchtemplate/launchtemplate.go (generateNetworkInterfaces: all ENIs in the launch subnet)",
	},
}

var specEFAWithoutPlacementGroup = &Spec{
	ID:        "efa-without-placement-group",
	Severity:  Warning,
	Family:    FamilyEFA,
	Examines:  []string{SubjectNode},
	Title:     "an EFA node is not in a cluster placement group",
	FiresWhen: "an EFA node's instance is in no placement group, or in one whose strategy is not cluster",
	NotOn: "instances in a Capacity Block (InstanceLifecycle `capacity-block` or Karpenter's " +
		"`karpenter.k8s.aws/capacity-reservation-type=capacity-block`), which EC2 places in an " +
		"UltraCluster without a placement group; classes that select a group (left to the placement " +
		"checks)",
	Why: "EFA jobs are latency-bound; a cluster placement group gives them the low, even latency they " +
		"assume",
	Remedy: "create a cluster placement group and select it in `spec.placementGroupSelector` (Karpenter " +
		"1.11+) with one zone pinned",
	Sources: []string{
		"https://docs.aws.amazon.com/parallelcluster/latest/ug/efa-v3.html",
		"aws/karpenter-provider-aws designs/placement-groups-support.md (ML Training with EFA)",
		"aws/karpenter-provider-aws pkg/apis/v1/labels.go (`karpenter.k8s.aws/capacity-reservation-type`)",
	},
}

var specPlacementGroupMismatch = &Spec{
	ID:       "placement-group-mismatch",
	Severity: Warning,
	Family:   FamilyPlacement,
	Examines: []string{SubjectNode},
	Title:    "the instance is in another placement group than its EC2NodeClass or node label says",
	FiresWhen: "the instance's placement group differs from its EC2NodeClass `placementGroupSelector` (id or " +
		"name), or from the node label `karpenter.k8s.aws/placement-group-id`",
	NotOn: "nodes whose class selects no group and that carry no `karpenter.k8s.aws/placement-group-id` " +
		"label, groups karpnet could not tell apart",
	Why: "Karpenter places nodes by the selector and decides drift by the label; an instance elsewhere " +
		"silently loses the placement the workload relies on",
	Remedy: "let drift replace it or `kubectl delete nodeclaim NAME`; restore a hand-edited label with " +
		"`kubectl label node ... --overwrite`",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/drift.go (PlacementGroupDrift)",
		"aws/karpenter-provider-aws designs/placement-groups-support.md",
		"aws/karpenter-provider-aws#9030",
	},
}

var specPlacementGroupMissing = &Spec{
	ID:        "placement-group-missing",
	Severity:  Warning,
	Family:    FamilyPlacement,
	Examines:  []string{SubjectNode},
	Title:     "the EC2NodeClass selects a placement group and the instance is in none",
	FiresWhen: "the EC2NodeClass selects a placement group and the instance is in none",
	NotOn: "classes without `placementGroupSelector`; a node whose NodeClaim is already `Drifted=True` with " +
		"reason `PlacementGroupDrift` (one `nodeclaim-drifted` finding then says the instance is in no " +
		"group)",
	Why: "the node lacks cluster latency or spread/partition fault isolation (launched before the selector " +
		"was set, or by a Karpenter older than v1.11); Karpenter replaces it through drift",
	Remedy: "let drift replace it, or `kubectl delete nodeclaim NAME` now; check Karpenter >= v1.11 and " +
		"`PlacementGroupReady`",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/drift.go (PlacementGroupDrift)",
		"aws/karpenter-provider-aws designs/placement-groups-support.md",
		"aws/karpenter-provider-aws#9030",
	},
}

var specPlacementGroupUnavailable = &Spec{
	ID:       "placement-group-unavailable",
	Severity: Critical,
	Family:   FamilyPlacement,
	Examines: []string{SubjectNodeClass},
	Title:    "an EC2NodeClass selects a placement group that does not exist or is not available",
	FiresWhen: "an EC2NodeClass `placementGroupSelector` names a group DescribePlacementGroups did not return, " +
		"or whose state is not available",
	NotOn: "classes without `placementGroupSelector`; DescribePlacementGroups not readable",
	Why: "Karpenter sets `PlacementGroupReady=False` and launches no nodes for the class's NodePools; it " +
		"never creates groups",
	Remedy: "create the group (`aws ec2 create-placement-group`) or point `spec.placementGroupSelector` at an " +
		"existing, available one",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/placementgroup.go (PlacementGroupNotFound)",
		"aws/karpenter-provider-aws designs/placement-groups-support.md",
		"aws/karpenter-provider-aws#9030",
	},
}

var specPlacementGroupClusterMultiAZ = &Spec{
	ID:       "placement-group-cluster-multi-az",
	Severity: Warning,
	Family:   FamilyPlacement,
	Examines: []string{SubjectPlacementGroup, SubjectNodePool},
	Title:    "a cluster placement group's instances or NodePools span more than one zone",
	FiresWhen: "a cluster placement group's instances are in more than one zone, or a NodePool whose " +
		"EC2NodeClass selects a cluster group allows several zones (after intersecting with the class's " +
		"subnet zones)",
	NotOn: "partition and spread groups",
	Why: "a cluster group lives in one zone; launches in other zones fail for lack of capacity and " +
		"scale-ups stall",
	Remedy: "add `{key: topology.kubernetes.io/zone, operator: In, values: [ZONE]}` to the NodePool's " +
		"`spec.template.spec.requirements`",
	Sources: []string{
		"aws/karpenter-provider-aws designs/placement-groups-support.md (cluster strategy pins the AZ)",
		"https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html",
	},
}

var specPlacementGroupSpreadLimit = &Spec{
	ID:        "placement-group-spread-limit",
	Severity:  Warning,
	Family:    FamilyPlacement,
	Examines:  []string{SubjectPlacementGroup},
	Title:     "a spread placement group holds 7 running instances in one zone",
	FiresWhen: "a rack spread placement group holds 7 running instances in one zone",
	NotOn:     "partition and cluster groups, instances that are not running",
	Why: "EC2's limit: the next launch there fails, and replace-then-delete disruption in that zone is " +
		"blocked",
	Remedy: "allow more zones in the NodePools, select another spread group, or use a partition group for " +
		"more than 7 per zone",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/errors/errors.go (IsSpreadPlacementGroupLimitError)",
		"https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html",
		"aws/karpenter-provider-aws designs/placement-groups-support.md",
	},
}

var specPlacementGroupPartitionMismatch = &Spec{
	ID:       "placement-group-partition-mismatch",
	Severity: Warning,
	Family:   FamilyPlacement,
	Examines: []string{SubjectNode},
	Title:    "the node's placement-group-partition label differs from the instance's partition",
	FiresWhen: "a Karpenter node in a partition group has `karpenter.k8s.aws/placement-group-partition` absent, " +
		"empty or different from the instance's partition number",
	NotOn: "nodes still registering (`karpenter.sh/unregistered` taint), EKS Auto Mode nodes",
	Why: "topologySpreadConstraints on the label then put replicas meant for separate racks onto the same " +
		"one",
	Remedy: "`kubectl label node NAME karpenter.k8s.aws/placement-group-partition=N --overwrite`, or replace " +
		"the node",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/cloudprovider/registrationhooks/placementgrouphook.go",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go (RegistrationHookPending)",
		"aws/karpenter-provider-aws designs/placement-groups-support.md",
	},
}

var specNodePoolZoneUnreachable = &Spec{
	ID:       "nodepool-zone-unreachable",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyConsistency,
	Examines: []string{SubjectNodePool},
	Title:    "a NodePool's zone requirement and its EC2NodeClass's subnet zones do not meet",
	FiresWhen: "a NodePool's `topology.kubernetes.io/zone` / `topology.k8s.aws/zone-id` requirement shares no " +
		"zone with its EC2NodeClass's `status.subnets` (critical), or some required zones have no subnet " +
		"(warning)",
	NotOn: "NodePools without a zone requirement, classes whose subnet zones are unknown",
	Why: "Karpenter only launches in zones that have a resolved subnet: with none left it launches " +
		"nothing, and pods tied to an uncovered zone stay Pending",
	Remedy: "add a subnet in the zone to `spec.subnetSelectorTerms`, or change the NodePool's zone " +
		"requirement",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/instancetype/types.go (computeRequirements)",
		"aws/karpenter-provider-aws pkg/providers/subnet/subnet.go (ZonalSubnetsForLaunch)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclass/subnet.go",
	},
}

var specNodeClassSubnetVPCMismatch = &Spec{
	ID:       "nodeclass-subnet-vpc-mismatch",
	Severity: Critical,
	Family:   FamilyConsistency,
	Examines: []string{SubjectNodeClass},
	Title:    "an EC2NodeClass's subnets and security groups span several VPCs or lie outside the cluster's",
	FiresWhen: "an EC2NodeClass's status subnets and security groups span more than one VPC, or lie outside the " +
		"VPC most checked nodes run in",
	NotOn: "subnets and groups karpnet could not read",
	Why: "selectors have no VPC filter; EC2 rejects launches pairing a subnet and a group of different " +
		"VPCs (\"belong to different networks\"), and a node in another VPC cannot reach the cluster",
	Remedy: "make `spec.subnetSelectorTerms` / `spec.securityGroupSelectorTerms` select only the cluster " +
		"VPC's resources (by ID or VPC-specific tags)",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/providers/subnet/subnet.go (getFilterSets: no vpc-id filter)",
		"aws/karpenter-provider-aws pkg/providers/securitygroup/securitygroup.go",
		"aws/karpenter-provider-aws#3007",
		"aws-ia/terraform-aws-eks-blueprints#554",
	},
}

var specNodeClassPublicIPMultiENI = &Spec{
	ID:       "nodeclass-public-ip-multi-eni",
	Severity: Critical,
	Family:   FamilyConsistency,
	Examines: []string{SubjectNodeClass},
	Title:    "associatePublicIPAddress is true on an EC2NodeClass that launches several network interfaces",
	FiresWhen: "`associatePublicIPAddress: true` on an EC2NodeClass with more than one `spec.networkInterfaces` " +
		"entry, or whose NodeClaims request `vpc.amazonaws.com/efa` on a type with more than one EFA " +
		"interface",
	NotOn: "classes launching one interface, EFA claims on types with a single EFA interface",
	Why: "EC2 rejects a public IP when launching with several network interfaces " +
		"(InvalidParameterCombination): every launch fails",
	Remedy: "remove `spec.associatePublicIPAddress` (or set it false); use private subnets with a NAT gateway",
	Sources: []string{
		"aws/karpenter-provider-aws#5666",
		"aws/karpenter-provider-aws pkg/providers/launchtemplate/launchtemplate.go (generateNetworkInterfaces)",
		"aws/karpenter-provider-aws website/content/en/docs/concepts/nodeclasses.md (spec.associatePublicIPAddress)",
	},
}

var specSecurityGroupNodeToNodeBlocked = &Spec{
	ID:       "security-group-node-to-node-blocked",
	Severity: Warning,
	Family:   FamilyConsistency,
	Examines: []string{SubjectNode},
	Title:    "the node's security groups block a flow pod networking needs between nodes",
	FiresWhen: "the groups that carry the node's pod traffic (the instance's; under custom networking its " +
		"ENIConfig's, which the pods' ENIs get) block a flow pod networking needs between nodes, in or " +
		"out: DNS to CoreDNS over UDP 53 and over TCP 53, and TCP 1025-65535 (the range EKS's and " +
		"terraform-aws-eks's node rules open between nodes). A rule admits a flow when its protocol (or " +
		"-1) and ports cover it and it names one of those groups, or an IPv4 or IPv6 CIDR holding the " +
		"node's or pod subnet; the message names each blocked flow and the groups",
	NotOn: "terraform-aws-eks's node group (DNS and 1025-65535 from itself), the EKS cluster group (all from " +
		"itself), groups karpnet could not read, flows a prefix-list rule might admit (prefix lists are " +
		"not resolved)",
	Why: "with the VPC CNI, pod-to-pod traffic across nodes is traffic between the nodes' ENIs: CoreDNS, " +
		"Services and webhooks break",
	Remedy: "the remedy gives the `aws ec2 authorize-security-group-ingress` / `-egress` command for each " +
		"blocked flow, or add the EKS cluster security group to `spec.securityGroupSelectorTerms`",
	Sources: []string{
		"terraform-aws-modules/terraform-aws-eks node_groups.tf",
		"https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html",
		"aws-samples/eks-workshop-v2#327",
	},
}

var specSecurityGroupClusterTagConflict = &Spec{
	ID:       "security-group-cluster-tag-conflict",
	Severity: Warning,
	Family:   FamilyConsistency,
	Examines: []string{SubjectNode},
	Title:    "an ENI of the node has more than one security group tagged kubernetes.io/cluster/<cluster>",
	FiresWhen: "an ENI of the node carries more than one security group tagged `kubernetes.io/cluster/<cluster>` " +
		"(the cluster from aws-node's `CLUSTER_NAME` or the instances' `eks:eks-cluster-name` tag)",
	NotOn: "groups of another cluster, groups karpnet could not read, one tagged group next to untagged ones",
	Why: "the AWS Load Balancer Controller expects exactly one such group per ENI (\"expected exactly one " +
		"securityGroup tagged with kubernetes.io/cluster/...\") and registers no targets on the node; it " +
		"happens when a class selects both the EKS cluster group and terraform-aws-eks's node group, " +
		"which both carry the tag",
	Remedy: "remove the tag from one group (terraform-aws-eks: `node_security_group_tags` with the tag set to " +
		"null), or select groups by ID or another tag",
	Sources: []string{
		"aws/karpenter-provider-aws website/content/en/docs/concepts/nodeclasses.md (note on `kubernetes.io/cluster/<name>`)",
		"terraform-aws-modules/terraform-aws-eks node_groups.tf",
		"terraform-aws-modules/terraform-aws-eks examples/karpenter",
		"https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html (EKS tags the cluster group)",
	},
}

var specPodSubnetZoneMissing = &Spec{
	ID:       "pod-subnet-zone-missing",
	Severity: Critical,
	Family:   FamilyAutoMode,
	Examines: []string{SubjectNode},
	Title:    "an Auto Mode NodeClass's podSubnetSelectorTerms select no subnet in the node's zone",
	FiresWhen: "an Auto Mode node's NodeClass `podSubnetSelectorTerms` select subnets, but none in the node's " +
		"zone (judged on the subnets karpnet read; silent when a term names an unread subnet)",
	NotOn: "terms naming a subnet karpnet could not read",
	Why: "Auto Mode takes pod addresses only from a pod subnet in the node's zone: pods fail with `failed " +
		"to assign an IP address to container`",
	Remedy: "create or tag a pod subnet in that zone, or keep the NodePools out of it",
	Sources: []string{
		"https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html (Subnet selection for Pods)",
		"awsdocs/amazon-eks-user-guide#1088",
	},
}

var specPodSubnetSecurityGroupsMissing = &Spec{
	ID:        "pod-subnet-security-groups-missing",
	Severity:  Critical,
	Family:    FamilyAutoMode,
	Examines:  []string{SubjectNodeClass},
	Title:     "an Auto Mode NodeClass sets podSubnetSelectorTerms without podSecurityGroupSelectorTerms",
	FiresWhen: "an Auto Mode NodeClass sets `podSubnetSelectorTerms` without `podSecurityGroupSelectorTerms`",
	NotOn:     "classes without pod subnets",
	Why:       "EKS requires both; pods in the pod subnets get no security groups of their own",
	Remedy: "add `spec.podSecurityGroupSelectorTerms` (e.g. the cluster security group), or drop the pod " +
		"subnets",
	Sources: []string{
		"https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html (podSecurityGroupSelectorTerms required with podSubnetSelectorTerms)",
	},
}

var specPodSubnetMismatch = &Spec{
	ID:       "pod-subnet-mismatch",
	Severity: Warning,
	Family:   FamilyAutoMode,
	Examines: []string{SubjectNode},
	Title:    "pod addresses of an Auto Mode node lie outside its NodeClass's pod subnets",
	FiresWhen: "with pod subnets set, an Auto Mode node has secondary ENIs outside them, or secondary " +
		"IPs/prefixes on its primary ENI",
	NotOn: "classes without pod subnets",
	Why:   "pods use node-subnet addresses and security groups, not the pod subnets' routes, ACLs and groups",
	Remedy: "replace the node (pod subnets apply at launch); check the pod subnets have free addresses in the " +
		"zone",
	Sources: []string{
		"https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html (Subnet selection for Pods)",
		"https://docs.aws.amazon.com/eks/latest/userguide/auto-networking.html",
	},
}
