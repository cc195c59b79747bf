package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// autoPodSubnet returns the Auto Mode pod subnet of a zone, nil when the zone has none.
func (n *network) autoPodSubnet(zone string) *subnet {
	return n.subnets["web-pods-"+strings.TrimPrefix(zone, region)]
}

// autoPodENIs returns the ENI Auto Mode attached for pods: with pod subnets it lives in the
// zone's pod subnet with the pod security groups, and holds /28 prefixes next to /32
// addresses where the subnet was too fragmented for another prefix. A zone without a pod
// subnet gets none, so pods there get no address.
func (m *machine) autoPodENIs(net *network) []snapshot.ENI {
	pods := net.autoPodSubnet(m.zone)
	if pods == nil {
		return nil
	}
	eni := snapshot.ENI{
		ID: hexID("eni", m.plan.key+"/0/1"), InterfaceType: "interface", DeviceIndex: 1, SubnetID: pods.id,
		SecurityGroups: []snapshot.GroupRef{{ID: net.clusterSG, Name: clusterSGName}}, Status: "in-use",
	}
	eni.PrimaryIP = pods.pool.ip(m.plan.key + "/pods")
	eni.PrivateIPs = []string{eni.PrimaryIP}
	for i := range 3 {
		eni.PrivateIPs = append(eni.PrivateIPs, pods.pool.ip(fmt.Sprintf("%s/pods/%d", m.plan.key, i)))
	}
	for i := range 2 {
		eni.IPv4Prefixes = append(eni.IPv4Prefixes, pods.pool.prefix28(fmt.Sprintf("%s/pods/prefix/%d", m.plan.key, i)))
	}
	return []snapshot.ENI{eni}
}

// autoNodeClass returns the web NodeClass: the cluster's private subnets by ID for nodes, the
// cluster security group, and pod subnets selected by tag with the cluster security group for
// pods. subnets are the VPC's subnets, for status.
func (n *network) autoNodeClass(subnets []snapshot.Subnet) snapshot.EC2NodeClass {
	ids := []string{n.subnet("private-a").id, n.subnet("private-b").id, n.subnet("private-c").id}
	c := snapshot.EC2NodeClass{
		Name: autoClass, APIVersion: v1AutoMode, Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass,
		SecurityGroupSelectorTerms:    []snapshot.SelectorTerm{{ID: n.clusterSG}},
		PodSubnetSelectorTerms:        []snapshot.SelectorTerm{{Tags: map[string]string{autoPodSubnetTag: "1"}}},
		PodSecurityGroupSelectorTerms: []snapshot.SelectorTerm{{ID: n.clusterSG}},
		IPv4PrefixSize:                "Auto",
		StatusSecurityGroups:          []snapshot.SecurityGroupStatus{{ID: n.clusterSG, Name: clusterSGName}},
		Conditions: conditions(Taken().Add(-20*24*time.Hour),
			"InstanceProfileReady", "SecurityGroupsReady", "SubnetsReady", "ValidationSucceeded", "Ready"),
	}
	for _, id := range ids {
		c.SubnetSelectorTerms = append(c.SubnetSelectorTerms, snapshot.SelectorTerm{ID: id})
	}
	c.StatusSubnets = selectedBy(subnets, func(s snapshot.Subnet) bool { return slices.Contains(ids, s.ID) })
	return c
}

// autoNodePool returns the web NodePool: on-demand c6a in every zone, from the web NodeClass.
func autoNodePool() snapshot.NodePool {
	req := func(key, op string, values ...string) snapshot.Requirement {
		return snapshot.Requirement{Key: key, Operator: op, Values: values}
	}
	return snapshot.NodePool{
		Name: autoPool, APIVersion: v1Karpenter, NodeClassRef: autoRef(autoClass),
		Requirements: []snapshot.Requirement{
			req("kubernetes.io/arch", "In", "amd64"),
			req("topology.kubernetes.io/zone", "In", allZones()...),
			req("eks.amazonaws.com/instance-family", "In", "c6a"),
			req("eks.amazonaws.com/instance-size", "In", "large", "xlarge"),
			req("karpenter.sh/capacity-type", "In", "on-demand"),
		},
		Labels:     map[string]string{"workload-class": autoPool},
		Conditions: conditions(Taken().Add(-20*24*time.Hour), "NodeClassReady", "NodeRegistrationHealthy", "ValidationSucceeded", "Ready"),
	}
}
