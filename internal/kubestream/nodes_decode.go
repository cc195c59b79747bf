package kubestream

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
)

// The fields of a node's protobuf that StripNode drops: decoding them would only make
// garbage (at 100,000 nodes, most of what the node list allocates).
const (
	nodeMetadata      = 1  // Node.metadata
	nodeStatus        = 3  // Node.status
	metaManagedFields = 17 // ObjectMeta.managedFields
	statusImages      = 8  // NodeStatus.images
	statusVolumesUsed = 9  // NodeStatus.volumesInUse
	statusVolumes     = 10 // NodeStatus.volumesAttached
)

// DecodeNode decodes a node's protobuf into n as n.Unmarshal does, but for the fields
// StripNode drops, which it passes over without decoding them: the metadata's
// managedFields and the status's images and volumes. The generated decoder merges what it
// reads into n field by field, so decoding the runs of fields between the ones passed over,
// one after another, gives what decoding the whole would, stripped. A field passed over is
// not checked beyond its length; protobuf that cannot be walked field by field is decoded
// whole by n.Unmarshal, which fails as it always did, and stripped.
func DecodeNode(n *corev1.Node, b []byte) error {
	err := decodeNodeRuns(n, b)
	if errors.Is(err, errUnwalkable) {
		*n = corev1.Node{}
		err = n.Unmarshal(b)
		StripNode(n)
	}
	return err
}

func decodeNodeRuns(n *corev1.Node, b []byte) error {
	return protoRuns(b, func(num protowire.Number) bool { return num == nodeMetadata || num == nodeStatus },
		n.Unmarshal,
		func(num protowire.Number, v []byte) error {
			if num == nodeMetadata {
				return protoRuns(v, func(num protowire.Number) bool { return num == metaManagedFields },
					n.ObjectMeta.Unmarshal, nil)
			}
			return protoRuns(v, func(num protowire.Number) bool {
				return num == statusImages || num == statusVolumesUsed || num == statusVolumes
			}, n.Status.Unmarshal, nil)
		})
}

// protoRuns decodes the protobuf message b with decode, except for the length-delimited
// fields that special names: each run of other fields between them goes to decode as it is,
// and each of them to inner, or nowhere when inner is nil. When b cannot be walked field by
// field it stops with errUnwalkable, the runs before decoded.
func protoRuns(b []byte, special func(protowire.Number) bool, decode func([]byte) error, inner func(protowire.Number, []byte) error) error {
	start := 0
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return errUnwalkable
		}
		if typ != protowire.BytesType || !special(num) {
			m := protowire.ConsumeFieldValue(num, typ, b[i+n:])
			if m < 0 {
				return errUnwalkable
			}
			i += n + m
			continue
		}
		v, m := protowire.ConsumeBytes(b[i+n:])
		if m < 0 {
			return errUnwalkable
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

// errUnwalkable is protobuf protoRuns cannot walk field by field: a tag or
// length that runs past the end, or a group.
var errUnwalkable = errors.New("protobuf that cannot be walked field by field")

// StripNode drops the fields that make nodes heavy and that karpnet never reads: the
// metadata's managedFields and the status's images and volumes.
func StripNode(n *corev1.Node) {
	n.ManagedFields = nil
	n.Status.Images = nil
	n.Status.VolumesInUse = nil
	n.Status.VolumesAttached = nil
}
