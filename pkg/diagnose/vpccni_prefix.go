package diagnose

import (
	"fmt"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// SettingIPv6 is the aws-node setting of IPv6 clusters, where prefixes are IPv6 /80s.
const SettingIPv6 = snapshot.EnvIPv6

// prefixGrace is how long a new node may go without a prefix: ipamd attaches the first one
// within a minute or two of starting.
const prefixGrace = 10 * time.Minute

var specPrefixDelegationInactive = &Spec{
	ID:       "prefix-delegation-inactive",
	Severity: Warning,
	Lower:    []Severity{Info},
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceAWSNode},
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
	Scope: "a prefix reservation of the pod subnet's largest free aligned run (every interface in the subnet takes single addresses elsewhere from now on) and the node's replacement",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s pkg/ipamd/ipamd.go (isDatastorePoolTooLow, containsInsufficientCIDRsOrSubnetIPs)",
		"aws/amazon-vpc-cni-k8s README.md (ENABLE_PREFIX_DELEGATION)",
		"aws/amazon-vpc-cni-k8s#2749",
		"aws/amazon-vpc-cni-k8s#3105",
	},
	Verified: []Verified{
		{UpstreamVPCCNI, "README.md (ENABLE_PREFIX_DELEGATION)",
			"ENABLE_PREFIX_DELEGATION (default false) assigns /28 prefixes instead of secondary IPs on Nitro instances; switching it while ENIs are attached is supported, new pods get IPs by the current mode."},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (ValidateIPAMConfig)",
			"On a non-Nitro instance ipamd turns prefix delegation off and falls back to secondary IPs (IPv4)."},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (isDatastorePoolTooLow)",
			"ipamd asks for more prefixes only when the pool is below its warm target, so a node with free secondary IPs adds no prefix."},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (containsInsufficientCIDRsOrSubnetIPs, insufficientCidrErrorCooldown)",
			"InsufficientCidrBlocks or InsufficientFreeAddressesInSubnet make ipamd wait 120 s before asking again."},
	},
}

// prefixDelegationInactive finds Nitro nodes that run with prefix delegation on but whose ENIs
// hold no IPv4 prefix at all, well after they started. When they hold no secondary IP for
// pods either, ipamd got nothing: the usual cause is InsufficientCidrBlocks, a pod subnet with
// free addresses scattered by secondary IPs so that no aligned /28 is left (warning). When
// they still hold secondary IPs, prefix delegation was switched on while the node ran: ipamd
// keeps handing out the addresses it holds and adds no prefix while enough are free
// (isDatastorePoolTooLow), so the node moves to prefixes only when it is replaced (info). IPv6
// nodes are left to ipv6-prefix-missing.
var prefixDelegationInactive = Check{
	Spec: specPrefixDelegationInactive,
	Run: func(x *Index) []Finding {
		if !x.prefixDelegationUsable() {
			return nil
		}
		var out []Finding
		for _, n := range x.vpcCNINodes() {
			if n.IPv6() || n.Type == nil || !n.Type.Nitro() || n.Instance == nil || n.Instance.State != "running" {
				continue
			}
			age, ok := cniNodeAge(n, x.Snapshot.Taken)
			if !ok || age <= prefixGrace || cniNetworkDown(n) || !x.eniConfigUsable(n) {
				continue
			}
			enis, prefixes, secondary := prefixENIs(n.Instance)
			if len(enis) == 0 || prefixes > 0 {
				continue
			}
			f := Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("%s=true but none of the ENIs of this %s (%s) holds an IPv4 prefix or a secondary IP %s "+
					"after the node was created, so ipamd has no address for pods", SettingPrefixDelegation, n.Type.Name,
					strings.Join(enis, ", "), ago(age)),
			}
			f.Remedy, f.Commands = prefixRemedy(x, n)
			if secondary > 0 {
				f.Severity = Info
				f.Message = fmt.Sprintf("%s=true but the ENIs of this %s (%s) still hold %s and no prefix: prefix delegation "+
					"came after the node started, and ipamd keeps giving pods the addresses it holds and adds no prefix while "+
					"enough are free, so the node moves to /28 prefixes only when it is replaced", SettingPrefixDelegation,
					n.Type.Name, strings.Join(enis, ", "), countText(secondary, "secondary IP", "secondary IPs"))
				f.Remedy = replaceNodeProse(n, "when it should run on prefixes (drift or expiry does it too)") + " (" +
					plural(len(replaceNodeCommands(n)), "the command", "the commands") + ")"
				f.Commands = replaceNodeCommands(n)
			}
			out = append(out, f)
		}
		return out
	},
}

var specIPv6PrefixMissing = &Spec{
	ID:       "ipv6-prefix-missing",
	Severity: Critical,
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceAWSNode},
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
	Verified: []Verified{
		{UpstreamVPCCNI, "README.md (ENABLE_IPv6)",
			"IPv6 mode works only with ENABLE_PREFIX_DELEGATION=true, on Nitro instances; dual stack is not supported."},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (assignIPv6Prefix)",
			"In IPv6 mode ipamd attaches one /80 prefix to the primary ENI and gives every pod an address from it."},
		{UpstreamVPCCNI, "pkg/awsutils/awsutils.go (AllocIPv6Prefixes)",
			"The /80 comes from ec2:AssignIpv6Addresses with Ipv6PrefixCount 1."},
	},
}

// ipv6PrefixMissing finds IPv6 nodes that aws-node runs on whose primary ENI holds no IPv6
// /80 prefix once they are past their start-up. On IPv6 clusters the VPC CNI gives every pod
// an address from that one prefix: without it no pod that is not host-network gets an
// address. The usual causes are a subnet without an IPv6 CIDR, a node role or IRSA role
// without ec2:AssignIpv6Addresses (the AmazonEKS_CNI_IPv6_Policy), or a non-Nitro type.
var ipv6PrefixMissing = Check{
	Spec: specIPv6PrefixMissing,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.vpcCNINodes() {
			if !n.IPv6() || n.Initialising() || n.Instance == nil || n.Instance.State != "running" || len(n.Instance.ENIs) == 0 {
				continue
			}
			if len(primaryIPv6Prefixes(n)) > 0 || cniNetworkDown(n) {
				continue
			}
			subnet := "its subnet"
			if s := n.Subnet; s != nil {
				subnet = s.ID
				if len(s.IPv6CIDRs) == 0 {
					subnet += " (which has no IPv6 CIDR)"
				} else {
					subnet += " (" + strings.Join(s.IPv6CIDRs, ", ") + ")"
				}
			}
			out = append(out, Finding{
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("the node takes IPv6 pod addresses (%s) but the primary ENI of instance %s in %s "+
					"holds no /80 prefix, so pods get no address", ipv6Why(x, n), n.Instance.ID, subnet),
				Remedy: "give a subnet without an IPv6 CIDR a /64 of the VPC's IPv6 block, one you choose (EC2 " +
					"AssociateSubnetCidrBlock), allow " +
					"ec2:AssignIpv6Addresses to the role aws-node uses (AmazonEKS_CNI_IPv6_Policy), read ipamd's log " +
					"(/var/log/aws-routed-eni/ipamd.log) for the EC2 error, then " + replaceNodeProse(n, ""),
				Commands: replaceNodeCommands(n),
			})
		}
		return out
	},
}

// ipv6Why says what makes the node an IPv6 one.
func ipv6Why(x *Index, n *NodeInfo) string {
	if x.cniSettingOn(SettingIPv6) {
		return "aws-node " + SettingIPv6 + "=true"
	}
	return "its first InternalIP is IPv6"
}

// cniNetworkDown reports whether a node condition says the node's network is down, which
// node-network-not-ready reports: ipamd is not running there and attaches nothing.
func cniNetworkDown(n *NodeInfo) bool {
	for _, c := range n.Node.Status.Conditions {
		if networkConditionBad(c) {
			return true
		}
	}
	return false
}

// eniConfigUsable reports whether, under custom networking, the node's ENIConfig exists and its
// subnet is not in another zone; without custom networking it is true. Without one, ipamd
// attaches no secondary ENI and so no prefix, which eniconfig-missing and
// eniconfig-zone-mismatch report.
func (x *Index) eniConfigUsable(n *NodeInfo) bool {
	if !x.cniSettingOn(SettingCustomNetwork) {
		return true
	}
	cfg := x.ENIConfigs[ENIConfigName(n.Node, x.Snapshot.AWSNode)]
	if cfg == nil {
		return x.Unavailable(snapshot.SourceENIConfigs)
	}
	s, zone := x.Subnets[cfg.Subnet], nodeZone(n)
	return s == nil || s.Zone == "" || zone == "" || s.Zone == zone
}

// cniNodeAge returns how long before taken the node was created (its instance's launch time when
// the Node has no creation time); false when neither is known.
func cniNodeAge(n *NodeInfo, taken time.Time) (time.Duration, bool) {
	created := n.Node.CreationTimestamp.Time
	if created.IsZero() && n.Instance != nil {
		created = n.Instance.LaunchTime
	}
	if created.IsZero() {
		return 0, false
	}
	return taken.Sub(created), true
}

// prefixENIs returns the IDs of the instance's ENIs that can hold prefixes (interface and efa;
// efa-only and trunk ENIs cannot), how many IPv4 prefixes they hold and how many secondary IPs
// (every private IP but each ENI's primary one) they hold for pods.
func prefixENIs(in *snapshot.Instance) (ids []string, prefixes, secondary int) {
	for _, e := range in.ENIs {
		if e.InterfaceType != "interface" && e.InterfaceType != interfaceEFA {
			continue
		}
		ids = append(ids, e.ID)
		prefixes += len(e.IPv4Prefixes)
		for _, ip := range e.PrivateIPs {
			if ip != e.PrimaryIP {
				secondary++
			}
		}
	}
	return ids, prefixes, secondary
}

// prefixRemedy points at the pod subnet and how to give it room for /28 prefixes: a prefix
// reservation of the subnet's largest free run when karpnet knows it (its block map), else a
// range the user chooses, or a new subnet; then the node's replacement.
func prefixRemedy(x *Index, n *NodeInfo) (string, []Command) {
	subnet := n.Instance.SubnetID
	if x.cniSettingOn(SettingCustomNetwork) {
		if cfg := x.ENIConfigs[ENIConfigName(n.Node, x.Snapshot.AWSNode)]; cfg != nil && cfg.Subnet != "" {
			subnet = cfg.Subnet
		}
	}
	where := "the pod subnet"
	reserve := "reserve a free aligned range of it for prefixes, one you choose (EC2 CreateSubnetCidrReservation, " +
		"reservation type prefix)"
	var commands []Command
	if subnet != "" {
		where = "pod subnet " + subnet
		if s := x.Subnets[subnet]; s != nil {
			where += fmt.Sprintf(" (%s, %d free addresses)", s.CIDR, s.AvailableIPs)
			if m, ok := x.BlockMap(s); ok && m.LargestFreeCIDR != "" {
				reserve = fmt.Sprintf("reserve its largest free run, %s, for prefixes (the create-subnet-cidr-reservation "+
					"command; a reservation may cover addresses in use, it frees none)", m.LargestFreeCIDR)
				commands = append(commands, prefixReservation(x, s, m.LargestFreeCIDR))
			}
		}
	}
	return fmt.Sprintf("look for InsufficientCidrBlocks in ipamd's log on the node (/var/log/aws-routed-eni/ipamd.log): "+
		"%s is likely fragmented, with free addresses but no free aligned /28; %s, or give pods a new subnet (one "+
		"you create), then %s", where, reserve, replaceNodeProse(n, "")), append(commands, replaceNodeCommands(n)...)
}
