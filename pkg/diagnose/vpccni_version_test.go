package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestParseCNIVersion(t *testing.T) {
	for _, tc := range []struct {
		image string
		want  cniVersion
		ok    bool
	}{
		{"602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.8.0-eksbuild.1", cniVersion{1, 8, 0}, true},
		{"amazon-k8s-cni:v1.23.1", cniVersion{1, 23, 1}, true},
		{"registry.local:5000/amazon-k8s-cni:1.19.2+build", cniVersion{1, 19, 2}, true},
		{"registry.local:5000/amazon-k8s-cni:v1.19.2@sha256:0123", cniVersion{1, 19, 2}, true},
		{"amazon-k8s-cni@sha256:0123", cniVersion{}, false},
		{"registry.local:5000/amazon-k8s-cni", cniVersion{}, false},
		{"amazon-k8s-cni:latest", cniVersion{}, false},
		{"amazon-k8s-cni:v1.19", cniVersion{}, false},
		{"", cniVersion{}, false},
	} {
		got, ok := parseCNIVersion(tc.image)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseCNIVersion(%q) = %v, %t; want %v, %t", tc.image, got, ok, tc.want, tc.ok)
		}
	}
}

func TestVPCCNIVersionTooOld(t *testing.T) {
	image := func(img string) func(*snapshot.Snapshot) { return func(s *snapshot.Snapshot) { s.AWSNode.Image = img } }
	const old = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.8.0-eksbuild.1"
	runCheckCases(t, vpcCNIVersionTooOld, []checkCase{
		{name: "a current VPC CNI is silent", edit: edits(cniEnv(SettingPrefixDelegation, "true"), cniEnv(SettingMultiNIC, "true"))},
		{name: "an old VPC CNI with no new feature is silent", edit: image(old)},
		{
			name: "every feature newer than the version is named",
			edit: edits(image(old), cniEnv(SettingPrefixDelegation, "true"), cniEnv(SettingPodENI, "true"),
				cniEnv(SettingSubnetDiscovery, "true"), cniEnv(SettingMultiNIC, "false")),
			want: []Finding{{
				ID: "vpc-cni-version-too-old", Severity: Warning, Resource: "daemonset/kube-system/aws-node",
				Message: "aws-node runs VPC CNI 1.8.0 (image " + old + "), which ignores ENABLE_PREFIX_DELEGATION=true " +
					"(needs 1.9.0), ENABLE_SUBNET_DISCOVERY=true (needs 1.18.0)",
				Remedy: "upgrade the VPC CNI to 1.18.0 or later (the vpc-cni add-on to one of the versions the read-only command " +
					"lists, with the AWS CLI's eks update-addon, or the aws-vpc-cni Helm chart), or remove those settings from " +
					"the aws-node DaemonSet's env",
				Commands: []Command{{Argv: []string{"aws", "eks", "describe-addon-versions", "--addon-name", "vpc-cni"}, ReadOnly: true}},
			}},
		},
		{
			name: "multi-NIC on 1.19",
			edit: edits(image("amazon-k8s-cni:v1.19.6"), cniEnv(SettingMultiNIC, "true")),
			want: []Finding{{
				ID: "vpc-cni-version-too-old", Severity: Warning, Resource: "daemonset/kube-system/aws-node",
				Message: "aws-node runs VPC CNI 1.19.6 (image amazon-k8s-cni:v1.19.6), which ignores ENABLE_MULTI_NIC=true (needs 1.20.0)",
				Remedy: "upgrade the VPC CNI to 1.20.0 or later (the vpc-cni add-on to one of the versions the read-only command " +
					"lists, with the AWS CLI's eks update-addon, or the aws-vpc-cni Helm chart), or remove those settings from " +
					"the aws-node DaemonSet's env",
				Commands: []Command{{Argv: []string{"aws", "eks", "describe-addon-versions", "--addon-name", "vpc-cni"}, ReadOnly: true}},
			}},
		},
		{name: "an unparsable version is silent", edit: edits(image("amazon-k8s-cni:latest"), cniEnv(SettingPrefixDelegation, "true"))},
		{name: "no aws-node DaemonSet is silent", edit: func(s *snapshot.Snapshot) { s.AWSNode = nil }},
		{name: "aws-node gap is silent", edit: edits(image(old), cniEnv(SettingPrefixDelegation, "true"), gap(snapshot.SourceAWSNode))},
	})
}
