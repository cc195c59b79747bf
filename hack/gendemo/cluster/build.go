package cluster

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Identity of the demo cluster.
const (
	Context    = "demo"
	ClusterARN = "arn:aws:eks:us-west-2:111122223333:cluster/demo"
	Region     = region

	region      = "us-west-2"
	clusterName = "demo"
)

// Taken returns the fixed time the demo snapshot was taken.
func Taken() time.Time { return time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC) }

// Build returns the demo snapshot.
func Build() *snapshot.Snapshot {
	s := snapshot.New(Taken())
	s.Context, s.Cluster, s.Region, s.ClusterName = Context, ClusterARN, Region, clusterName
	net := newNetwork()
	s.AWSNode, s.ENIConfigs = net.cni()

	// Nodes first: they take addresses from the subnets, whose free counts follow.
	b := &builder{net: net, s: s}
	for _, p := range plans() {
		b.add(p)
	}
	ifs := net.fill(s.Instances)
	s.Subnets = net.snapshotSubnets()
	s.Interfaces, s.AvailableVPCs = ifs.sorted(), []string{net.vpcID}
	for _, sub := range s.Subnets {
		s.AddressSubnets = append(s.AddressSubnets, sub.ID) // prefix delegation is on: every subnet is read
	}
	s.SecurityGroups = net.snapshotSecurityGroups()
	s.PlacementGroups = []snapshot.PlacementGroup{net.placementGroup}
	s.NodeClasses = net.nodeClasses(s.Subnets)
	s.NodePools = nodePools()
	for i := range s.NodePools {
		if s.NodePools[i].Name == "batch" {
			registrationFailing(&s.NodePools[i])
		}
	}
	s.RouteTables, s.NATGateways = net.routeTables(), net.natGateways()
	// The payments team shipped NetworkPolicies with its charts, and the Auto Mode web pool has
	// its policy controller on; the VPC CNI's agent on the other nodes is still off.
	s.NetworkPolicies = []snapshot.PolicyCount{{Kind: snapshot.KindNetworkPolicy, Count: 3,
		Names: []string{"monitoring/allow-prometheus", "payments/allow-from-gateway", "payments/default-deny-ingress"}}}
	s.VPCCNIConfig = map[string]string{snapshot.VPCCNIKeyPolicyEnable: "true"}
	s.VPCEndpoints, s.NetworkACLs = net.vpcEndpoints(), net.networkACLs()
	for _, t := range instanceTypes() {
		s.InstanceTypes = append(s.InstanceTypes, t.snapshotType())
	}

	slices.SortFunc(s.Nodes, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(s.NodeClaims, func(a, b snapshot.NodeClaim) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Instances, func(a, b snapshot.Instance) int { return strings.Compare(a.ID, b.ID) })
	return s
}

// Encode returns the demo snapshot as snapshot.Write writes it.
func Encode() ([]byte, error) {
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, Build()); err != nil {
		return nil, fmt.Errorf("encoding the demo snapshot: %w", err)
	}
	return buf.Bytes(), nil
}
