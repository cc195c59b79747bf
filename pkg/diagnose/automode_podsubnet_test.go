package diagnose

import (
	"fmt"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// podTerms is how the fixture's pod subnet terms read in messages.
const podTerms = "tags kubernetes.io/role/pod=1"

func TestPodSubnetZoneMissing(t *testing.T) {
	onlyOtherZone := edits(withPodSubnets, func(s *snapshot.Snapshot) {
		s.Subnets = s.Subnets[:len(s.Subnets)-2]
		s.Subnets = append(s.Subnets, snapshot.Subnet{ID: autoPodSubnetC, CIDR: "100.64.128.0/18", Zone: "us-west-2c",
			AvailableIPs: 100, Tags: map[string]string{"kubernetes.io/role/pod": "1", "team": "ml"}})
	})
	class := "NodeClass default"
	runCasesOver(t, autoHealthy, podSubnetZoneMissing, []checkCase{
		{name: "no pod subnets is silent"},
		{name: "a pod subnet in the node's zone is silent", edit: withPodSubnets},
		{
			name: "pod subnets only in another zone fire",
			edit: onlyOtherZone,
			want: []Finding{{
				ID: "pod-subnet-zone-missing", Severity: Critical, Node: autoNode, Resource: "nodeclass/default",
				Message: "the node is in us-west-2a but spec.podSubnetSelectorTerms of " + class + " (" + podTerms + ") select " +
					"subnets only in other zones: " + autoPodSubnetC + " (us-west-2c); Auto Mode takes pod addresses only from a " +
					"pod subnet in the node's zone, so pods get no IP address (\"failed to assign an IP address to container\")",
				Remedy: "create or tag a pod subnet in us-west-2a so spec.podSubnetSelectorTerms of " + class + " selects it " +
					"(e.g. tag kubernetes.io/role/pod=1), with routes and network ACLs open between node and pod subnets; " +
					"or keep the NodePools of " + class + " out of us-west-2a (topology.kubernetes.io/zone requirement)",
			}},
		},
		{
			name: "a wildcard tag value matches any value",
			edit: edits(onlyOtherZone, func(s *snapshot.Snapshot) {
				autoClass(s).PodSubnetSelectorTerms = []snapshot.SelectorTerm{{Tags: map[string]string{"team": "*"}}}
			}),
			want: []Finding{{
				ID: "pod-subnet-zone-missing", Severity: Critical, Node: autoNode, Resource: "nodeclass/default",
				Message: "the node is in us-west-2a but spec.podSubnetSelectorTerms of " + class + " (tags team=*) select " +
					"subnets only in other zones: " + autoPodSubnetC + " (us-west-2c); Auto Mode takes pod addresses only from a " +
					"pod subnet in the node's zone, so pods get no IP address (\"failed to assign an IP address to container\")",
				Remedy: "create or tag a pod subnet in us-west-2a so spec.podSubnetSelectorTerms of " + class + " selects it " +
					"(e.g. tag kubernetes.io/role/pod=1), with routes and network ACLs open between node and pod subnets; " +
					"or keep the NodePools of " + class + " out of us-west-2a (topology.kubernetes.io/zone requirement)",
			}},
		},
		{
			name: "an id term naming an unread subnet is silent",
			edit: edits(onlyOtherZone, func(s *snapshot.Snapshot) {
				c := autoClass(s)
				c.PodSubnetSelectorTerms = append(c.PodSubnetSelectorTerms, snapshot.SelectorTerm{ID: "subnet-0unread"})
			}),
		},
		{
			name: "no read subnet matching is silent",
			edit: edits(onlyOtherZone, func(s *snapshot.Snapshot) {
				autoClass(s).PodSubnetSelectorTerms = []snapshot.SelectorTerm{{Tags: map[string]string{"role": "pods"}}}
			}),
		},
		{name: "subnets gap is silent", edit: edits(onlyOtherZone, gap(snapshot.SourceDescribeSubnets))},
		{name: "unknown NodeClass is silent", edit: edits(onlyOtherZone, func(s *snapshot.Snapshot) { s.NodeClasses = s.NodeClasses[:1] })},
		{
			name: "self-managed node is silent",
			edit: edits(onlyOtherZone, func(s *snapshot.Snapshot) {
				delete(s.Nodes[0].Labels, snapshot.LabelComputeType)
				s.NodeClaims, s.NodePools = nil, nil
			}),
		},
	})
}

func TestPodSubnetSecurityGroupsMissing(t *testing.T) {
	noGroups := edits(withPodSubnets, func(s *snapshot.Snapshot) { autoClass(s).PodSecurityGroupSelectorTerms = nil })
	runCasesOver(t, autoHealthy, podSubnetSecurityGroupsMissing, []checkCase{
		{name: "no pod subnets is silent"},
		{name: "pod subnets with pod security groups is silent", edit: withPodSubnets},
		{
			name: "pod subnets without pod security groups fire",
			edit: noGroups,
			want: []Finding{{
				ID: "pod-subnet-security-groups-missing", Severity: Critical, Resource: "nodeclass/default",
				Message: "NodeClass default (NodePool general) sets spec.podSubnetSelectorTerms (" + podTerms + ") but no " +
					"spec.podSecurityGroupSelectorTerms: EKS requires both, and pods in the pod subnets get no security groups of their own",
				Remedy: "add spec.podSecurityGroupSelectorTerms to NodeClass default (by id or tags) selecting the groups " +
					"pods need (typically the cluster security group), or remove spec.podSubnetSelectorTerms",
			}},
		},
		{name: "NodeClasses not read is silent", edit: edits(noGroups, func(s *snapshot.Snapshot) { s.NodeClasses = nil })},
		{
			name: "an EC2NodeClass is not judged",
			edit: func(s *snapshot.Snapshot) {
				s.NodeClasses[0].PodSubnetSelectorTerms = []snapshot.SelectorTerm{{ID: autoPodSubnetA}}
			},
		},
	})
}

func TestPodSubnetMismatch(t *testing.T) {
	msg := "NodeClass default selects pod subnets (" + podTerms + "), but instance " + autoInstance +
		" has pod addresses outside them: %s; pods there use node-subnet addresses and security groups"
	remedy := "replace the node so Auto Mode applies the pod subnets, which it does at launch by deleting its NodeClaim " +
		"general-xyz12; if new nodes show the same, check that spec.podSubnetSelectorTerms of NodeClass default select " +
		"a subnet with free addresses in us-west-2a"
	finding := func(what string) []Finding {
		return []Finding{{ID: "pod-subnet-mismatch", Severity: Warning, Node: autoNode, Resource: "nodeclass/default",
			Message: fmt.Sprintf(msg, what), Remedy: remedy, Commands: claimDeleted("general-xyz12", autoNode, "EKS Auto Mode")}}
	}
	runCasesOver(t, autoHealthy, podSubnetMismatch, []checkCase{
		{name: "no pod subnets is silent, whatever the subnets of the ENIs"},
		{name: "pod ENIs in the pod subnets are silent", edit: withPodSubnets},
		{
			name: "a secondary ENI in a node subnet fires",
			edit: edits(withPodSubnets, func(s *snapshot.Snapshot) { s.Instances[0].ENIs[1].SubnetID = subnetAutoB }),
			want: finding("eni-0second (card 0, device 1) in " + subnetAutoB),
		},
		{
			name: "pod addresses on the primary ENI fire",
			edit: edits(withPodSubnets, func(s *snapshot.Snapshot) {
				e := &s.Instances[0].ENIs[0]
				e.PrivateIPs, e.IPv4Prefixes = []string{"10.0.1.20", "10.0.1.21"}, []string{"10.0.1.48/28"}
			}),
			want: finding("primary eni-0primary3210 in node subnet " + subnetA + " holds 1 secondary IP and 1 prefix"),
		},
		{
			name: "an ENI in an unread subnet is silent",
			edit: edits(withPodSubnets, func(s *snapshot.Snapshot) { s.Instances[0].ENIs[1].SubnetID = "subnet-0unread" }),
		},
		{
			name: "efa-only ENIs carry no address and are silent",
			edit: edits(withPodSubnets, func(s *snapshot.Snapshot) {
				s.Instances[0].ENIs = append(s.Instances[0].ENIs, snapshot.ENI{ID: "eni-0efa", InterfaceType: interfaceEFAOnly,
					NetworkCardIndex: 1, SubnetID: subnetA})
			}),
		},
		{
			name: "instances gap is silent",
			edit: edits(withPodSubnets, func(s *snapshot.Snapshot) { s.Instances[0].ENIs[1].SubnetID = subnetAutoB },
				func(s *snapshot.Snapshot) { s.Instances = nil }, gap(snapshot.SourceDescribeInstances)),
		},
	})
}
