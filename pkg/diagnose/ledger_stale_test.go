package diagnose

import (
	"reflect"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestStaleAgainst: an image newer than the pin names the checks verified against the pin; the
// same version with an EKS build suffix, an older one, a digest-only image, a tag that is no
// version and another repository's image say nothing.
func TestStaleAgainst(t *testing.T) {
	pins := []Pin{
		{UpstreamKarpenter, "aws/karpenter-provider-aws", "v1.14.1", ""},
		{UpstreamVPCCNI, "aws/amazon-vpc-cni-k8s", "v1.23.0", "amazon-k8s-cni"},
		{UpstreamPolicyAgent, "aws/aws-network-policy-agent", "v1.4.1", "aws-network-policy-agent"},
		{UpstreamCilium, "cilium/cilium", "v1.20.2", "cilium"},
	}
	checks := []Check{
		{Spec: &Spec{ID: "b-cni", Verified: []Verified{{UpstreamVPCCNI, "f", "x"}, {UpstreamVPCCNI, "g", "y"}}}},
		{Spec: &Spec{ID: "a-cni-and-cilium", Verified: []Verified{{UpstreamCilium, "f", "x"}, {UpstreamVPCCNI, "f", "x"}}}},
		{Spec: &Spec{ID: "karpenter-only", Verified: []Verified{{UpstreamKarpenter, "f", "x"}}}},
		{Spec: &Spec{ID: "unverified"}},
	}
	const ecr = "602401143452.dkr.ecr.us-west-2.amazonaws.com/"
	for _, c := range []struct {
		name   string
		images []string
		want   []Stale
	}{
		{"newer VPC CNI", []string{ecr + "amazon-k8s-cni:v1.24.1-eksbuild.1"},
			[]Stale{{UpstreamVPCCNI, "v1.23.0", "v1.24.1-eksbuild.1", []string{"b-cni", "a-cni-and-cilium"}}}},
		{"same version, EKS build", []string{ecr + "amazon-k8s-cni:v1.23.0-eksbuild.3"}, nil},
		{"older", []string{ecr + "amazon-k8s-cni:v1.19.0-eksbuild.1", "quay.io/cilium/cilium:v1.16.5@sha256:abc"}, nil},
		{"digest only", []string{ecr + "amazon-k8s-cni@sha256:0123", "quay.io/cilium/cilium@sha256:abc"}, nil},
		{"no version tag", []string{ecr + "amazon-k8s-cni:latest", "quay.io/cilium/cilium:v1.21"}, nil},
		{"another repository", []string{ecr + "amazon-k8s-cni-init:v9.0.0", "quay.io/cilium/operator-aws:v9.0.0"}, nil},
		{"no image", []string{"", ""}, nil},
		{"newest of several, cilium by tag and digest", []string{
			"quay.io/cilium/cilium:v1.21.0@sha256:abc", "quay.io/cilium/cilium:v1.20.10", "quay.io/cilium/cilium:v1.22.0-rc.1",
			ecr + "amazon-k8s-cni:v2.0.0", ecr + "aws-network-policy-agent:v1.4.2",
		}, []Stale{
			{UpstreamVPCCNI, "v1.23.0", "v2.0.0", []string{"b-cni", "a-cni-and-cilium"}},
			{UpstreamCilium, "v1.20.2", "v1.22.0-rc.1", []string{"a-cni-and-cilium"}},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := staleAgainst(c.images, checks, pins); !reflect.DeepEqual(got, c.want) {
				t.Errorf("staleAgainst(%q)\n got %+v\nwant %+v", c.images, got, c.want)
			}
		})
	}
}

// TestStaleVerificationsReadsTheSnapshot: aws-node's image, its policy agent container and
// Cilium's agent, in every cluster of a multi-cluster snapshot; the line names the versions.
func TestStaleVerificationsReadsTheSnapshot(t *testing.T) {
	checks := []Check{{Spec: &Spec{ID: "cni", Verified: []Verified{{UpstreamVPCCNI, "f", "x"}}}},
		{Spec: &Spec{ID: "agent", Verified: []Verified{{UpstreamPolicyAgent, "f", "x"}}}}}
	s := &snapshot.Snapshot{Clusters: []snapshot.Snapshot{
		{AWSNode: &snapshot.AWSNode{Image: "r/amazon-k8s-cni:v1.20.0"}},
		{AWSNode: &snapshot.AWSNode{Image: "r/amazon-k8s-cni:v1.99.0",
			NodeAgent: &snapshot.NodeAgent{Image: "r/aws-network-policy-agent:v1.5.0-eksbuild.1"}}},
	}}
	got := StaleVerifications(s, checks)
	var lines []string
	for _, st := range got {
		lines = append(lines, st.String())
	}
	want := []string{
		"verified against amazon-vpc-cni-k8s v1.23.0, the cluster runs v1.99.0: cni",
		"verified against aws-network-policy-agent v1.4.1, the cluster runs v1.5.0-eksbuild.1: agent",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("got %q\nwant %q", lines, want)
	}
	if got := StaleVerifications(nil, checks); got != nil {
		t.Errorf("nil snapshot: %+v", got)
	}
}

func TestSemver(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
		v  [3]int
	}{{"v1.19.0-eksbuild.1", true, [3]int{1, 19, 0}}, {"1.20.2", true, [3]int{1, 20, 2}}, {"v1.2.3+meta", true, [3]int{1, 2, 3}},
		{"latest", false, [3]int{}}, {"v1.2", false, [3]int{}}, {"v1.-2.3", false, [3]int{}}} {
		v, ok := snapshot.ParseVersion(c.in)
		if ok != c.ok || v != c.v {
			t.Errorf("snapshot.ParseVersion(%q) = %v, %v", c.in, v, ok)
		}
	}
	if !semverLess([3]int{1, 9, 9}, [3]int{1, 10, 0}) || semverLess([3]int{1, 10, 0}, [3]int{1, 10, 0}) || semverLess([3]int{2, 0, 0}, [3]int{1, 99, 99}) {
		t.Error("semverLess")
	}
}
