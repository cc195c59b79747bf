package diagnose

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Names used by the healthy fixture.
const (
	nodeA     = "ip-10-0-1-10.us-west-2.compute.internal"
	instanceA = "i-0123456789abcdef0"
	subnetA   = "subnet-0aaa"
	sgNodes   = "sg-0nodes"
)

// healthy returns a snapshot of one healthy Karpenter node: an m5.large in us-west-2a with 29
// pods, its NodeClaim, NodePool "default" and Ready EC2NodeClass "default".
func healthy() *snapshot.Snapshot {
	s := snapshot.New(time.Date(2026, 8, 21, 12, 0, 0, 0, time.UTC))
	s.Region = "us-west-2"
	s.Context = "test"
	s.Nodes = []corev1.Node{karpenterNode(nodeA, instanceA, "10.0.1.10")}
	s.NodeClaims = []snapshot.NodeClaim{{
		Name:         "default-abcde",
		Labels:       map[string]string{snapshot.LabelNodePool: "default"},
		NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "default"},
		ProviderID:   "aws:///us-west-2a/" + instanceA,
		NodeName:     nodeA,
	}}
	s.NodePools = []snapshot.NodePool{{
		Name:         "default",
		APIVersion:   "karpenter.sh/v1",
		NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "default"},
	}}
	s.NodeClasses = []snapshot.EC2NodeClass{{
		Name:                 "default",
		APIVersion:           "karpenter.k8s.aws/v1",
		StatusSubnets:        []snapshot.SubnetStatus{{ID: subnetA, Zone: "us-west-2a", ZoneID: "usw2-az1"}},
		StatusSecurityGroups: []snapshot.SecurityGroupStatus{{ID: sgNodes, Name: "nodes"}},
		Conditions:           []snapshot.Condition{{Type: "Ready", Status: "True"}, {Type: "SubnetsReady", Status: "True"}},
	}}
	s.AWSNode = &snapshot.AWSNode{Image: "amazon-k8s-cni:v1.23.1", Env: map[string]string{},
		Scheduling: &snapshot.Scheduling{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}}
	s.Instances = []snapshot.Instance{instance(instanceA, "10.0.1.10")}
	s.Subnets = []snapshot.Subnet{{ID: subnetA, CIDR: "10.0.1.0/24", Zone: "us-west-2a", ZoneID: "usw2-az1", AvailableIPs: 200}}
	s.SecurityGroups = []snapshot.SecurityGroup{{ID: sgNodes, Name: "eks-nodes"}}
	s.InstanceTypes = []snapshot.InstanceType{m5Large()}
	return s
}

// karpenterNode returns a Karpenter m5.large Node in us-west-2a with 29 pods.
func karpenterNode(name, instanceID, ip string) corev1.Node {
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			corev1.LabelTopologyZone:       "us-west-2a",
			corev1.LabelInstanceTypeStable: "m5.large",
			snapshot.LabelNodePool:         "default",
			snapshot.LabelEC2NodeClass:     "default",
		}},
		Spec: corev1.NodeSpec{ProviderID: "aws:///us-west-2a/" + instanceID},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: ip},
				{Type: corev1.NodeHostName, Address: name},
			},
			Capacity:    corev1.ResourceList{corev1.ResourcePods: resource.MustParse("29")},
			Allocatable: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("29")},
		},
	}
}

// instance returns a running m5.large in subnetA with one ENI whose primary IP is ip.
func instance(id, ip string) snapshot.Instance {
	return snapshot.Instance{
		ID: id, Type: "m5.large", State: "running", Zone: "us-west-2a", ZoneID: "usw2-az1",
		VpcID: "vpc-0abc", SubnetID: subnetA, PrivateIP: ip,
		SecurityGroups: []snapshot.GroupRef{{ID: sgNodes, Name: "eks-nodes"}},
		ENIs: []snapshot.ENI{{
			ID: "eni-0primary" + id[len(id)-4:], InterfaceType: "interface", SubnetID: subnetA,
			PrimaryIP: ip, PrivateIPs: []string{ip, "10.0.1.200"},
			SecurityGroups: []snapshot.GroupRef{{ID: sgNodes}},
		}},
	}
}

// m5Large returns the m5.large limits: 3 ENIs on one card, 10 IPv4 per ENI, Nitro.
func m5Large() snapshot.InstanceType {
	return snapshot.InstanceType{
		Name: "m5.large", Hypervisor: "nitro", VCPUs: 2, MaxENIs: 3,
		NetworkCards: []snapshot.NetworkCard{{Index: 0, MaxENIs: 3}}, IPv4PerENI: 10, IPv6PerENI: 10,
	}
}

// checkCase is one table row of a single-check test: edit the healthy snapshot, expect findings.
type checkCase struct {
	name string
	edit func(*snapshot.Snapshot)
	want []Finding
}

// runCheckCases runs every case of a single-check table over the healthy fixture.
func runCheckCases(t *testing.T, c Check, cases []checkCase) {
	t.Helper()
	runCasesOver(t, healthy, c, cases)
}

// runCasesOver runs every case of a single-check table over a fresh snapshot from base.
func runCasesOver(t *testing.T, base func() *snapshot.Snapshot, c Check, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			if tc.edit != nil {
				tc.edit(s)
			}
			got := c.Findings(NewIndex(s))
			coverage.record(c.ID, len(got))
			for _, f := range got {
				if !slices.Contains(c.Severities(), f.Severity) {
					t.Errorf("%s raised %s, which its catalogue entry does not list (%v)", c.ID, f.Severity, c.Severities())
				}
				if !slices.Contains(c.Examines, f.SubjectKind()) {
					t.Errorf("%s raised a finding about %s (kind %s), which its catalogue entry does not examine (%v)",
						c.ID, f.Subject(), f.SubjectKind(), c.Examines)
				}
			}
			slices.SortFunc(got, compareFindings)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s findings mismatch (-want +got):\n%s", c.ID, diff)
			}
		})
	}
}

// gap returns an edit that records a Gap for source.
func gap(source string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.Gaps = append(s.Gaps, snapshot.Gap{Source: source, Reason: "UnauthorizedOperation", Remedy: "allow " + source})
	}
}

// edits combines edits in order.
func edits(fs ...func(*snapshot.Snapshot)) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		for _, f := range fs {
			f(s)
		}
	}
}

// edited applies edit to s and returns it.
func edited(s *snapshot.Snapshot, edit func(*snapshot.Snapshot)) *snapshot.Snapshot {
	edit(s)
	return s
}
