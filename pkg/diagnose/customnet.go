package diagnose

import (
	"cmp"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// VPC CNI settings and labels that choose a node's ENIConfig under custom networking.
const (
	SettingENIConfigLabel      = snapshot.EnvENIConfigLabel
	SettingENIConfigAnnotation = snapshot.EnvENIConfigAnnot
	defaultENIConfigKey        = "k8s.amazonaws.com/eniConfig"
	labelExternalENIConfig     = "vpc.amazonaws.com/externalEniConfig"
	defaultENIConfigName       = "default"
)

// eniConfigChoice is the ENIConfig the VPC CNI picks for a node and what picked it.
type eniConfigChoice struct {
	// Name is the ENIConfig name.
	Name string
	// Kind is "label", "annotation" or "" when no label or annotation named one.
	Kind string
	// Key is the label or annotation key that named it.
	Key string
}

// from describes where the choice came from, e.g. `label topology.kubernetes.io/zone`.
func (c eniConfigChoice) from() string {
	if c.Kind == "" {
		return fmt.Sprintf("no ENIConfig label or annotation, so %q", c.Name)
	}
	return c.Kind + " " + c.Key
}

// chooseENIConfig returns the ENIConfig the VPC CNI uses for node, as its
// GetNodeSpecificENIConfigName does: the label vpc.amazonaws.com/externalEniConfig when the
// node has it, else the annotation named by ENI_CONFIG_ANNOTATION_DEF when the node has it,
// else the label named by ENI_CONFIG_LABEL_DEF when the node has it, else "default". Both
// settings default to k8s.amazonaws.com/eniConfig, also when they are set but empty. The CNI
// goes by the key's presence: a key present with an empty value names the ENIConfig "".
func chooseENIConfig(node *corev1.Node, awsNode *snapshot.AWSNode) eniConfigChoice {
	if v, ok := node.Labels[labelExternalENIConfig]; ok {
		return eniConfigChoice{Name: v, Kind: "label", Key: labelExternalENIConfig}
	}
	annotation := cmp.Or(awsNode.Setting(SettingENIConfigAnnotation, ""), defaultENIConfigKey)
	if v, ok := node.Annotations[annotation]; ok {
		return eniConfigChoice{Name: v, Kind: "annotation", Key: annotation}
	}
	label := cmp.Or(awsNode.Setting(SettingENIConfigLabel, ""), defaultENIConfigKey)
	if v, ok := node.Labels[label]; ok {
		return eniConfigChoice{Name: v, Kind: "label", Key: label}
	}
	return eniConfigChoice{Name: defaultENIConfigName}
}

// ENIConfigName returns the name of the ENIConfig the VPC CNI uses for node: the label
// vpc.amazonaws.com/externalEniConfig, else the annotation named by ENI_CONFIG_ANNOTATION_DEF,
// else the label named by ENI_CONFIG_LABEL_DEF (both default k8s.amazonaws.com/eniConfig),
// else "default".
func ENIConfigName(node *corev1.Node, awsNode *snapshot.AWSNode) string {
	return chooseENIConfig(node, awsNode).Name
}
