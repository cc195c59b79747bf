package collect

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
)

// The fields of a node's protobuf that kubeStripNode drops: decoding them would only make
// garbage (at 100,000 nodes, most of what the node list allocates).
const (
	kubeNodeMetadata      = 1  // Node.metadata
	kubeNodeStatus        = 3  // Node.status
	kubeMetaManagedFields = 17 // ObjectMeta.managedFields
	kubeStatusImages      = 8  // NodeStatus.images
	kubeStatusVolumesUsed = 9  // NodeStatus.volumesInUse
	kubeStatusVolumes     = 10 // NodeStatus.volumesAttached
)

// kubeDecodeNode decodes a node's protobuf into n as n.Unmarshal does, but for the fields
// kubeStripNode drops, which it passes over without decoding them: the metadata's
// managedFields and the status's images and volumes. The generated decoder merges what it
// reads into n field by field, so decoding the runs of fields between the ones passed over,
// one after another, gives what decoding the whole would, stripped. A field passed over is
// not checked beyond its length; protobuf that cannot be walked field by field is decoded
// whole by n.Unmarshal, which fails as it always did, and stripped.
func kubeDecodeNode(n *corev1.Node, b []byte) error {
	err := kubeDecodeNodeRuns(n, b)
	if errors.Is(err, errKubeProtoUnwalkable) {
		*n = corev1.Node{}
		err = n.Unmarshal(b)
		kubeStripNode(n)
	}
	return err
}

func kubeDecodeNodeRuns(n *corev1.Node, b []byte) error {
	return kubeProtoRuns(b, func(num protowire.Number) bool { return num == kubeNodeMetadata || num == kubeNodeStatus },
		n.Unmarshal,
		func(num protowire.Number, v []byte) error {
			if num == kubeNodeMetadata {
				return kubeProtoRuns(v, func(num protowire.Number) bool { return num == kubeMetaManagedFields },
					n.ObjectMeta.Unmarshal, nil)
			}
			return kubeProtoRuns(v, func(num protowire.Number) bool {
				return num == kubeStatusImages || num == kubeStatusVolumesUsed || num == kubeStatusVolumes
			}, n.Status.Unmarshal, nil)
		})
}

// kubeProtoRuns decodes the protobuf message b with decode, except for the length-delimited
// fields that special names: each run of other fields between them goes to decode as it is,
// and each of them to inner, or nowhere when inner is nil. When b cannot be walked field by
// field it stops with errKubeProtoUnwalkable, the runs before decoded.
func kubeProtoRuns(b []byte, special func(protowire.Number) bool, decode func([]byte) error, inner func(protowire.Number, []byte) error) error {
	start := 0
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return errKubeProtoUnwalkable
		}
		if typ != protowire.BytesType || !special(num) {
			m := protowire.ConsumeFieldValue(num, typ, b[i+n:])
			if m < 0 {
				return errKubeProtoUnwalkable
			}
			i += n + m
			continue
		}
		v, m := protowire.ConsumeBytes(b[i+n:])
		if m < 0 {
			return errKubeProtoUnwalkable
		}
		if start < i {
			if err := decode(b[start:i]); err != nil {
				return err
			}
		}
		if inner != nil {
			if err := inner(num, v); err != nil {
				return err
			}
		}
		i += n + m
		start = i
	}
	if start < len(b) {
		return decode(b[start:])
	}
	return nil
}

// errKubeProtoUnwalkable is protobuf kubeProtoRuns cannot walk field by field: a tag or
// length that runs past the end, or a group.
var errKubeProtoUnwalkable = errors.New("protobuf that cannot be walked field by field")
