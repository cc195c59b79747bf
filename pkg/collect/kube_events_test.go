package collect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	clienttesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestCollectKubeSandboxFailures(t *testing.T) {
	const (
		n1 = "ip-10-0-1-10.us-west-2.compute.internal"
		n2 = "ip-10-0-2-20.us-west-2.compute.internal"
		n3 = "ip-10-0-3-30.us-west-2.compute.internal"
		n9 = "ip-10-0-9-90.us-west-2.compute.internal"
	)
	web := snapshot.SandboxFailure{
		Node: n1, Namespace: "shop", Pod: "web-5d8f7b9c4-x2k9p", Count: 7,
		Message:  `Failed to create pod sandbox: plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container`,
		LastSeen: kubeTime(t, "2026-08-20T10:05:00Z"), FirstSeen: kubeTime(t, "2026-08-20T10:00:00Z"),
	}
	trainer := snapshot.SandboxFailure{
		Node: n2, Namespace: "ml", Pod: "trainer-0", Count: 3,
		Message:  `Failed to create pod sandbox: plugin type="aws-cni" failed (add): InsufficientCidrBlocks`,
		LastSeen: kubeTime(t, "2026-08-20T11:02:00Z"), FirstSeen: kubeTime(t, "2026-08-20T11:00:00Z"),
	}
	coredns := snapshot.SandboxFailure{
		Node: n3, Namespace: "kube-system", Pod: "coredns-6b9", Count: 1,
		Message:  "Failed to create pod sandbox: networkPlugin cni failed to set up pod network",
		LastSeen: kubeTime(t, "2026-08-20T09:00:00Z"), FirstSeen: kubeTime(t, "2026-08-20T09:00:00Z"),
	}
	batch := snapshot.SandboxFailure{
		Node: n9, Namespace: "batch", Pod: "batch-job-1", Count: 2,
		Message:  "Failed to create pod sandbox: failed to assign an IP address to container",
		LastSeen: kubeTime(t, "2026-08-20T12:00:00Z"),
	}
	for _, tc := range []struct {
		name  string
		scope Scope
		want  []snapshot.SandboxFailure
	}{
		{"every node", Scope{}, []snapshot.SandboxFailure{web, trainer, coredns, batch}},
		{"named nodes", Scope{Names: []string{n3, n1}}, []snapshot.SandboxFailure{web, coredns}},
		{"selected nodes", Scope{Selector: "karpenter.sh/nodepool"}, []snapshot.SandboxFailure{web, trainer}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube, dyn := kubeFixture(t)
			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, tc.scope)
			if err != nil {
				t.Fatalf("collectKube: %v", err)
			}
			if diff := cmp.Diff(tc.want, s.SandboxFailures); diff != "" {
				t.Errorf("sandbox failures mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCollectKubeSandboxFieldSelector(t *testing.T) {
	kube, dyn := kubeFixture(t)
	if _, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{}); err != nil {
		t.Fatalf("collectKube: %v", err)
	}
	var got []string
	for _, a := range kube.Actions() {
		if la, ok := a.(clienttesting.ListActionImpl); ok && a.GetResource().Resource == "events" {
			got = append(got, "ns="+la.GetNamespace()+" fields="+la.ListOptions.FieldSelector)
		}
	}
	want := []string{"ns= fields=reason=FailedCreatePodSandBox",
		"ns= fields=involvedObject.kind=NodeClaim", "ns= fields=involvedObject.kind=NodePool",
		"ns= fields=involvedObject.kind=Node,reason=NetworkingReady"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("event list calls mismatch (-want +got):\n%s", diff)
	}
}
