package diagnose

import (
	"fmt"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// SettingIPv6 is the aws-node setting of IPv6 clusters, where prefixes are IPv6 /80s.
const SettingIPv6 = "ENABLE_IPv6"

// prefixGrace is how long a new node may go without a prefix: ipamd attaches the first one
// within a minute or two of starting.
const prefixGrace = 10 * time.Minute

// prefixDelegationInactive finds Nitro nodes that run with prefix delegation on but whose ENIs
// hold no prefix at all, well after they started. ipamd then cannot give pods any address: the
// usual cause is InsufficientCidrBlocks, a pod subnet with free addresses scattered by
// secondary IPs so that no aligned /28 is left.
var prefixDelegationInactive = Check{
	ID:       "prefix-delegation-inactive",
	Severity: Warning,
	Title:    "prefix delegation is on but the node's ENIs hold no prefix",
	Run: func(x *Index) []Finding {
		if !x.prefixDelegationUsable() {
			return nil
		}
		ipv6 := x.cniSettingOn(SettingIPv6)
		family := "IPv4"
		if ipv6 {
			family = "IPv6"
		}
		var out []Finding
		for _, n := range x.vpcCNINodes() {
			if n.Type == nil || !n.Type.Nitro() || n.Instance == nil || n.Instance.State != "running" {
				continue
			}
			age, ok := cniNodeAge(n, x.Snapshot.Taken)
			if !ok || age <= prefixGrace || cniNetworkDown(n) || !x.eniConfigUsable(n) {
				continue
			}
			enis, prefixes := prefixENIs(n.Instance, ipv6)
			if len(enis) == 0 || prefixes > 0 {
				continue
			}
			out = append(out, Finding{
				ID:       "prefix-delegation-inactive",
				Severity: Warning,
				Node:     n.Name(),
				Resource: nodeRef(n.Name()),
				Message: fmt.Sprintf("%s=true but none of the ENIs of this %s (%s) holds an %s prefix %s after the node "+
					"was created, so ipamd has no address for pods", SettingPrefixDelegation, n.Type.Name, strings.Join(enis, ", "),
					family, strings.TrimSuffix(age.Round(time.Minute).String(), "0s")),
				Remedy: prefixRemedy(x, n),
			})
		}
		return out
	},
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
	s, zone := x.Subnets[cfg.Subnet], cniNodeZone(n)
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
// efa-only and trunk ENIs cannot) and how many prefixes of the family they hold.
func prefixENIs(in *snapshot.Instance, ipv6 bool) ([]string, int) {
	var ids []string
	var prefixes int
	for _, e := range in.ENIs {
		if e.InterfaceType != "interface" && e.InterfaceType != interfaceEFA {
			continue
		}
		ids = append(ids, e.ID)
		if ipv6 {
			prefixes += len(e.IPv6Prefixes)
		} else {
			prefixes += len(e.IPv4Prefixes)
		}
	}
	return ids, prefixes
}

// prefixRemedy points at the pod subnet and how to give it room for /28 prefixes.
func prefixRemedy(x *Index, n *NodeInfo) string {
	subnet := n.Instance.SubnetID
	if x.cniSettingOn(SettingCustomNetwork) {
		if cfg := x.ENIConfigs[ENIConfigName(n.Node, x.Snapshot.AWSNode)]; cfg != nil && cfg.Subnet != "" {
			subnet = cfg.Subnet
		}
	}
	where, id := "the pod subnet", "SUBNET"
	if subnet != "" {
		where, id = "pod subnet "+subnet, subnet
		if s := x.Subnets[subnet]; s != nil {
			where += fmt.Sprintf(" (%s, %d free addresses)", s.CIDR, s.AvailableIPs)
		}
	}
	return fmt.Sprintf("look for InsufficientCidrBlocks in ipamd's log on the node (/var/log/aws-routed-eni/ipamd.log): "+
		"%s is likely fragmented, with free addresses but no free aligned /28; reserve room for prefixes with "+
		"aws ec2 create-subnet-cidr-reservation --reservation-type prefix --subnet-id %s --cidr CIDR, or give pods "+
		"a new subnet, then replace the node", where, id)
}
