package harness

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// motoTestCollector runs karpnet's collector over moto, with the AWS configuration the plugin
// process gets from Env and two nodes whose providerIDs are the p5 and the prefixed instance.
// Kubernetes is a fake clientset with no CRDs, so only EC2 is real here.
func motoTestCollector(t *testing.T, m *Moto, w motoWorld) {
	for _, kv := range m.Env(motoRegion) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	cfg, err := config.LoadDefaultConfig(t.Context())
	if err != nil {
		t.Fatalf("loading the AWS configuration from Env: %v", err)
	}
	nodes := []*corev1.Node{
		motoNode("gpu-0", "aws:///us-west-2a/"+w.efa),
		motoNode("cpu-0", "aws:///us-west-2a/"+w.prefixed),
	}
	c := &collect.Collector{
		Kube: k8sfake.NewClientset(nodes[0], nodes[1]), Dynamic: motoNoCRDs{}, EC2: ec2.NewFromConfig(cfg),
	}
	s, err := c.Collect(t.Context(), collect.Scope{})
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	for _, g := range s.Gaps {
		if strings.HasPrefix(g.Source, "ec2:") {
			t.Errorf("EC2 gap %+v, want every EC2 source read", g)
		}
	}
	type eni struct {
		Type      string
		Card, IPs int
		Prefixes  int
	}
	type instance struct {
		Type, Group string
		ENIs        []eni
	}
	got := map[string]instance{}
	for _, in := range s.Instances {
		v := instance{Type: in.Type, Group: in.Placement.GroupName}
		for _, e := range in.ENIs {
			v.ENIs = append(v.ENIs, eni{e.InterfaceType, int(e.NetworkCardIndex), len(e.PrivateIPs), len(e.IPv4Prefixes)})
		}
		got[in.ID] = v
	}
	want := map[string]instance{
		w.efa:      {Type: "p5.48xlarge", Group: "training", ENIs: []eni{{"efa", 0, 1, 0}, {"efa-only", 1, 0, 0}}},
		w.prefixed: {Type: "m5.large", ENIs: []eni{{"interface", 0, 4, 2}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("collected instances mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"subnet/" + w.subnetA, "sg/" + w.sg, "pg/training", "type/m5.large", "type/p5.48xlarge"},
		motoCollected(s)); diff != "" {
		t.Errorf("collected references mismatch (-want +got):\n%s", diff)
	}
}

// motoCollected names the subnets, security groups, placement groups and instance types in s.
func motoCollected(s *snapshot.Snapshot) []string {
	var out []string
	for _, v := range s.Subnets {
		out = append(out, "subnet/"+v.ID)
	}
	for _, v := range s.SecurityGroups {
		out = append(out, "sg/"+v.ID)
	}
	for _, v := range s.PlacementGroups {
		out = append(out, "pg/"+v.Name)
	}
	for _, v := range s.InstanceTypes {
		out = append(out, "type/"+v.Name)
	}
	return out
}

func motoNode(name, providerID string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
}

// motoNoCRDs is a dynamic client for an API server that serves no custom resource: every
// get and list is answered 404, as for a CRD that is not installed.
type motoNoCRDs struct{}

func (motoNoCRDs) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return motoAbsent{gvr: gvr}
}

// motoAbsent is one resource of motoNoCRDs; methods other than Get and List are not used.
type motoAbsent struct {
	dynamic.NamespaceableResourceInterface
	gvr schema.GroupVersionResource
}

func (r motoAbsent) Namespace(string) dynamic.ResourceInterface { return r }

func (r motoAbsent) Get(_ context.Context, name string, _ metav1.GetOptions, _ ...string) (*unstructured.Unstructured, error) {
	return nil, apierrors.NewNotFound(r.gvr.GroupResource(), name)
}

func (r motoAbsent) List(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return nil, apierrors.NewNotFound(r.gvr.GroupResource(), "")
}
