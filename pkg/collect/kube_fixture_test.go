package collect

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
)

// kubeLoadList reads a kubectl List YAML file from testdata/kube.
func kubeLoadList(t *testing.T, name string) []unstructured.Unstructured {
	t.Helper()
	return testutil.LoadList(t, filepath.Join("testdata", "kube", name))
}

// kubeTyped decodes the objects of the fixture files into typed client-go objects.
func kubeTyped(t *testing.T, files ...string) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	for _, f := range files {
		for _, u := range kubeLoadList(t, f) {
			js, err := u.MarshalJSON()
			if err != nil {
				t.Fatalf("encoding %s: %v", u.GetName(), err)
			}
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(js, nil, nil)
			if err != nil {
				t.Fatalf("decoding %s from %s: %v", u.GetName(), f, err)
			}
			out = append(out, obj)
		}
	}
	return out
}

// kubeUnstructured returns the objects of the fixture files as unstructured objects.
func kubeUnstructured(t *testing.T, files ...string) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	for _, f := range files {
		for _, u := range kubeLoadList(t, f) {
			out = append(out, u.DeepCopy())
		}
	}
	return out
}

// kubeGVRs of the custom resources karpnet reads.
var (
	kubeNodeClaimsV1      = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}
	kubeNodePoolsV1       = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	kubeNodeClassesV1     = schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}
	kubeNodeClaimsV1beta1 = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1beta1", Resource: "nodeclaims"}
	kubeNodePoolsV1beta1  = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1beta1", Resource: "nodepools"}
	kubeNodeClassesV1b1   = schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1beta1", Resource: "ec2nodeclasses"}
	kubeENIConfigsV1      = schema.GroupVersionResource{Group: "crd.k8s.amazonaws.com", Version: "v1alpha1", Resource: "eniconfigs"}
	kubeCNINodesV1alpha1  = schema.GroupVersionResource{Group: "vpcresources.k8s.aws", Version: "v1alpha1", Resource: "cninodes"}
	kubeCiliumNodesV2     = schema.GroupVersionResource{Group: "cilium.io", Version: "v2", Resource: "ciliumnodes"}
)

// kubeKarpenterV1 is every Karpenter v1 resource, served.
func kubeKarpenterV1() []schema.GroupVersionResource {
	return []schema.GroupVersionResource{kubeNodeClaimsV1, kubeNodePoolsV1, kubeNodeClassesV1}
}

// kubeListKinds maps resources to their list kinds for the dynamic fake.
func kubeListKinds(gvrs []schema.GroupVersionResource) map[schema.GroupVersionResource]string {
	kinds := map[string]string{
		"nodeclaims": "NodeClaimList", "nodepools": "NodePoolList",
		"ec2nodeclasses": "EC2NodeClassList", "eniconfigs": "ENIConfigList", "cninodes": "CNINodeList", "ciliumnodes": "CiliumNodeList",
		"clusternetworkpolicies": "ClusterNetworkPolicyList", "securitygrouppolicies": "SecurityGroupPolicyList", "applicationnetworkpolicies": "ApplicationNetworkPolicyList",
	}
	out := make(map[schema.GroupVersionResource]string, len(gvrs))
	for _, g := range gvrs {
		out[g] = kinds[g.Resource]
	}
	return out
}

// kubeAllGVRs is every resource karpnet may ask the dynamic client for.
func kubeAllGVRs() []schema.GroupVersionResource {
	return []schema.GroupVersionResource{
		kubeNodeClaimsV1, kubeNodePoolsV1, kubeNodeClassesV1,
		kubeNodeClaimsV1beta1, kubeNodePoolsV1beta1, kubeNodeClassesV1b1, kubeENIConfigsV1, kubeCNINodesV1alpha1, kubeCiliumNodesV2,
		kubeClusterNetworkPoliciesGVR, kubeApplicationNetworkPoliciesGVR, kubeSecurityGroupPoliciesGVR,
	}
}

// kubeDynamic returns a dynamic fake that serves only the given resources: any request for
// another resource is answered 404 the way an API server answers for a resource it does not
// serve. The objects must belong to served resources.
func kubeDynamic(served []schema.GroupVersionResource, objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	dc := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kubeListKinds(kubeAllGVRs()), objs...)
	dc.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if slices.Contains(served, a.GetResource()) {
			return false, nil, nil
		}
		name := ""
		if g, ok := a.(clienttesting.GetAction); ok {
			name = g.GetName()
		}
		return true, nil, errors.NewGenericServerResponse(404, a.GetVerb(), a.GetResource().GroupResource(), name, "", 0, true)
	})
	return dc
}

// kubeFixture is the cluster most tests start from: three nodes, the aws-node DaemonSet,
// events, Karpenter v1 objects and ENIConfigs.
func kubeFixture(t *testing.T) (*k8sfake.Clientset, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	kube := k8sfake.NewClientset(kubeTyped(t, "nodes.yaml", "aws-node.yaml", "events.yaml")...)
	served := append(kubeKarpenterV1(), kubeENIConfigsV1)
	dyn := kubeDynamic(served, kubeUnstructured(t,
		"nodeclaims-v1.yaml", "nodepools-v1.yaml", "ec2nodeclasses-v1.yaml", "eniconfigs.yaml")...)
	return kube, dyn
}

// kubePageBounds returns the slice of n items that a list with opts answers and the continue
// token of the next page. The token is the offset of the next item.
func kubePageBounds(n int, opts metav1.ListOptions) (start, end int, next string, err error) {
	if opts.Continue != "" {
		if start, err = strconv.Atoi(opts.Continue); err != nil || start > n {
			return 0, 0, "", errors.NewBadRequest("bad continue token")
		}
	}
	end = n
	if opts.Limit > 0 {
		end = min(start+int(opts.Limit), n)
	}
	if end < n {
		next = strconv.Itoa(end)
	}
	return start, end, next, nil
}

// kubePager answers typed list calls page by page, honouring Limit and Continue (the fake
// clientset ignores both), and records the options of every list call.
type kubePager struct {
	tracker clienttesting.ObjectTracker
	calls   []metav1.ListOptions
}

// react pages the full answer of the tracker, in namespace/name order.
func (p *kubePager) react(a clienttesting.Action) (bool, runtime.Object, error) {
	la, ok := a.(clienttesting.ListActionImpl)
	if !ok {
		return false, nil, nil
	}
	opts := la.ListOptions
	p.calls = append(p.calls, opts)
	handled, obj, err := clienttesting.ObjectReaction(p.tracker)(a)
	if err != nil || !handled {
		return handled, obj, err
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return true, nil, err
	}
	slices.SortFunc(items, func(x, y runtime.Object) int {
		mx, _ := meta.Accessor(x)
		my, _ := meta.Accessor(y)
		return strings.Compare(mx.GetNamespace()+"/"+mx.GetName(), my.GetNamespace()+"/"+my.GetName())
	})
	start, end, next, err := kubePageBounds(len(items), opts)
	if err != nil {
		return true, nil, err
	}
	if err := meta.SetList(obj, items[start:end]); err != nil {
		return true, nil, err
	}
	lm, err := meta.ListAccessor(obj)
	if err != nil {
		return true, nil, err
	}
	lm.SetContinue(next)
	return true, obj, nil
}

// kubePagedDynamic wraps a dynamic client so that lists honour Limit and Continue (the dynamic
// fake drops both from cluster-scoped list calls), and records the options of every list call.
// The collector lists resources concurrently, so recording takes mu.
type kubePagedDynamic struct {
	dynamic.Interface
	mu    *sync.Mutex
	calls *[]metav1.ListOptions
}

func (d kubePagedDynamic) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return kubePagedResource{d.Interface.Resource(gvr), d.mu, d.calls}
}

// kubePagedResource pages the lists of one resource.
type kubePagedResource struct {
	dynamic.NamespaceableResourceInterface
	mu    *sync.Mutex
	calls *[]metav1.ListOptions
}

func (r kubePagedResource) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	r.mu.Lock()
	*r.calls = append(*r.calls, opts)
	r.mu.Unlock()
	full, err := r.NamespaceableResourceInterface.List(ctx, metav1.ListOptions{LabelSelector: opts.LabelSelector})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(full.Items, func(x, y unstructured.Unstructured) int { return strings.Compare(x.GetName(), y.GetName()) })
	start, end, next, err := kubePageBounds(len(full.Items), opts)
	if err != nil {
		return nil, err
	}
	full.Items = full.Items[start:end]
	full.SetContinue(next)
	return full, nil
}

// kubeActions returns "verb resource.group/version [name]" for every recorded action on a fake.
func kubeActions(actions []clienttesting.Action) []string {
	var out []string
	for _, a := range actions {
		r := a.GetResource()
		s := a.GetVerb() + " " + r.Resource
		if r.Group != "" {
			s += "." + r.Group
		}
		s += "/" + r.Version
		if g, ok := a.(clienttesting.GetAction); ok {
			s += " " + g.GetName()
		}
		out = append(out, s)
	}
	return out
}
