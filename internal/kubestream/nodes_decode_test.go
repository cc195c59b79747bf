package kubestream

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// heavyNode is a node as kubelet and the API server write it, every heavy field filled:
// managedFields from two managers, ten images, volumes in use and attached.
func heavyNode(name string) *corev1.Node {
	at := metav1.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)
	res := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("31526Mi"),
		corev1.ResourcePods: resource.MustParse("58"), "vpc.amazonaws.com/efa": resource.MustParse("1"),
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: "8d3e5c1e-0000-4000-8000-000000000001", ResourceVersion: "1234", CreationTimestamp: at,
			Labels: map[string]string{
				"topology.kubernetes.io/zone": "us-west-2a", "node.kubernetes.io/instance-type": "c6in.2xlarge",
				"karpenter.sh/nodepool": "default", "karpenter.k8s.aws/ec2nodeclass": "default",
			},
			Annotations: map[string]string{"karpenter.sh/nodeclaim-min-values-relaxed": "false"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "karpenter.sh/v1", Kind: "NodeClaim", Name: "default-abcde", UID: "00000000-0000-0000-0000-000000000001",
				BlockOwnerDeletion: ptr.To(true),
			}},
			Finalizers: []string{"karpenter.sh/termination"},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &at, FieldsType: "FieldsV1",
					FieldsV1: metav1.NewFieldsV1(`{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:lastHeartbeatTime":{}}},"f:images":{}}}`), Subresource: "status"},
				{Manager: "karpenter", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &at, FieldsType: "FieldsV1",
					FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{"f:karpenter.sh/nodepool":{}}},"f:spec":{"f:taints":{}}}`)},
			},
		},
		Spec: corev1.NodeSpec{
			ProviderID: "aws:///us-west-2a/i-0123456789abcdef0",
			Taints:     []corev1.Taint{{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute}},
		},
		Status: corev1.NodeStatus{
			Capacity: res, Allocatable: res,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: at, LastTransitionTime: at}},
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: "10.0.1.10"}, {Type: corev1.NodeHostName, Address: name},
			},
			NodeInfo:        corev1.NodeSystemInfo{KubeletVersion: "v1.34.2-eks-b69f5e5", OperatingSystem: "linux", Architecture: "amd64"},
			VolumesInUse:    []corev1.UniqueVolumeName{"kubernetes.io/csi/ebs.csi.aws.com^vol-0123"},
			VolumesAttached: []corev1.AttachedVolume{{Name: "kubernetes.io/csi/ebs.csi.aws.com^vol-0123", DevicePath: "/dev/xvdba"}},
			RuntimeHandlers: []corev1.NodeRuntimeHandler{{Name: "runc", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr.To(true)}}},
		},
	}
	for i := range 10 {
		repo := fmt.Sprintf("602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/image-%d", i)
		n.Status.Images = append(n.Status.Images, corev1.ContainerImage{
			Names: []string{repo + "@sha256:" + strings.Repeat(fmt.Sprint(i), 64), repo + ":v1.2.3-eksbuild.1"}, SizeBytes: int64(20_000_000 + i),
		})
	}
	return n
}

// marshalNode is n's protobuf, as the API server writes each item of a NodeList.
func marshalNode(t testing.TB, n *corev1.Node) []byte {
	t.Helper()
	b, err := n.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// strippedUnmarshal decodes b as the generated decoder does, then drops what
// StripNode drops: what DecodeNode must give.
func strippedUnmarshal(b []byte) (corev1.Node, error) {
	var n corev1.Node
	err := n.Unmarshal(b)
	StripNode(&n)
	return n, err
}

// TestDecodeNodeIsTheGeneratedDecodeStripped decodes nodes of every shape the protobuf
// encoding allows (the heavy fields first, last, alone; the metadata and status split over
// several fields, as a merge of messages is written; unknown fields) and compares each with
// the generated decoder's node, stripped.
func TestDecodeNodeIsTheGeneratedDecodeStripped(t *testing.T) {
	heavy := heavyNode("ip-10-0-1-10.us-west-2.compute.internal")
	labelsOnly := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"extra": "label", "karpenter.sh/nodepool": "gpu"}}}
	managedOnly := &corev1.Node{ObjectMeta: metav1.ObjectMeta{ManagedFields: heavy.ManagedFields}}
	imagesOnly := &corev1.Node{Status: corev1.NodeStatus{Images: heavy.Status.Images}}
	addressOnly := &corev1.Node{Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "54.1.2.3"}}}}
	unknown := protowire.AppendTag(nil, 99, protowire.BytesType)
	unknown = protowire.AppendBytes(unknown, []byte("a field of a later Kubernetes"))
	unknown = protowire.AppendTag(unknown, 98, protowire.VarintType)
	unknown = protowire.AppendVarint(unknown, 7)
	inStatus := protowire.AppendTag(nil, nodeStatus, protowire.BytesType)
	inStatus = protowire.AppendBytes(inStatus, unknown)
	cases := map[string][]byte{
		"heavy node":   marshalNode(t, heavy),
		"light node":   marshalNode(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "light"}}),
		"empty":        nil,
		"heavy only":   append(marshalNode(t, managedOnly), marshalNode(t, imagesOnly)...),
		"merged parts": concatBytes(marshalNode(t, labelsOnly), marshalNode(t, heavy), marshalNode(t, managedOnly), marshalNode(t, addressOnly), marshalNode(t, imagesOnly), marshalNode(t, labelsOnly)),
		"unknown":      concatBytes(unknown, marshalNode(t, heavy), inStatus, unknown),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := strippedUnmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			var got corev1.Node
			if err := DecodeNode(&got, b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", got, want)
			}
		})
	}
	var got corev1.Node
	if err := DecodeNode(&got, cases["heavy node"]); err != nil {
		t.Fatal(err)
	}
	if got.Status.Images != nil || got.ManagedFields != nil || got.Status.VolumesInUse != nil || got.Status.VolumesAttached != nil {
		t.Errorf("heavy fields decoded: %+v", got)
	}
	if got.Labels["karpenter.sh/nodepool"] != "default" || got.Spec.ProviderID != heavy.Spec.ProviderID || len(got.Status.Addresses) != 2 || got.Status.Allocatable.Pods().Value() != 58 {
		t.Errorf("kept fields lost: %+v", got)
	}
}

// TestDecodeNodeFailsAsTheGeneratedDecode breaks a node's protobuf every way a cut or a
// wrong byte can: wherever the generated decoder fails, DecodeNode fails too, and where
// it decodes, both give the same node.
func TestDecodeNodeFailsAsTheGeneratedDecode(t *testing.T) {
	b := marshalNode(t, heavyNode("n"))
	check := func(what string, b []byte) {
		t.Helper()
		want, wantErr := strippedUnmarshal(b)
		var got corev1.Node
		gotErr := DecodeNode(&got, b)
		switch {
		case wantErr != nil && gotErr == nil:
			// Only what is passed over may be broken where DecodeNode reads the node.
			if heavyFieldBroken(b) {
				return
			}
			t.Errorf("%s: decoded, the generated decoder fails with %v", what, wantErr)
		case wantErr == nil && gotErr != nil:
			t.Errorf("%s: %v, the generated decoder decodes it", what, gotErr)
		case wantErr == nil && !reflect.DeepEqual(got, want):
			t.Errorf("%s: decoded %+v, want %+v", what, got, want)
		}
	}
	for cut := range len(b) {
		check(fmt.Sprintf("cut at %d", cut), b[:cut])
	}
	for i := range b {
		for _, v := range []byte{0x00, 0x07, 0x0b, 0x80, 0xff} {
			broken := append([]byte(nil), b...)
			broken[i] = v
			check(fmt.Sprintf("byte %d set to %#x", i, v), broken)
		}
	}
}

// heavyFieldBroken tells whether b walks as a node whose metadata and status walk too,
// so that a failure of the generated decoder can only lie inside a field DecodeNode
// passes over.
func heavyFieldBroken(b []byte) bool {
	var probe corev1.Node
	err := decodeNodeRuns(&probe, b)
	if err != nil {
		return false
	}
	var withoutHeavy []byte
	keep := func(b []byte, skip func(protowire.Number) bool) []byte {
		var out []byte
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeTag(b)
			m := protowire.ConsumeFieldValue(num, typ, b[n:])
			if typ != protowire.BytesType || !skip(num) {
				out = append(out, b[:n+m]...)
			}
			b = b[n+m:]
		}
		return out
	}
	for rest := b; len(rest) > 0; {
		num, typ, n := protowire.ConsumeTag(rest)
		m := protowire.ConsumeFieldValue(num, typ, rest[n:])
		field := rest[:n+m]
		if typ == protowire.BytesType && (num == nodeMetadata || num == nodeStatus) {
			v, _ := protowire.ConsumeBytes(rest[n:])
			if num == nodeMetadata {
				v = keep(v, func(num protowire.Number) bool { return num == metaManagedFields })
			} else {
				v = keep(v, func(num protowire.Number) bool {
					return num == statusImages || num == statusVolumesUsed || num == statusVolumes
				})
			}
			field = protowire.AppendBytes(protowire.AppendTag(nil, num, typ), v)
		}
		withoutHeavy = append(withoutHeavy, field...)
		rest = rest[n+m:]
	}
	_, err = strippedUnmarshal(withoutHeavy)
	return err == nil
}

// concatBytes is the parts one after another.
func concatBytes(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// fieldByFieldUnmarshal decodes b with the generated decoder one field at a time (the
// metadata's and the status's fields one at a time too), then strips the node. It fails
// where a field's content reaches past the field's own end, which the generated decoder
// reads, for a map entry, from the bytes after it: DecodeNode, which decodes runs of
// fields, may then fail where n.Unmarshal does not.
func fieldByFieldUnmarshal(b []byte) (corev1.Node, error) {
	var n corev1.Node
	each := func(b []byte, decode func([]byte) error, inner func(protowire.Number, []byte) error) error {
		for len(b) > 0 {
			num, typ, k := protowire.ConsumeTag(b)
			if k < 0 {
				return protowire.ParseError(k)
			}
			m := protowire.ConsumeFieldValue(num, typ, b[k:])
			if m < 0 {
				return protowire.ParseError(m)
			}
			if v, _ := protowire.ConsumeBytes(b[k:]); inner != nil && typ == protowire.BytesType && (num == nodeMetadata || num == nodeStatus) {
				if err := inner(num, v); err != nil {
					return err
				}
			} else if err := decode(b[:k+m]); err != nil {
				return err
			}
			b = b[k+m:]
		}
		return nil
	}
	err := each(b, n.Unmarshal, func(num protowire.Number, v []byte) error {
		if num == nodeMetadata {
			return each(v, n.ObjectMeta.Unmarshal, nil)
		}
		return each(v, n.Status.Unmarshal, nil)
	})
	StripNode(&n)
	return n, err
}

// FuzzKubeDecodeNode holds DecodeNode to the generated decoder on any bytes: never a
// panic; wherever the node decodes field by field, the same node as the generated decoder;
// the same node whenever both decode; an error only where the generated decoder fails too
// or a field reaches past its end (fieldByFieldUnmarshal).
func FuzzKubeDecodeNode(f *testing.F) {
	heavy := marshalNode(f, heavyNode("n"))
	f.Add(heavy)
	f.Add(concatBytes(heavy, marshalNode(f, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}}), heavy))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		want, wantErr := strippedUnmarshal(b)
		var got corev1.Node
		gotErr := DecodeNode(&got, b)
		if local, err := fieldByFieldUnmarshal(b); err == nil {
			if gotErr != nil || wantErr != nil {
				t.Fatalf("decodes field by field; DecodeNode: %v, the generated decoder: %v", gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, local) {
				t.Fatalf("decoded %+v, want %+v", got, local)
			}
		}
		if wantErr == nil && gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %+v, want %+v", got, want)
		}
		if wantErr != nil && gotErr == nil && !heavyFieldBroken(b) {
			t.Fatalf("decoded, the generated decoder fails with %v", wantErr)
		}
	})
}

// BenchmarkDecodeNodes decodes 1,000 heavy nodes as a node list page is decoded: whole by the
// generated decoder, then stripped, or by DecodeNode.
func BenchmarkDecodeNodes(b *testing.B) {
	items := make([][]byte, 1000)
	for i := range items {
		items[i] = marshalNode(b, heavyNode(fmt.Sprintf("ip-10-0-%d-%d.us-west-2.compute.internal", i/250, i%250)))
	}
	for _, bc := range []struct {
		name   string
		decode func(*corev1.Node, []byte) error
	}{
		{"generated", func(n *corev1.Node, b []byte) error { err := n.Unmarshal(b); StripNode(n); return err }},
		{"karpnet", DecodeNode},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				nodes := make([]corev1.Node, len(items))
				for i, item := range items {
					if err := bc.decode(&nodes[i], item); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
