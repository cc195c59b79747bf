package collect

import (
	"cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeENIConfigAnnotation is the node annotation that names a node's ENIConfig unless aws-node's
// ENI_CONFIG_ANNOTATION_DEF names another (the VPC CNI's default).
const kubeENIConfigAnnotation = "k8s.amazonaws.com/eniConfig"

// kubeKeepReadAnnotations drops every node annotation no check reads, once aws-node's settings
// are known: annotations are free text (tokens and notes have been seen there), and a snapshot,
// a report and serve's /report hold only what the checks need. The one read is the ENIConfig
// annotation (the custom networking checks), by the key aws-node names.
func kubeKeepReadAnnotations(s *snapshot.Snapshot) {
	key := cmp.Or(s.AWSNode.Setting(snapshot.EnvENIConfigAnnot, ""), kubeENIConfigAnnotation)
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if len(n.Annotations) == 0 {
			continue
		}
		v, ok := n.Annotations[key]
		n.Annotations = nil
		if ok {
			n.Annotations = map[string]string{key: v}
		}
	}
}
