package diagnose

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// cniCustomNetworking reports whether aws-node has custom networking on. The checks that call
// it need the ENIConfigs (Spec.Needs): they do not run when those were not read.
func (x *Index) cniCustomNetworking() bool {
	return x.vpcCNI() && x.cniSettingOn(SettingCustomNetwork)
}

// eniConfigFindings runs f, under custom networking, for every checked node with the ENIConfig
// the VPC CNI chooses for it and that ENIConfig (nil when none has the name), and collects the
// findings f returns.
func (x *Index) eniConfigFindings(f func(n *NodeInfo, c eniConfigChoice, cfg *snapshot.ENIConfig) (Finding, bool)) []Finding {
	if !x.cniCustomNetworking() {
		return nil
	}
	var out []Finding
	for _, n := range x.vpcCNINodes() {
		c := chooseENIConfig(n.Node, x.Snapshot.AWSNode)
		if finding, ok := f(n, c, x.ENIConfigs[c.Name]); ok {
			out = append(out, finding)
		}
	}
	return out
}

var specENIConfigMissing = &Spec{
	ID:       "eniconfig-missing",
	Severity: Critical,
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceAWSNode, snapshot.SourceENIConfigs},
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
	Verified: []Verified{
		{UpstreamVPCCNI, "pkg/eniconfig/eniconfig.go (GetNodeSpecificENIConfigName)",
			"The node's ENIConfig name is its label vpc.amazonaws.com/externalEniConfig, else the annotation ENI_CONFIG_ANNOTATION_DEF names, else the label ENI_CONFIG_LABEL_DEF names, else \"default\"."},
		{UpstreamVPCCNI, "pkg/eniconfig/eniconfig.go (getEniConfigAnnotationDef, getEniConfigLabelDef)",
			"ENI_CONFIG_ANNOTATION_DEF and ENI_CONFIG_LABEL_DEF unset or empty mean k8s.amazonaws.com/eniConfig."},
		{UpstreamVPCCNI, "pkg/eniconfig/eniconfig.go (MyENIConfig, ErrNoENIConfig)",
			"An ENIConfig of that name that does not exist gives ErrNoENIConfig."},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (tryAllocateENI)",
			"With custom networking ipamd reads the node's ENIConfig before creating an ENI and creates none when it cannot."},
		{UpstreamVPCCNI, "README.md (ENI_CONFIG_LABEL_DEF)",
			"Setting ENI_CONFIG_LABEL_DEF=topology.kubernetes.io/zone with one ENIConfig per zone, named after it, selects by zone."},
	},
}

// eniConfigMissing finds nodes whose ENIConfig does not exist under custom networking. ipamd
// then logs "No ENIConfig could be found for this node" and attaches no secondary ENI, so every
// pod that is not host-network stays in ContainerCreating.
var eniConfigMissing = Check{
	Spec: specENIConfigMissing,
	Run: func(x *Index) []Finding {
		known := sortedKeys(x.ENIConfigs)
		if len(known) == 0 {
			known = []string{"none"}
		}
		return x.eniConfigFindings(func(n *NodeInfo, c eniConfigChoice, cfg *snapshot.ENIConfig) (Finding, bool) {
			if cfg != nil || x.cniInstanceGone(n) {
				return Finding{}, false
			}
			return Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("%s=true and the node's ENIConfig is %q (%s), but no ENIConfig has that name "+
					"(ENIConfigs: %s): ipamd attaches no secondary ENI and pods get no IP address",
					SettingCustomNetwork, c.Name, c.from(), strings.Join(known, ", ")),
				Remedy: eniConfigMissingRemedy(n, c),
			}, true
		})
	},
}

// eniConfigMissingRemedy says which ENIConfig to create, or how to point the node at one.
func eniConfigMissingRemedy(n *NodeInfo, c eniConfigChoice) string {
	in := ""
	if z := nodeZone(n); z != "" {
		in = " in " + z
	}
	create := fmt.Sprintf("create ENIConfig %s (crd.k8s.amazonaws.com/v1alpha1) with spec.subnet a pod subnet%s and "+
		"spec.securityGroups", c.Name, in)
	if c.Kind == "" {
		return create + fmt.Sprintf(", or set %s=%s on aws-node and create one ENIConfig named after each zone",
			SettingENIConfigLabel, "topology.kubernetes.io/zone")
	}
	return create + fmt.Sprintf(", or change the node's %s %s to an existing ENIConfig", c.Kind, c.Key)
}

var specENIConfigZoneMismatch = &Spec{
	ID:        "eniconfig-zone-mismatch",
	Severity:  Critical,
	Family:    FamilyVPCCNI,
	Needs:     []string{snapshot.SourceAWSNode, snapshot.SourceENIConfigs},
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
	Verified: []Verified{
		{UpstreamVPCCNI, "README.md (AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG)",
			"The subnet in the node's ENIConfig must be in the node's Availability Zone."},
		{UpstreamVPCCNI, "pkg/awsutils/awsutils.go (createENIUsingCustomCfg)",
			"With custom networking the new ENI's SubnetId is the ENIConfig's spec.subnet."},
		{UpstreamVPCCNI, "pkg/eniconfig/eniconfig.go (GetNodeSpecificENIConfigName)",
			"Which ENIConfig a node uses: externalEniConfig label, annotation, label, else \"default\"."},
	},
}

// eniConfigZoneMismatch finds nodes whose ENIConfig names a subnet in another zone. An ENI can
// only be attached to an instance in its subnet's zone, so ipamd fails to create secondary ENIs
// and pods get no IP address. It happens when one ENIConfig label is set for a NodePool that
// spans zones.
var eniConfigZoneMismatch = Check{
	Spec: specENIConfigZoneMismatch,
	Run: func(x *Index) []Finding {
		return x.eniConfigFindings(func(n *NodeInfo, c eniConfigChoice, cfg *snapshot.ENIConfig) (Finding, bool) {
			if cfg == nil || x.cniInstanceGone(n) {
				return Finding{}, false
			}
			s, zone := x.Subnets[cfg.Subnet], nodeZone(n)
			if s == nil || s.Zone == "" || zone == "" || s.Zone == zone {
				return Finding{}, false
			}
			return Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("the node is in %s but its ENIConfig %q (%s) puts pods in %s in %s: "+
					"ipamd cannot attach an ENI from another zone, so pods get no IP address",
					zone, c.Name, c.from(), cfg.Subnet, s.Zone),
				Remedy: eniConfigZoneRemedy(n, c, zone),
			}, true
		})
	},
}

// eniConfigZoneRemedy says how to give the node an ENIConfig of its own zone.
func eniConfigZoneRemedy(n *NodeInfo, c eniConfigChoice, zone string) string {
	perZone := fmt.Sprintf("set %s=topology.kubernetes.io/zone on aws-node and name one ENIConfig after each zone",
		SettingENIConfigLabel)
	if c.Kind == "label" && n.Pool != nil && n.Pool.Labels[c.Key] == c.Name {
		return fmt.Sprintf("remove label %s=%s from spec.template.metadata.labels of NodePool %s, which gives every "+
			"zone one ENIConfig, and %s", c.Key, c.Name, n.Pool.Name, perZone)
	}
	how := fmt.Sprintf("change its %s %s", c.Kind, c.Key)
	if c.Kind == "" {
		how = "label it " + defaultENIConfigKey + "=NAME"
	}
	return fmt.Sprintf("give the node an ENIConfig whose spec.subnet is in %s (%s), or %s", zone, how, perZone)
}

var specENIConfigSubnetMismatch = &Spec{
	ID:       "eniconfig-subnet-mismatch",
	Severity: Warning,
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceAWSNode, snapshot.SourceENIConfigs},
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
	Verified: []Verified{
		{UpstreamVPCCNI, "pkg/awsutils/awsutils.go (createENIUsingCustomCfg)",
			"With custom networking ipamd creates each secondary ENI in the ENIConfig's spec.subnet, with its spec.securityGroups (the primary ENI's groups when the list is empty)."},
		{UpstreamVPCCNI, "pkg/ipamd/datastore/data_store.go (GetAllocatableENIs)",
			"With custom networking the primary ENI is skipped for pod IPs, so pods' IPs come from the secondary ENIs only."},
	},
}

// eniConfigSubnetMismatch finds nodes with secondary ENIs outside their ENIConfig's subnet.
// The VPC CNI reads the ENIConfig only when it creates an ENI: after the ENIConfig changes, or
// when ENIs come from elsewhere, pods keep taking addresses (and security groups) from the old
// subnet until the node is replaced.
var eniConfigSubnetMismatch = Check{
	Spec: specENIConfigSubnetMismatch,
	Run: func(x *Index) []Finding {
		return x.eniConfigFindings(func(n *NodeInfo, c eniConfigChoice, cfg *snapshot.ENIConfig) (Finding, bool) {
			if cfg == nil || cfg.Subnet == "" {
				return Finding{}, false
			}
			var wrong []string
			for _, e := range n.instanceENIs() {
				if e.NetworkCardIndex == 0 && e.DeviceIndex > 0 && e.InterfaceType == "interface" &&
					e.SubnetID != "" && e.SubnetID != cfg.Subnet {
					wrong = append(wrong, fmt.Sprintf("%s (device %d) in %s", e.ID, e.DeviceIndex, e.SubnetID))
				}
			}
			if len(wrong) == 0 {
				return Finding{}, false
			}
			return Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("ENIConfig %q (%s) names %s, but the node has secondary ENIs elsewhere: %s; pods on "+
					"them take addresses and security groups from the wrong subnet", c.Name, c.from(), cfg.Subnet,
					strings.Join(wrong, ", ")),
				Remedy: replaceNodeProse(n, "so the VPC CNI creates its ENIs from the current ENIConfig (it never moves an "+
					"attached ENI)") + " (" + plural(len(replaceNodeCommands(n)), "the command", "the commands") + ")",
				Commands: replaceNodeCommands(n),
			}, true
		})
	},
}

var specENIConfigReferenceMissing = &Spec{
	ID:       "eniconfig-reference-missing",
	Severity: Critical,
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceAWSNode, snapshot.SourceENIConfigs},
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
	Verified: []Verified{
		{UpstreamVPCCNI, "pkg/awsutils/awsutils.go (createENIUsingCustomCfg)",
			"The ENIConfig's spec.subnet and spec.securityGroups go straight into CreateNetworkInterface, so a subnet or group that does not exist fails the ENI."},
		{UpstreamVPCCNI, "pkg/apis/crd/v1alpha1/eniconfig_types.go (ENIConfigSpec)",
			"An ENIConfig's spec has subnet and securityGroups."},
	},
}

// eniConfigReferenceMissing finds ENIConfigs that nodes use under custom networking whose
// spec.subnet or spec.securityGroups name something EC2 does not return (deleted, mistyped,
// or in another account or Region). ipamd then fails to create every secondary ENI
// (InvalidSubnetID.NotFound, InvalidGroup.NotFound) and the nodes' pods get no IP address. It
// is one finding per ENIConfig, naming the nodes that use it; nothing is said when subnets or
// security groups could not be read.
var eniConfigReferenceMissing = Check{
	Spec: specENIConfigReferenceMissing,
	Run: func(x *Index) []Finding {
		if !x.cniCustomNetworking() {
			return nil
		}
		users := map[string][]*NodeInfo{}
		for _, n := range x.vpcCNINodes() {
			if name := chooseENIConfig(n.Node, x.Snapshot.AWSNode).Name; x.ENIConfigs[name] != nil && !x.cniInstanceGone(n) {
				users[name] = append(users[name], n)
			}
		}
		subnetsRead := !x.Unavailable(snapshot.SourceDescribeSubnets)
		groupsRead := !x.Unavailable(snapshot.SourceDescribeSecurityGroups)
		var out []Finding
		for _, name := range sortedKeys(users) {
			cfg := x.ENIConfigs[name]
			var missing []string
			var lookups []Command
			var nodes []string
			zones, vpcs := map[string]bool{}, map[string]bool{}
			for _, n := range users[name] {
				nodes = append(nodes, n.Name())
				if z := nodeZone(n); z != "" {
					zones[z] = true
				}
				if n.Instance != nil && n.Instance.VpcID != "" {
					vpcs[n.Instance.VpcID] = true
				}
			}
			if cfg.Subnet != "" && subnetsRead && x.Subnets[cfg.Subnet] == nil {
				missing = append(missing, "subnet "+cfg.Subnet)
				lookups = append(lookups, lookupCommand("describe-subnets", lookupFilters("availability-zone", zones, vpcs)))
			}
			var badGroups bool
			for _, g := range cfg.SecurityGroups {
				if groupsRead && x.SecurityGroups[g] == nil {
					missing = append(missing, "security group "+g)
					badGroups = true
				}
			}
			if badGroups {
				lookups = append(lookups, lookupCommand("describe-security-groups", lookupFilters("", nil, vpcs)))
			}
			if len(missing) == 0 {
				continue
			}
			out = append(out, Finding{
				Resource: "eniconfig/" + name,
				Message: fmt.Sprintf("ENIConfig %s names %s, which EC2 does not return in %s: ipamd cannot create secondary "+
					"ENIs for the nodes that use it (%s: %s), so their pods get no IP address", name, strings.Join(missing, " and "),
					cmp.Or(x.Snapshot.Region, "the Region read"), countText(len(nodes), "node", "nodes"), abbreviate(nodes, 3)),
				Remedy: fmt.Sprintf("point ENIConfig %s (spec.subnet, spec.securityGroups) at an existing pod subnet of its "+
					"nodes' zone and existing security groups of their VPC (the commands list them), then replace its nodes "+
					"so ipamd creates their ENIs again", name),
				Commands: lookups,
			})
		}
		return out
	},
}

// lookupCommand is the read-only AWS CLI command that lists what a describe verb returns
// under filters (none: all of them).
func lookupCommand(verb string, filters []string) Command {
	argv := []string{"aws", "ec2", verb}
	if len(filters) > 0 {
		argv = append(append(argv, "--filters"), filters...)
	}
	return Command{Argv: argv, ReadOnly: true}
}

// lookupFilters are the AWS CLI --filters for the zones (under zoneKey) and VPCs the nodes are
// in, e.g. "Name=availability-zone,Values=us-west-2a" and "Name=vpc-id,Values=vpc-0abc".
func lookupFilters(zoneKey string, zones, vpcs map[string]bool) []string {
	var parts []string
	if zoneKey != "" && len(zones) > 0 {
		parts = append(parts, "Name="+zoneKey+",Values="+strings.Join(sortedKeys(zones), ","))
	}
	if len(vpcs) > 0 {
		parts = append(parts, "Name=vpc-id,Values="+strings.Join(sortedKeys(vpcs), ","))
	}
	return parts
}
