package diagnose

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// VPC CNI settings and labels that choose a node's ENIConfig under custom networking.
const (
	SettingENIConfigLabel      = "ENI_CONFIG_LABEL_DEF"
	SettingENIConfigAnnotation = "ENI_CONFIG_ANNOTATION_DEF"
	defaultENIConfigKey        = "k8s.amazonaws.com/eniConfig"
	labelExternalENIConfig     = "vpc.amazonaws.com/externalEniConfig"
	defaultENIConfigName       = "default"
)

// ENIConfigName returns the name of the ENIConfig the VPC CNI uses for node: the label
// vpc.amazonaws.com/externalEniConfig, else the annotation named by ENI_CONFIG_ANNOTATION_DEF,
// else the label named by ENI_CONFIG_LABEL_DEF (both default k8s.amazonaws.com/eniConfig),
// else "default".
func ENIConfigName(node *corev1.Node, awsNode *snapshot.AWSNode) string {
	if v := node.Labels[labelExternalENIConfig]; v != "" {
		return v
	}
	if v := node.Annotations[awsNode.Setting(SettingENIConfigAnnotation, defaultENIConfigKey)]; v != "" {
		return v
	}
	if v := node.Labels[awsNode.Setting(SettingENIConfigLabel, defaultENIConfigKey)]; v != "" {
		return v
	}
	return defaultENIConfigName
}
