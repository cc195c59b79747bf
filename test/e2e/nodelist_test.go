package e2e

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestNodeListSaysHowManyRemain checks what the EC2 read strategy relies on at the first page
// of nodes: kube-apiserver answers a paginated node list without a label selector (karpnet's
// unscoped list, from etcd) with metadata.remainingItemCount, so the size of a cluster of many
// pages is known before its first instance is read.
func TestNodeListSaysHowManyRemain(t *testing.T) {
	cs, err := kubernetes.NewForConfig(env.kube.Admin)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		name := fmt.Sprintf("remaining-count-%d.us-west-2.compute.internal", i)
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if _, err := cs.CoreV1().Nodes().Create(t.Context(), n, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating node %s: %v", name, err)
		}
		// t.Context() is done by the time cleanups run.
		t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	page, err := cs.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if page.Continue == "" {
		t.Fatalf("a list of at least 3 nodes in pages of 1 ended at the first page")
	}
	if page.RemainingItemCount == nil || *page.RemainingItemCount < 2 {
		t.Fatalf("the first page of 1 node says %v nodes remain, want at least 2: the strategy cannot be chosen at the first page", page.RemainingItemCount)
	}
	t.Logf("first page of 1 node: remainingItemCount %d", *page.RemainingItemCount)
}
