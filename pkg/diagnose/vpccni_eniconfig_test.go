package diagnose

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Pod subnets of the custom-networking fixture.
const (
	podSubnetA = "subnet-0podsa"
	podSubnetB = "subnet-0podsb"
)

// perZoneENIConfigs turns custom networking on with ENI_CONFIG_LABEL_DEF set to the zone label
// and one ENIConfig per zone, each with a pod subnet in its zone.
func perZoneENIConfigs(s *snapshot.Snapshot) {
	s.AWSNode.Env[SettingCustomNetwork] = "true"
	s.AWSNode.Env[SettingENIConfigLabel] = corev1.LabelTopologyZone
	s.ENIConfigs = []snapshot.ENIConfig{
		{Name: "us-west-2a", Subnet: podSubnetA, SecurityGroups: []string{sgNodes}},
		{Name: "us-west-2b", Subnet: podSubnetB, SecurityGroups: []string{sgNodes}},
	}
	s.Subnets = append(s.Subnets,
		snapshot.Subnet{ID: podSubnetA, CIDR: "100.64.0.0/18", Zone: "us-west-2a", AvailableIPs: 16000},
		snapshot.Subnet{ID: podSubnetB, CIDR: "100.64.64.0/18", Zone: "us-west-2b", AvailableIPs: 16000},
	)
	in := &s.Instances[0]
	in.ENIs = append(in.ENIs, snapshot.ENI{ID: "eni-0second", InterfaceType: "interface", DeviceIndex: 1, SubnetID: podSubnetA})
}

func TestENIConfigMissing(t *testing.T) {
	finding := func(msg, remedy string) []Finding {
		return []Finding{{ID: "eniconfig-missing", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA, Message: msg, Remedy: remedy}}
	}
	runCheckCases(t, eniConfigMissing, []checkCase{
		{name: "custom networking off is silent"},
		{name: "an ENIConfig per zone is silent", edit: perZoneENIConfigs},
		{
			name: "no ENIConfig for the node's zone fires",
			edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) { s.ENIConfigs = s.ENIConfigs[1:] }),
			want: finding(`AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true and the node's ENIConfig is "us-west-2a" `+
				`(label topology.kubernetes.io/zone), but no ENIConfig has that name (ENIConfigs: us-west-2b): `+
				`ipamd attaches no secondary ENI and pods get no IP address`,
				"create ENIConfig us-west-2a (crd.k8s.amazonaws.com/v1alpha1) with spec.subnet a pod subnet in us-west-2a and "+
					"spec.securityGroups, or change the node's label topology.kubernetes.io/zone to an existing ENIConfig"),
		},
		{
			name: "no label falls back to an absent default",
			edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) { delete(s.AWSNode.Env, SettingENIConfigLabel) }),
			want: finding(`AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true and the node's ENIConfig is "default" `+
				`(no ENIConfig label or annotation, so "default"), but no ENIConfig has that name (ENIConfigs: us-west-2a, us-west-2b): `+
				`ipamd attaches no secondary ENI and pods get no IP address`,
				"create ENIConfig default (crd.k8s.amazonaws.com/v1alpha1) with spec.subnet a pod subnet in us-west-2a and "+
					"spec.securityGroups, or set ENI_CONFIG_LABEL_DEF=topology.kubernetes.io/zone on aws-node and create one "+
					"ENIConfig named after each zone"),
		},
		{
			name: "the annotation wins over the label",
			edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) {
				s.Nodes[0].Annotations = map[string]string{"k8s.amazonaws.com/eniConfig": "pods-gpu"}
			}),
			want: finding(`AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true and the node's ENIConfig is "pods-gpu" `+
				`(annotation k8s.amazonaws.com/eniConfig), but no ENIConfig has that name (ENIConfigs: us-west-2a, us-west-2b): `+
				`ipamd attaches no secondary ENI and pods get no IP address`,
				"create ENIConfig pods-gpu (crd.k8s.amazonaws.com/v1alpha1) with spec.subnet a pod subnet in us-west-2a and "+
					"spec.securityGroups, or change the node's annotation k8s.amazonaws.com/eniConfig to an existing ENIConfig"),
		},
		{name: "a terminated instance is silent", edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) {
			s.ENIConfigs = nil
			s.Instances[0].State = "terminated"
		})},
		{name: "ENIConfig gap is silent", edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) { s.ENIConfigs = nil }, gap(snapshot.SourceENIConfigs))},
		{name: "aws-node gap is silent", edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) { s.ENIConfigs = nil }, gap(snapshot.SourceAWSNode))},
		{name: "no aws-node DaemonSet is silent", edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) {
			s.ENIConfigs, s.AWSNode = nil, nil
		})},
	})
}

func TestENIConfigZoneMismatch(t *testing.T) {
	finding := func(msg, remedy string) []Finding {
		return []Finding{{ID: "eniconfig-zone-mismatch", Severity: Critical, Node: nodeA, Resource: "node/" + nodeA, Message: msg, Remedy: remedy}}
	}
	const perZone = "set ENI_CONFIG_LABEL_DEF=topology.kubernetes.io/zone on aws-node and name one ENIConfig after each zone"
	runCheckCases(t, eniConfigZoneMismatch, []checkCase{
		{name: "ENIConfig of the node's zone is silent", edit: perZoneENIConfigs},
		{
			name: "ENIConfig subnet in another zone fires",
			edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) { s.ENIConfigs[0].Subnet = podSubnetB }),
			want: finding(`the node is in us-west-2a but its ENIConfig "us-west-2a" (label topology.kubernetes.io/zone) puts pods `+
				`in subnet-0podsb in us-west-2b: ipamd cannot attach an ENI from another zone, so pods get no IP address`,
				"give the node an ENIConfig whose spec.subnet is in us-west-2a (change its label topology.kubernetes.io/zone), or "+perZone),
		},
		{
			name: "one ENIConfig label in a NodePool over several zones",
			edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) { delete(s.AWSNode.Env, SettingENIConfigLabel) }, func(s *snapshot.Snapshot) {
				s.NodePools[0].Labels = map[string]string{"k8s.amazonaws.com/eniConfig": "us-west-2b"}
				s.Nodes[0].Labels["k8s.amazonaws.com/eniConfig"] = "us-west-2b"
			}),
			want: finding(`the node is in us-west-2a but its ENIConfig "us-west-2b" (label k8s.amazonaws.com/eniConfig) puts pods `+
				`in subnet-0podsb in us-west-2b: ipamd cannot attach an ENI from another zone, so pods get no IP address`,
				"remove label k8s.amazonaws.com/eniConfig=us-west-2b from spec.template.metadata.labels of NodePool default, "+
					"which gives every zone one ENIConfig, and "+perZone),
		},
		{
			name: "the zone label stands in for an unknown instance",
			edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) {
				s.ENIConfigs[0].Subnet = podSubnetB
				s.Instances = nil
			}, gap(snapshot.SourceDescribeInstances)),
			want: finding(`the node is in us-west-2a but its ENIConfig "us-west-2a" (label topology.kubernetes.io/zone) puts pods `+
				`in subnet-0podsb in us-west-2b: ipamd cannot attach an ENI from another zone, so pods get no IP address`,
				"give the node an ENIConfig whose spec.subnet is in us-west-2a (change its label topology.kubernetes.io/zone), or "+perZone),
		},
		{name: "unknown subnet is silent", edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) { s.ENIConfigs[0].Subnet = "subnet-0gone" })},
		{name: "missing ENIConfig is left to eniconfig-missing", edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) { s.ENIConfigs = nil })},
		{name: "custom networking off is silent", edit: edits(perZoneENIConfigs, cniEnv(SettingCustomNetwork, "false"), func(s *snapshot.Snapshot) {
			s.ENIConfigs[0].Subnet = podSubnetB
		})},
		{name: "subnets gap is silent", edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) {
			s.ENIConfigs[0].Subnet = podSubnetB
			s.Subnets = nil
		}, gap(snapshot.SourceDescribeSubnets))},
	})
}

func TestENIConfigSubnetMismatch(t *testing.T) {
	finding := func(msg string) []Finding {
		return []Finding{{ID: "eniconfig-subnet-mismatch", Severity: Warning, Node: nodeA, Resource: "node/" + nodeA, Message: msg,
			Remedy: "replace the node so the VPC CNI creates its ENIs from the current ENIConfig (it never moves an attached ENI) " +
				"by deleting its NodeClaim default-abcde (the command)",
			Commands: []Command{{Argv: []string{"kubectl", "delete", "nodeclaim", "default-abcde"},
				Changes: "nodeclaim/default-abcde and node/" + nodeA + ": Karpenter drains the node and terminates its instance"}}}}
	}
	addENI := func(e snapshot.ENI) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { s.Instances[0].ENIs = append(s.Instances[0].ENIs, e) }
	}
	runCheckCases(t, eniConfigSubnetMismatch, []checkCase{
		{name: "secondary ENI in the ENIConfig subnet is silent", edit: perZoneENIConfigs},
		{
			name: "secondary ENIs left in the node subnet fire",
			edit: edits(perZoneENIConfigs, addENI(snapshot.ENI{ID: "eni-0third", InterfaceType: "interface", DeviceIndex: 2, SubnetID: subnetA})),
			want: finding(`ENIConfig "us-west-2a" (label topology.kubernetes.io/zone) names subnet-0podsa, but the node has ` +
				`secondary ENIs elsewhere: eni-0third (device 2) in subnet-0aaa; pods on them take addresses and security groups ` +
				`from the wrong subnet`),
		},
		{name: "trunk, efa-only and other cards' ENIs are ignored", edit: edits(perZoneENIConfigs,
			addENI(snapshot.ENI{ID: "eni-0trunk", InterfaceType: "trunk", DeviceIndex: 2, SubnetID: subnetA}),
			addENI(snapshot.ENI{ID: "eni-0efaonly", InterfaceType: "efa-only", DeviceIndex: 3, SubnetID: subnetA}),
			addENI(snapshot.ENI{ID: "eni-0card1", InterfaceType: "interface", NetworkCardIndex: 1, DeviceIndex: 1, SubnetID: subnetA}),
		)},
		{name: "the primary ENI is in the node subnet by design", edit: perZoneENIConfigs},
		{name: "custom networking off is silent", edit: edits(perZoneENIConfigs, cniEnv(SettingCustomNetwork, "false"),
			addENI(snapshot.ENI{ID: "eni-0third", InterfaceType: "interface", DeviceIndex: 2, SubnetID: subnetA}))},
		{name: "missing ENIConfig is silent", edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) { s.ENIConfigs = nil },
			addENI(snapshot.ENI{ID: "eni-0third", InterfaceType: "interface", DeviceIndex: 2, SubnetID: subnetA}))},
		{name: "instances gap is silent", edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances))},
	})
}

// TestChooseENIConfig follows the VPC CNI's GetNodeSpecificENIConfigName: the external label,
// then the annotation, then the label, each by the key's presence, with an empty
// ENI_CONFIG_ANNOTATION_DEF or ENI_CONFIG_LABEL_DEF meaning the default key.
func TestChooseENIConfig(t *testing.T) {
	const zone = "topology.kubernetes.io/zone"
	for _, tc := range []struct {
		name        string
		env         map[string]string
		labels      map[string]string
		annotations map[string]string
		want        eniConfigChoice
	}{
		{"nothing set is default", nil, nil, nil, eniConfigChoice{Name: "default"}},
		{"the default label", nil, map[string]string{defaultENIConfigKey: "pods-a"}, nil,
			eniConfigChoice{Name: "pods-a", Kind: "label", Key: defaultENIConfigKey}},
		{"the configured label", map[string]string{SettingENIConfigLabel: zone}, map[string]string{zone: "us-west-2a"}, nil,
			eniConfigChoice{Name: "us-west-2a", Kind: "label", Key: zone}},
		{"an empty label setting is the default key", map[string]string{SettingENIConfigLabel: ""},
			map[string]string{defaultENIConfigKey: "pods-a", zone: "us-west-2a"}, nil,
			eniConfigChoice{Name: "pods-a", Kind: "label", Key: defaultENIConfigKey}},
		{"an empty annotation setting is the default key", map[string]string{SettingENIConfigAnnotation: ""}, nil,
			map[string]string{defaultENIConfigKey: "pods-b"}, eniConfigChoice{Name: "pods-b", Kind: "annotation", Key: defaultENIConfigKey}},
		{"the annotation before the label", nil, map[string]string{defaultENIConfigKey: "pods-a"},
			map[string]string{defaultENIConfigKey: "pods-b"}, eniConfigChoice{Name: "pods-b", Kind: "annotation", Key: defaultENIConfigKey}},
		{"a present but empty label names the ENIConfig \"\"", nil, map[string]string{defaultENIConfigKey: ""}, nil,
			eniConfigChoice{Name: "", Kind: "label", Key: defaultENIConfigKey}},
		{"the external label first", nil, map[string]string{labelExternalENIConfig: "ext", defaultENIConfigKey: "pods-a"}, nil,
			eniConfigChoice{Name: "ext", Kind: "label", Key: labelExternalENIConfig}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: tc.labels, Annotations: tc.annotations}}
			got := chooseENIConfig(node, &snapshot.AWSNode{Env: tc.env})
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestENIConfigReferenceMissing(t *testing.T) {
	subnets := Command{Argv: []string{"aws", "ec2", "describe-subnets", "--filters", "Name=availability-zone,Values=us-west-2a",
		"Name=vpc-id,Values=vpc-0abc"}, ReadOnly: true}
	groups := Command{Argv: []string{"aws", "ec2", "describe-security-groups", "--filters", "Name=vpc-id,Values=vpc-0abc"},
		ReadOnly: true}
	finding := func(missing string, lookups ...Command) []Finding {
		return []Finding{{ID: "eniconfig-reference-missing", Severity: Critical, Resource: "eniconfig/us-west-2a",
			Message: "ENIConfig us-west-2a names " + missing + ", which EC2 does not return in us-west-2: ipamd cannot " +
				"create secondary ENIs for the nodes that use it (1 node: " + nodeA + "), so their pods get no IP address",
			Remedy: "point ENIConfig us-west-2a (spec.subnet, spec.securityGroups) at an existing pod subnet of its nodes' " +
				"zone and existing security groups of their VPC (the commands list them), then replace its nodes so " +
				"ipamd creates their ENIs again",
			Commands: lookups}}
	}
	deletedSubnet := func(s *snapshot.Snapshot) {
		s.Subnets = slices.DeleteFunc(s.Subnets, func(sn snapshot.Subnet) bool { return sn.ID == podSubnetA })
	}
	typo := func(s *snapshot.Snapshot) { s.ENIConfigs[0].SecurityGroups = []string{sgNodes, "sg-0typo"} }
	runCheckCases(t, eniConfigReferenceMissing, []checkCase{
		{name: "custom networking off is silent", edit: deletedSubnet},
		{name: "ENIConfigs whose subnet and groups exist are silent", edit: perZoneENIConfigs},
		{name: "a deleted subnet fires", edit: edits(perZoneENIConfigs, deletedSubnet), want: finding("subnet "+podSubnetA, subnets)},
		{name: "a mistyped group fires", edit: edits(perZoneENIConfigs, typo), want: finding("security group sg-0typo", groups)},
		{name: "both", edit: edits(perZoneENIConfigs, deletedSubnet, typo), want: finding("subnet "+podSubnetA+" and security group sg-0typo", subnets, groups)},
		{name: "an ENIConfig no node uses is silent", edit: edits(perZoneENIConfigs, func(s *snapshot.Snapshot) {
			s.ENIConfigs[1].Subnet = "subnet-0gone"
		})},
		{name: "subnets not read are not judged", edit: edits(perZoneENIConfigs, deletedSubnet, gap(snapshot.SourceDescribeSubnets))},
		{name: "groups not read are not judged", edit: edits(perZoneENIConfigs, typo, gap(snapshot.SourceDescribeSecurityGroups))},
	})
}
