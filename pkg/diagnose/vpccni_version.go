package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// VPC CNI settings that turn on features newer than some VPC CNI releases.
const (
	SettingPodENI          = snapshot.EnvPodENI
	SettingSubnetDiscovery = snapshot.EnvSubnetDiscovery
	SettingMultiNIC        = snapshot.EnvMultiNIC
)

// cniVersion is a VPC CNI release as major, minor, patch.
type cniVersion [3]int

// String returns the version as "1.9.0".
func (v cniVersion) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// less reports whether v is older than w.
func (v cniVersion) less(w cniVersion) bool { return slices.Compare(v[:], w[:]) < 0 }

// cniFeature is a setting and the first VPC CNI release that knows it.
type cniFeature struct {
	setting string
	since   cniVersion
}

// cniFeatures are the settings whose feature a too-old VPC CNI ignores, sorted by setting,
// with the release that brought each (the VPC CNI README's configuration variables).
func cniFeatures() []cniFeature {
	return []cniFeature{
		{SettingMultiNIC, cniVersion{1, 20, 0}},
		{SettingPodENI, cniVersion{1, 7, 0}},
		{SettingPrefixDelegation, cniVersion{1, 9, 0}},
		{SettingSubnetDiscovery, cniVersion{1, 18, 0}},
	}
}

// cniFeatureVersion returns the release that brought setting, or 0.0.0.
func cniFeatureVersion(setting string) cniVersion {
	for _, f := range cniFeatures() {
		if f.setting == setting {
			return f.since
		}
	}
	return cniVersion{}
}

// parseCNIVersion reads the version from an aws-node image tag (snapshot.CNIVersion).
func parseCNIVersion(image string) (cniVersion, bool) {
	v, ok := snapshot.CNIVersion(image)
	return cniVersion(v), ok
}

var specVPCCNIVersionTooOld = &Spec{
	ID:       "vpc-cni-version-too-old",
	Severity: Warning,
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceAWSNode},
	Examines: []string{SubjectDaemonSet},
	Title:    "aws-node turns on a feature its VPC CNI version does not have",
	FiresWhen: "the aws-node image version is older than a feature its env turns on needs: " +
		"ENABLE_PREFIX_DELEGATION 1.9.0, ENABLE_POD_ENI 1.7.0, ENABLE_SUBNET_DISCOVERY 1.18.0, " +
		"ENABLE_MULTI_NIC 1.20.0",
	NotOn: "clusters where aws-node runs on no node (every node Auto Mode or Windows, or Cilium's " +
		"nodeSelector on aws-node)",
	Why: "the old CNI silently ignores the setting, so the feature looks configured but does nothing",
	Remedy: "upgrade the vpc-cni add-on (`aws eks update-addon --addon-name vpc-cni`) or Helm chart, or " +
		"remove the settings from aws-node",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s README.md (CNI configuration variables, \"since\" versions)",
		"aws/amazon-vpc-cni-k8s charts/aws-vpc-cni/values.yaml",
	},
	Verified: []Verified{
		{UpstreamVPCCNI, "README.md (ENABLE_POD_ENI)",
			"ENABLE_POD_ENI is marked v1.7.0+."},
		{UpstreamVPCCNI, "README.md (ENABLE_PREFIX_DELEGATION)",
			"ENABLE_PREFIX_DELEGATION is marked v1.9.0+."},
		{UpstreamVPCCNI, "README.md (ENABLE_SUBNET_DISCOVERY)",
			"ENABLE_SUBNET_DISCOVERY is marked v1.18.0+."},
		{UpstreamVPCCNI, "README.md (ENABLE_MULTI_NIC)",
			"ENABLE_MULTI_NIC is marked v1.20.0+."},
	},
}

// vpcCNIVersionTooOld finds an aws-node whose env turns on a feature its VPC CNI release does
// not have yet. The old release ignores the setting silently: prefix delegation, security
// groups for pods, subnet discovery or multi-NIC look configured but nothing happens, and
// kubelet maxPods set for prefixes then overruns the node's real pod IPs. When aws-node runs
// on no node (every node is an EKS Auto Mode or Windows node, or Cilium's install keeps it off
// them all), its settings matter nowhere and the check stays silent.
var vpcCNIVersionTooOld = Check{
	Spec: specVPCCNIVersionTooOld,
	Run: func(x *Index) []Finding {
		if !x.vpcCNI() || x.awsNodeRunsNowhere() {
			return nil
		}
		image := x.Snapshot.AWSNode.Image
		v, ok := parseCNIVersion(image)
		if !ok {
			return nil
		}
		var needs []string
		var newest cniVersion
		for _, f := range cniFeatures() {
			if x.cniSettingOn(f.setting) && v.less(f.since) {
				needs = append(needs, fmt.Sprintf("%s=true (needs %s)", f.setting, f.since))
				if newest.less(f.since) {
					newest = f.since
				}
			}
		}
		if len(needs) == 0 {
			return nil
		}
		return []Finding{{
			Resource: awsNodeResource,
			Message: fmt.Sprintf("aws-node runs VPC CNI %s (image %s), which ignores %s",
				v, image, strings.Join(needs, ", ")),
			Remedy: fmt.Sprintf("upgrade the VPC CNI to %s or later (the vpc-cni add-on to one of the versions the read-only "+
				"command lists, with the AWS CLI's eks update-addon, or the aws-vpc-cni Helm chart), or remove those settings "+
				"from the aws-node DaemonSet's env", newest),
			Commands: []Command{{Argv: []string{"aws", "eks", "describe-addon-versions", "--addon-name", "vpc-cni"}, ReadOnly: true}},
		}}
	},
}
