package diagnose

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestIndexResolvesClassByKind(t *testing.T) {
	type resolved struct {
		Auto                 bool
		Kind, Name, Ref      string
		ClassKind, ClassAPIv string
	}
	cases := []struct {
		name string
		base func() *snapshot.Snapshot
		edit func(*snapshot.Snapshot)
		want resolved
	}{
		{
			name: "Auto Mode node takes its NodeClass from the label, not the EC2NodeClass of the same name",
			base: autoHealthy,
			want: resolved{true, snapshot.KindNodeClass, "default", "nodeclass/default", snapshot.KindNodeClass, "eks.amazonaws.com/v1"},
		},
		{
			name: "Auto Mode node without the nodeclass label falls back to its NodeClaim",
			base: autoHealthy,
			edit: func(s *snapshot.Snapshot) {
				delete(s.Nodes[0].Labels, snapshot.LabelAutoNodeClass)
				s.NodeClasses[1].Name = "gpu"
				s.NodeClaims[0].NodeClassRef = autoRef("gpu")
			},
			want: resolved{true, snapshot.KindNodeClass, "gpu", "nodeclass/gpu", snapshot.KindNodeClass, "eks.amazonaws.com/v1"},
		},
		{
			name: "Auto Mode node without label or NodeClaim falls back to its NodePool",
			base: autoHealthy,
			edit: func(s *snapshot.Snapshot) {
				delete(s.Nodes[0].Labels, snapshot.LabelAutoNodeClass)
				s.NodeClaims = nil
			},
			want: resolved{true, snapshot.KindNodeClass, "default", "nodeclass/default", snapshot.KindNodeClass, "eks.amazonaws.com/v1"},
		},
		{
			name: "a NodeClaim pointing at a NodeClass makes an unlabelled node Auto Mode",
			base: autoHealthy,
			edit: func(s *snapshot.Snapshot) {
				delete(s.Nodes[0].Labels, snapshot.LabelComputeType)
				delete(s.Nodes[0].Labels, snapshot.LabelAutoNodeClass)
			},
			want: resolved{true, snapshot.KindNodeClass, "default", "nodeclass/default", snapshot.KindNodeClass, "eks.amazonaws.com/v1"},
		},
		{
			name: "self-managed node takes the EC2NodeClass of the same name",
			base: autoHealthy,
			edit: func(s *snapshot.Snapshot) {
				s.Nodes = []corev1.Node{karpenterNode(nodeA, instanceA, "10.0.1.10")}
				s.NodeClaims = nil
			},
			want: resolved{false, snapshot.KindEC2NodeClass, "default", "ec2nodeclass/default", snapshot.KindEC2NodeClass, "karpenter.k8s.aws/v1"},
		},
		{
			name: "Auto Mode node whose NodeClass was not read keeps its name",
			base: autoHealthy,
			edit: func(s *snapshot.Snapshot) { s.NodeClasses = s.NodeClasses[:1] },
			want: resolved{true, snapshot.KindNodeClass, "default", "nodeclass/default", "", ""},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.base()
			if tc.edit != nil {
				tc.edit(s)
			}
			n := NewIndex(s).Nodes[0]
			got := resolved{Auto: n.AutoMode(), Kind: n.ClassKind, Name: n.ClassName, Ref: n.ClassRef()}
			if n.Class != nil {
				got.ClassKind, got.ClassAPIv = n.Class.KindName(), n.Class.APIVersion
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("resolved class mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// setEnv returns an edit that sets an aws-node env value.
func setEnv(k, v string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		if s.AWSNode == nil {
			s.AWSNode = &snapshot.AWSNode{Env: map[string]string{}}
		}
		s.AWSNode.Env[k] = v
	}
}

// setPods returns an edit that sets the first node's pods capacity.
func setPods(v string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) { s.Nodes[0].Status.Capacity[corev1.ResourcePods] = resource.MustParse(v) }
}

// otherZoneENIConfig adds ENIConfig "default" on a subnet of us-west-2c.
func otherZoneENIConfig(s *snapshot.Snapshot) {
	s.ENIConfigs = []snapshot.ENIConfig{{Name: "default", Subnet: "subnet-0ccc"}}
	s.Subnets = append(s.Subnets, snapshot.Subnet{ID: "subnet-0ccc", CIDR: "10.0.3.0/24", Zone: "us-west-2c", AvailableIPs: 200})
}

// TestAutoModeSkipsVPCCNIChecks shows that each edit trips its check on a self-managed node
// and leaves an Auto Mode node silent.
func TestAutoModeSkipsVPCCNIChecks(t *testing.T) {
	cases := []struct {
		check Check
		edit  func(*snapshot.Snapshot)
	}{
		{maxPodsExceedsIPCapacity, setPods("200")},
		{maxPodsBelowIPCapacity, edits(setEnv(SettingPrefixDelegation, "true"), setPods("29"))},
		{prefixDelegationInactive, edits(setEnv(SettingPrefixDelegation, "true"), setEnv(SettingCustomNetwork, "false"),
			func(s *snapshot.Snapshot) {
				s.Nodes[0].CreationTimestamp = metav1.NewTime(s.Taken.Add(-time.Hour))
				for i := range s.Instances[0].ENIs {
					s.Instances[0].ENIs[i].IPv4Prefixes = nil
				}
			})},
		{eniConfigMissing, setEnv(SettingCustomNetwork, "true")},
		{eniConfigZoneMismatch, edits(setEnv(SettingCustomNetwork, "true"), otherZoneENIConfig)},
		{eniConfigSubnetMismatch, edits(setEnv(SettingCustomNetwork, "true"), func(s *snapshot.Snapshot) {
			s.ENIConfigs = []snapshot.ENIConfig{{Name: "default", Subnet: "subnet-0ccc"}}
			in := &s.Instances[0]
			in.ENIs = append(in.ENIs[:1], snapshot.ENI{ID: "eni-0extra", InterfaceType: "interface", DeviceIndex: 1, SubnetID: subnetA})
		})},
		{trunkENIMissing, func(s *snapshot.Snapshot) { s.Nodes[0].Labels[labelHasTrunkAttached] = "true" }},
		{vpcCNIVersionTooOld, edits(setEnv(SettingPodENI, "true"), func(s *snapshot.Snapshot) { s.AWSNode.Image = "amazon-k8s-cni:v1.6.0" })},
		{placementGroupPartitionMismatch, func(s *snapshot.Snapshot) {
			s.PlacementGroups = []snapshot.PlacementGroup{{ID: "pg-0part", Name: "kafka", Strategy: strategyPartition}}
			s.Instances[0].Placement = snapshot.Placement{GroupID: "pg-0part", GroupName: "kafka", PartitionNumber: 2}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.check.ID, func(t *testing.T) {
			self := healthy()
			tc.edit(self)
			if got := tc.check.Findings(NewIndex(self)); len(got) == 0 {
				t.Fatalf("the edit does not trip %s on a self-managed node: got no finding", tc.check.ID)
			}
			auto := autoHealthy()
			tc.edit(auto)
			if got := tc.check.Findings(NewIndex(auto)); len(got) != 0 {
				t.Errorf("%s on an Auto Mode node: got %v, want no finding", tc.check.ID, got)
			}
		})
	}
}

// TestAutoModeHealthyIsSilent runs every check over a healthy Auto Mode node whose ENIs mix
// /28 prefixes and /32 addresses and whose second ENI is in another subnet of the zone, while
// aws-node carries settings that would trip VPC CNI checks on a self-managed node.
func TestAutoModeHealthyIsSilent(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*snapshot.Snapshot)
	}{
		{name: "node subnets only"},
		{name: "with pod subnets", edit: withPodSubnets},
		{name: "without aws-node", edit: func(s *snapshot.Snapshot) { s.AWSNode = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := autoHealthy()
			if tc.edit != nil {
				tc.edit(s)
			}
			x := NewIndex(s)
			var got []Finding
			for _, c := range Checks() {
				got = append(got, c.Findings(x)...)
			}
			if len(got) != 0 {
				t.Errorf("got %d findings on a healthy Auto Mode node, want none:\n%v", len(got), got)
			}
		})
	}
}

func TestAutoModeNodeRemedies(t *testing.T) {
	t.Run("pod-ip-allocation-failures", func(t *testing.T) {
		runCasesOver(t, autoHealthy, podIPAllocationFailures, []checkCase{
			{name: "no sandbox failure is silent"},
			{
				name: "the Auto Mode CNI is named and the remedy points at pod subnets",
				edit: cniSandboxSince(autoNode, "web-1", noIPMessage, 4, 8*time.Minute, 5*time.Minute),
				want: []Finding{{
					ID: "pod-ip-allocation-failures", Severity: Critical, Node: autoNode, Resource: "node/" + autoNode,
					Message: "4 FailedCreatePodSandBox events in the hour before 2026-08-21T12:00:00Z for 1 pod (shop/web-1) " +
						"because the Auto Mode CNI had no IP address; still failing: shop/web-1 failed 4 times from 11:52:00 " +
						"to 11:55:00, the last 5m before the snapshot; newest at 2026-08-21T11:55:00Z: " + noIPMessage,
					Remedy: "check the free addresses of the node's subnets and, when NodeClass default sets " +
						"spec.podSubnetSelectorTerms, that they select a subnet in the node's zone with free addresses " +
						"(the command shows the node's capacity and subnets); with static spec.advancedNetworking.networkInterfaces " +
						"give the primary interface secondaryIPv4PrefixCount, as Auto Mode adds no addresses after launch",
					Commands: []Command{{Argv: []string{"kubectl", "karpnet", "describe", "node", autoNode}, ReadOnly: true}},
				}},
			},
			{name: "events gap is silent", edit: edits(cniSandbox(autoNode, "web-1", noIPMessage, 2, 5*time.Minute), gap(snapshot.SourceEvents))},
		})
	})
	t.Run("node-network-not-ready", func(t *testing.T) {
		down := func(s *snapshot.Snapshot) {
			s.Nodes[0].Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionTrue,
				Reason: "NoRouteCreated", Message: "no route"}}
		}
		runCasesOver(t, autoHealthy, nodeNetworkNotReady, []checkCase{
			{name: "ready node is silent"},
			{
				name: "the remedy does not point at aws-node",
				edit: down,
				want: []Finding{{
					ID: "node-network-not-ready", Severity: Critical, Node: autoNode, Resource: "node/" + autoNode,
					Message: `node conditions show its network is down: NetworkUnavailable=True reason NoRouteCreated: "no route"`,
					Remedy: "EKS Auto Mode runs the node's CNI itself: check that the node's security groups let it reach " +
						"the cluster endpoint (VPC Reachability Analyzer from the instance to the kubernetes endpoint IPs on TCP " +
						"443), that its subnet routes to the endpoint and to AWS APIs, and collect the node's logs with a " +
						"NodeDiagnostic resource (nodediagnostics.eks.amazonaws.com)",
				}},
			},
		})
	})
}
