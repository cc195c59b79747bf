package collect

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeAutoNodeClassesV1 is the EKS Auto Mode NodeClass resource.
var kubeAutoNodeClassesV1 = schema.GroupVersionResource{Group: "eks.amazonaws.com", Version: "v1", Resource: "nodeclasses"}

const (
	kubeAutoNode1 = "i-0a1b2c3d4e5f6a001" // NodeClass label "default"
	kubeAutoNode2 = "i-0a1b2c3d4e5f6a002" // NodeClass only through its claim: "ml"
	kubeEC2Node   = "ip-10-0-1-10.us-west-2.compute.internal"
)

// kubeAutoDynamic is kubeDynamic that can also serve Auto Mode NodeClasses.
func kubeAutoDynamic(served []schema.GroupVersionResource, objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	kinds := kubeListKinds(kubeAllGVRs())
	kinds[kubeAutoNodeClassesV1] = "NodeClassList"
	dc := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kinds, objs...)
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

// kubeMixedCluster returns the fakes of a cluster with self-managed Karpenter and Auto Mode
// nodes. Auto Mode NodeClasses are served when autoCRD is set; EC2NodeClasses when ec2CRD is.
func kubeMixedCluster(t *testing.T, autoCRD, ec2CRD bool, edit func([]runtime.Object)) (*k8sfake.Clientset, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	nodeFiles, files := []string{"nodes-automode.yaml"}, []string{"nodeclaims-automode.yaml", "nodepools-automode.yaml"}
	served := []schema.GroupVersionResource{kubeNodeClaimsV1, kubeNodePoolsV1, kubeENIConfigsV1}
	if ec2CRD {
		nodeFiles = append(nodeFiles, "nodes.yaml")
		files = append(files, "nodeclaims-v1.yaml", "nodepools-v1.yaml", "ec2nodeclasses-v1.yaml")
		served = append(served, kubeNodeClassesV1)
	}
	if autoCRD {
		files = append(files, "nodeclasses-automode.yaml")
		served = append(served, kubeAutoNodeClassesV1)
	}
	typed := kubeTyped(t, nodeFiles...)
	if edit != nil {
		edit(typed)
	}
	return k8sfake.NewClientset(typed...), kubeAutoDynamic(served, kubeUnstructured(t, files...)...)
}

// kubeClassIDs returns "Kind/name" for each class, in order.
func kubeClassIDs(classes []snapshot.EC2NodeClass) []string {
	var out []string
	for _, c := range classes {
		out = append(out, c.KindName()+"/"+c.Name)
	}
	return out
}

// kubeAutoRequests returns the dynamic requests made for Auto Mode NodeClasses.
func kubeAutoRequests(dyn *dynamicfake.FakeDynamicClient) []string {
	var out []string
	for _, a := range dyn.Actions() {
		if a.GetResource().GroupResource() == kubeAutoNodeClassesV1.GroupResource() {
			out = append(out, kubeActions([]clienttesting.Action{a})...)
		}
	}
	return out
}
