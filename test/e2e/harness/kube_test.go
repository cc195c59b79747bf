package harness

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// TestKube starts etcd and kube-apiserver, switches between the CRD sets, stores and reads
// Karpenter objects, checks the viewer's permissions, resets, and checks that Close leaves
// no process behind.
func TestKube(t *testing.T) {
	skipShort(t, "etcd and kube-apiserver")
	ctx := t.Context()
	start := time.Now()
	if _, err := KubeAPIServerBinary(ctx); err != nil {
		t.Fatalf("KubeAPIServerBinary: %v", err)
	}
	t.Logf("kube-apiserver binary ready in %s", time.Since(start).Round(time.Millisecond))

	k, err := StartKube(ctx, t.TempDir())
	if err != nil {
		t.Fatalf("StartKube: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	t.Logf("etcd healthy in %s, kube-apiserver ready %s later, cluster prepared in %s",
		k.startup.etcd.Round(time.Millisecond), k.startup.apiserver.Round(time.Millisecond), k.startup.total.Round(time.Millisecond))
	pids := []int{k.etcd.pid(), k.apiserver.pid()}
	dyn := dynamic.NewForConfigOrDie(k.Admin)

	t.Run("ENIConfig CRD", func(t *testing.T) {
		eni := kubeObject("crd.k8s.amazonaws.com/v1alpha1", "ENIConfig", "us-west-2a", map[string]any{
			"subnet": "subnet-0a1b2c3d", "securityGroups": []any{"sg-0a1b2c3d"},
		})
		got := kubeCreateAndGet(t, dyn, kubeENIConfigsGVR, eni)
		if diff := cmp.Diff(eni.Object["spec"], got.Object["spec"]); diff != "" {
			t.Errorf("ENIConfig spec mismatch (-want +got):\n%s", diff)
		}
	})

	for _, tc := range []struct {
		set    CRDSet
		served map[string]bool // "resource/version" served
	}{
		{CRDsV1beta1, map[string]bool{"nodepools/v1beta1": true, "nodeclaims/v1beta1": true, "ec2nodeclasses/v1beta1": true}},
		{CRDsV1, map[string]bool{"nodepools/v1": true, "nodeclaims/v1": true, "ec2nodeclasses/v1": true, "ec2nodeclasses/v1beta1": true}},
		{CRDsNone, map[string]bool{}},
		{CRDsV1, map[string]bool{"nodepools/v1": true, "nodeclaims/v1": true, "ec2nodeclasses/v1": true, "ec2nodeclasses/v1beta1": true}},
	} {
		t.Run("install "+string(tc.set), func(t *testing.T) {
			start := time.Now()
			if err := k.InstallCRDs(ctx, tc.set); err != nil {
				t.Fatalf("InstallCRDs(%s): %v", tc.set, err)
			}
			t.Logf("InstallCRDs(%s) took %s", tc.set, time.Since(start).Round(time.Millisecond))
			for _, gr := range kubeKarpenterResources() {
				for _, v := range kubeKarpenterVersions() {
					_, err := dyn.Resource(gr.WithVersion(v)).List(ctx, metav1.ListOptions{})
					want := tc.served[gr.Resource+"/"+v]
					if got := err == nil; got != want || (!got && !apierrors.IsNotFound(err)) {
						t.Errorf("list %s/%s: got error %v, want served %t", gr.Resource, v, err, want)
					}
				}
			}
		})
	}

	t.Run("EC2NodeClass v1", func(t *testing.T) { kubeTestNodeClassV1(t, k, dyn) })
	t.Run("viewer", func(t *testing.T) { kubeTestViewer(t, k) })
	t.Run("kubectl", func(t *testing.T) { kubeTestKubectl(t, k) })

	t.Run("EC2NodeClass v1beta1", func(t *testing.T) {
		if err := k.InstallCRDs(ctx, CRDsV1beta1); err != nil {
			t.Fatalf("InstallCRDs(v1beta1): %v", err)
		}
		gvr := schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1beta1", Resource: "ec2nodeclasses"}
		nc := kubeObject("karpenter.k8s.aws/v1beta1", "EC2NodeClass", "legacy", map[string]any{
			"amiFamily":                  "AL2",
			"role":                       "KarpenterNodeRole",
			"subnetSelectorTerms":        []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "demo"}}},
			"securityGroupSelectorTerms": []any{map[string]any{"name": "nodes"}},
		})
		got := kubeCreateAndGet(t, dyn, gvr, nc)
		if diff := cmp.Diff(nc.Object["spec"], got.Object["spec"]); diff != "" {
			t.Errorf("EC2NodeClass v1beta1 spec mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("Auto Mode NodeClass", func(t *testing.T) { kubeTestAutoMode(t, k, dyn) })
	t.Run("reset", func(t *testing.T) { kubeTestReset(t, k, dyn) })

	start = time.Now()
	if err := k.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	t.Logf("Close took %s", time.Since(start).Round(time.Millisecond))
	for _, pid := range pids {
		if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process group %d after Close: got %v, want ESRCH", pid, err)
		}
	}
	if err := k.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestKubeEtcdPortClash checks that a start that loses its port is recognised as a clash,
// which StartKube retries with new ports.
func TestKubeEtcdPortClash(t *testing.T) {
	skipShort(t, "etcd")
	bin, err := kubeEtcdBinary(t.Context())
	if err != nil {
		t.Fatalf("kubeEtcdBinary: %v", err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer taken.Close()
	ports, err := freePorts(1)
	if err != nil {
		t.Fatalf("freePorts: %v", err)
	}
	p, _, err := kubeStartEtcd(t.Context(), bin, t.TempDir(), taken.Addr().(*net.TCPAddr).Port, ports[0])
	if err == nil {
		p.stop()
		t.Fatal("kubeStartEtcd on a taken port: got no error")
	}
	if err := kubeMarkClash(err, p); !errors.Is(err, errKubePortClash) {
		t.Errorf("kubeMarkClash: got %v, want errKubePortClash", err)
	}
}

// kubeObject returns a cluster-scoped object with a spec.
func kubeObject(apiVersion, kind, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

// kubeCreateAndGet creates obj and reads it back.
func kubeCreateAndGet(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	ctx := t.Context()
	if _, err := dyn.Resource(gvr).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create %s %s: %v", gvr.Resource, obj.GetName(), err)
	}
	got, err := dyn.Resource(gvr).Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s %s: %v", gvr.Resource, obj.GetName(), err)
	}
	return got
}
