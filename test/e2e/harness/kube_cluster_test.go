package harness

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeTestNodeClassV1 stores a v1 EC2NodeClass with every field karpnet reads, sets its
// status, and reads it back at v1 and at v1beta1.
func kubeTestNodeClassV1(t *testing.T, k *Kube, dyn dynamic.Interface) {
	ctx := t.Context()
	if err := k.InstallCRDs(ctx, CRDsV1); err != nil {
		t.Fatalf("InstallCRDs(v1): %v", err)
	}
	v1 := schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}
	for _, tc := range []struct {
		name    string
		kubelet map[string]any
	}{
		{"typed", map[string]any{"maxPods": int64(110), "podsPerCore": int64(4)}},
		{"expression", map[string]any{"maxPods": "self.instanceType.maxENIs * 8", "clusterDNS": []any{"10.100.0.10"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := kubeObject("karpenter.k8s.aws/v1", "EC2NodeClass", tc.name, map[string]any{
				"amiSelectorTerms":           []any{map[string]any{"alias": "al2023@latest"}},
				"role":                       "KarpenterNodeRole",
				"subnetSelectorTerms":        []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "demo"}}, map[string]any{"id": "subnet-0a1b2c3d"}},
				"securityGroupSelectorTerms": []any{map[string]any{"id": "sg-0a1b2c3d"}},
				"associatePublicIPAddress":   false,
				"ipPrefixCount":              int64(1),
				"networkInterfaces": []any{
					map[string]any{"networkCardIndex": int64(0), "deviceIndex": int64(0), "interfaceType": "interface"},
					map[string]any{"networkCardIndex": int64(1), "deviceIndex": int64(0), "interfaceType": "efa-only"},
				},
				"placementGroupSelector": map[string]any{"name": "cluster-pg"},
				"kubelet":                tc.kubelet,
				"metadataOptions":        map[string]any{"httpTokens": "required"},
			})
			got := kubeCreateAndGet(t, dyn, v1, nc)
			if diff := cmp.Diff(nc.Object["spec"], got.Object["spec"]); diff != "" {
				t.Errorf("spec mismatch (-want +got):\n%s", diff)
			}
			status := map[string]any{
				"subnets":        []any{map[string]any{"id": "subnet-0a1b2c3d", "zone": "us-west-2a", "zoneID": "usw2-az1"}},
				"securityGroups": []any{map[string]any{"id": "sg-0a1b2c3d", "name": "nodes"}},
				"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Ready",
					"message": "", "lastTransitionTime": "2026-01-02T03:04:05Z"}},
			}
			got.Object["status"] = status
			if _, err := dyn.Resource(v1).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("update status: %v", err)
			}
			beta := v1
			beta.Version = "v1beta1"
			read, err := dyn.Resource(beta).Get(ctx, tc.name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("get at v1beta1: %v", err)
			}
			if got, want := read.GetAPIVersion(), "karpenter.k8s.aws/v1beta1"; got != want {
				t.Errorf("apiVersion: got %q, want %q", got, want)
			}
			if diff := cmp.Diff(status, read.Object["status"]); diff != "" {
				t.Errorf("status at v1beta1 mismatch (-want +got):\n%s", diff)
			}
		})
	}
	bad := kubeObject("karpenter.k8s.aws/v1", "EC2NodeClass", "bad", map[string]any{"ipPrefixCount": "one"})
	if _, err := dyn.Resource(v1).Create(ctx, bad, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("create with a string ipPrefixCount: got %v, want Invalid", err)
	}
	if err := k.InstallCRDs(ctx, CRDsV1); err != nil {
		t.Fatalf("InstallCRDs(v1) again: %v", err)
	}
	if _, err := dyn.Resource(v1).Get(ctx, "typed", metav1.GetOptions{}); err != nil {
		t.Errorf("get after installing the same set again: got %v, want the object kept", err)
	}
}

// kubeTestViewer checks that the viewer may read what karpnet reads outside Karpenter and
// is forbidden Karpenter's resources.
func kubeTestViewer(t *testing.T, k *Kube) {
	ctx := t.Context()
	cfg, err := clientcmd.BuildConfigFromFlags("", k.ViewerKubeconfig)
	if err != nil {
		t.Fatalf("loading the viewer kubeconfig: %v", err)
	}
	dyn := dynamic.NewForConfigOrDie(cfg)
	for _, tc := range []struct {
		gvr       schema.GroupVersionResource
		forbidden bool
	}{
		{kubeNodesGVR, false},
		{kubeEventsGVR, false},
		{kubeDaemonSetsGVR, false},
		{kubeENIConfigsGVR, false},
		{schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}, true},
		{schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}, true},
		{schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}, true},
	} {
		t.Run(tc.gvr.Resource, func(t *testing.T) {
			_, err := dyn.Resource(tc.gvr).List(ctx, metav1.ListOptions{})
			if tc.forbidden && !apierrors.IsForbidden(err) {
				t.Errorf("viewer list %s: got %v, want Forbidden", tc.gvr, err)
			}
			if !tc.forbidden && err != nil {
				t.Errorf("viewer list %s: got %v, want no error", tc.gvr, err)
			}
		})
	}
}

// kubeTestKubectl checks the kubeconfigs and short names with the real kubectl.
func kubeTestKubectl(t *testing.T, k *Kube) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is not on PATH: %v", err)
	}
	out, err := exec.CommandContext(t.Context(), kubectl, "--kubeconfig", k.AdminKubeconfig, "get", "ec2nc", "-o", "name").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ec2nodeclass.karpenter.k8s.aws/typed") {
		t.Errorf("kubectl get ec2nc as admin: got %q (%v), want ec2nodeclass.karpenter.k8s.aws/typed", out, err)
	}
	out, err = exec.CommandContext(t.Context(), kubectl, "--kubeconfig", k.ViewerKubeconfig, "get", "nodepools.karpenter.sh").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Forbidden") {
		t.Errorf("kubectl get nodepools as viewer: got %q (%v), want Forbidden", out, err)
	}
}

// kubeTestReset creates one object of every kind Reset deletes, some with finalizers, and
// checks that none is left.
func kubeTestReset(t *testing.T, k *Kube, dyn dynamic.Interface) {
	ctx := t.Context()
	if err := k.InstallCRDs(ctx, CRDsV1); err != nil {
		t.Fatalf("InstallCRDs(v1): %v", err)
	}
	cs := kubernetes.NewForConfigOrDie(k.Admin)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-1.ec2.internal", Finalizers: []string{"karpenter.sh/termination"}}}
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create node: %v", err)
	}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-node", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "aws-node"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"k8s-app": "aws-node"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "aws-node", Image: "amazon-k8s-cni:v1.20.0"}}},
			},
		},
	}
	if _, err := cs.AppsV1().DaemonSets("kube-system").Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create aws-node: %v", err)
	}
	event := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "web-1.sandbox", Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-1"},
		Reason:         "FailedCreatePodSandBox", Message: "failed to assign an IP address to container", Type: "Warning",
	}
	if _, err := cs.CoreV1().Events("default").Create(ctx, event, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create event: %v", err)
	}
	pool := kubeObject("karpenter.sh/v1", "NodePool", "default", map[string]any{"template": map[string]any{
		"spec": map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "typed"}},
	}})
	claim := kubeObject("karpenter.sh/v1", "NodeClaim", "default-abcde", map[string]any{
		"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "typed"},
	})
	claim.SetFinalizers([]string{"karpenter.sh/termination"})
	kubeCreateAndGet(t, dyn, schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}, pool)
	kubeCreateAndGet(t, dyn, schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}, claim)
	kubeCreateAndGet(t, dyn, kubeENIConfigsGVR, kubeObject("crd.k8s.amazonaws.com/v1alpha1", "ENIConfig", "us-west-2b",
		map[string]any{"subnet": "subnet-0b"}))

	start := time.Now()
	if err := k.Reset(ctx); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	t.Logf("Reset took %s", time.Since(start).Round(time.Millisecond))
	for _, gvr := range []schema.GroupVersionResource{
		kubeNodesGVR, kubeEventsGVR, kubeENIConfigsGVR,
		{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"},
		{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"},
		{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"},
	} {
		list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list %s: %v", gvr.Resource, err)
		}
		if n := len(list.Items); n != 0 {
			t.Errorf("%s after Reset: got %d, want 0", gvr.Resource, n)
		}
	}
	if _, err := cs.AppsV1().DaemonSets("kube-system").Get(ctx, "aws-node", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("aws-node after Reset: got %v, want NotFound", err)
	}
	if err := k.Reset(ctx); err != nil {
		t.Errorf("Reset of an empty cluster: %v", err)
	}
}
