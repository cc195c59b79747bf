package diagnose

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// cniCreated returns an edit that makes the first node ago old at the snapshot.
func cniCreated(ago time.Duration) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) { s.Nodes[0].CreationTimestamp = metav1.NewTime(s.Taken.Add(-ago)) }
}

func TestPrefixDelegationInactive(t *testing.T) {
	pd := edits(cniEnv(SettingPrefixDelegation, "true"), cniCreated(30*time.Minute))
	withPrefix := func(s *snapshot.Snapshot) { s.Instances[0].ENIs[0].IPv4Prefixes = []string{"10.0.1.32/28"} }
	remedy := func(subnet, detail string) string {
		return "look for InsufficientCidrBlocks in ipamd's log on the node (/var/log/aws-routed-eni/ipamd.log): " +
			"pod subnet " + subnet + detail + " is likely fragmented, with free addresses but no free aligned /28; reserve room " +
			"for prefixes with aws ec2 create-subnet-cidr-reservation --reservation-type prefix --subnet-id " + subnet +
			" --cidr CIDR, or give pods a new subnet, then replace the node"
	}
	const subnetADetail = " (10.0.1.0/24, 200 free addresses)"
	finding := func(msg, remedy string) []Finding {
		return []Finding{{ID: "prefix-delegation-inactive", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA, Message: msg, Remedy: remedy}}
	}
	const noPrefix = "ENABLE_PREFIX_DELEGATION=true but none of the ENIs of this m5.large (eni-0primarydef0) holds an IPv4 " +
		"prefix 30m after the node was created, so ipamd has no address for pods"
	runCheckCases(t, prefixDelegationInactive, []checkCase{
		{name: "prefix delegation off is silent", edit: cniCreated(30 * time.Minute)},
		{name: "no prefix 30 minutes in fires", edit: pd, want: finding(noPrefix, remedy(subnetA, subnetADetail))},
		{
			name: "trunk and efa-only ENIs do not count",
			edit: edits(pd, func(s *snapshot.Snapshot) {
				s.Instances[0].ENIs = append(s.Instances[0].ENIs,
					snapshot.ENI{ID: "eni-0trunk", InterfaceType: "trunk", DeviceIndex: 2, SubnetID: subnetA, IPv4Prefixes: []string{"10.0.1.48/28"}},
					snapshot.ENI{ID: "eni-0efa", InterfaceType: "efa", NetworkCardIndex: 1, SubnetID: subnetA},
					snapshot.ENI{ID: "eni-0efaonly", InterfaceType: "efa-only", NetworkCardIndex: 2, SubnetID: subnetA},
				)
			}),
			want: finding("ENABLE_PREFIX_DELEGATION=true but none of the ENIs of this m5.large (eni-0primarydef0, eni-0efa) "+
				"holds an IPv4 prefix 30m after the node was created, so ipamd has no address for pods",
				remedy(subnetA, subnetADetail)),
		},
		{
			name: "the instance's launch time stands in for the node's creation",
			edit: edits(cniEnv(SettingPrefixDelegation, "true"), func(s *snapshot.Snapshot) {
				s.Instances[0].LaunchTime = s.Taken.Add(-2*time.Hour - 5*time.Minute)
			}),
			want: finding("ENABLE_PREFIX_DELEGATION=true but none of the ENIs of this m5.large (eni-0primarydef0) holds an IPv4 "+
				"prefix 2h5m after the node was created, so ipamd has no address for pods", remedy(subnetA, subnetADetail)),
		},
		{
			name: "custom networking names the ENIConfig subnet",
			edit: edits(pd, cniEnv(SettingCustomNetwork, "true"), func(s *snapshot.Snapshot) {
				s.ENIConfigs = []snapshot.ENIConfig{{Name: "default", Subnet: "subnet-0pods"}}
			}),
			want: finding(noPrefix, remedy("subnet-0pods", "")),
		},
		{
			name: "IPv6 clusters look for IPv6 prefixes",
			edit: edits(pd, withPrefix, cniEnv(SettingIPv6, "true")),
			want: finding("ENABLE_PREFIX_DELEGATION=true but none of the ENIs of this m5.large (eni-0primarydef0) holds an IPv6 "+
				"prefix 30m after the node was created, so ipamd has no address for pods", remedy(subnetA, subnetADetail)),
		},
		{name: "IPv6 prefix is silent", edit: edits(pd, cniEnv(SettingIPv6, "true"), func(s *snapshot.Snapshot) {
			s.Instances[0].ENIs[0].IPv6Prefixes = []string{"2600:1f14::/80"}
		})},
		{name: "a prefix is silent", edit: edits(pd, withPrefix)},
		{name: "a missing ENIConfig is left to eniconfig-missing", edit: edits(pd, cniEnv(SettingCustomNetwork, "true"))},
		{name: "an ENIConfig in another zone is left to eniconfig-zone-mismatch", edit: edits(pd, cniEnv(SettingCustomNetwork, "true"),
			func(s *snapshot.Snapshot) {
				s.ENIConfigs = []snapshot.ENIConfig{{Name: "default", Subnet: "subnet-0podsb"}}
				s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0podsb", CIDR: "100.64.64.0/18", Zone: "us-west-2b"})
			})},
		{name: "a node whose network is not ready is left to node-network-not-ready", edit: edits(pd, func(s *snapshot.Snapshot) {
			s.Nodes[0].Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse,
				Reason: "KubeletNotReady", Message: "container runtime network not ready: NetworkReady=false"}}
		})},
		{name: "a node younger than 10 minutes is silent", edit: edits(pd, cniCreated(9*time.Minute))},
		{name: "unknown age is silent", edit: cniEnv(SettingPrefixDelegation, "true")},
		{name: "Xen type is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.InstanceTypes[0].Hypervisor = "xen" })},
		{name: "stopped instance is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.Instances[0].State = "stopped" })},
		{name: "VPC CNI too old for prefixes is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.AWSNode.Image = "amazon-k8s-cni:v1.7.10" })},
		{name: "no aws-node DaemonSet is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.AWSNode = nil })},
		{name: "instances gap is silent", edit: edits(pd, func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances))},
	})
}
