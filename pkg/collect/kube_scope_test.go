package collect

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestCollectKubeNamedNodesUseGets(t *testing.T) {
	const (
		n1 = "ip-10-0-1-10.us-west-2.compute.internal"
		n2 = "ip-10-0-2-20.us-west-2.compute.internal"
		n3 = "ip-10-0-3-30.us-west-2.compute.internal"
	)
	withoutOwner := func(objs []runtime.Object) {
		for _, o := range objs {
			if n, ok := o.(*corev1.Node); ok && n.Name == n2 {
				n.OwnerReferences = nil
			}
		}
	}
	for _, tc := range []struct {
		name        string
		names       []string
		editTyped   func([]runtime.Object)
		dropClaim   string
		wantActions []string
		wantClaims  []string
		wantPools   []string
		wantClasses []string
	}{
		{
			name:  "owner, label and class ref name every object",
			names: []string{n2, n1, n2},
			wantActions: []string{
				"get nodeclaims.karpenter.sh/v1 default-7xk2p",
				"get nodeclaims.karpenter.sh/v1 gpu-9fq3m",
				"get nodepools.karpenter.sh/v1 default",
				"get nodepools.karpenter.sh/v1 gpu",
				"get ec2nodeclasses.karpenter.k8s.aws/v1 default",
				"get ec2nodeclasses.karpenter.k8s.aws/v1 efa",
				"list eniconfigs.crd.k8s.amazonaws.com/v1alpha1",
			},
			wantClaims:  []string{"default-7xk2p", "gpu-9fq3m"},
			wantPools:   []string{"default", "gpu"},
			wantClasses: []string{"default", "efa"},
		},
		{
			name:      "a node without its owner reference lists claims",
			names:     []string{n2},
			editTyped: withoutOwner,
			wantActions: []string{
				"list nodeclaims.karpenter.sh/v1",
				"get nodepools.karpenter.sh/v1 gpu",
				"get ec2nodeclasses.karpenter.k8s.aws/v1 efa",
				"list eniconfigs.crd.k8s.amazonaws.com/v1alpha1",
			},
			wantClaims:  []string{"batch-2hd8c", "default-7xk2p", "gpu-9fq3m"},
			wantPools:   []string{"gpu"},
			wantClasses: []string{"efa"},
		},
		{
			name:        "a node outside Karpenter reads no Karpenter object",
			names:       []string{n3},
			wantActions: []string{"list eniconfigs.crd.k8s.amazonaws.com/v1alpha1"},
		},
		{
			name:      "a deleted claim is left out",
			names:     []string{n1},
			dropClaim: "default-7xk2p",
			wantActions: []string{
				"get nodeclaims.karpenter.sh/v1 default-7xk2p",
				"list nodeclaims.karpenter.sh/v1",
				"get nodepools.karpenter.sh/v1 default",
				"get ec2nodeclasses.karpenter.k8s.aws/v1 default",
				"list eniconfigs.crd.k8s.amazonaws.com/v1alpha1",
			},
			wantPools:   []string{"default"},
			wantClasses: []string{"default"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typed := kubeTyped(t, "nodes.yaml", "aws-node.yaml", "events.yaml")
			if tc.editTyped != nil {
				tc.editTyped(typed)
			}
			var objs []runtime.Object
			for _, o := range kubeUnstructured(t, "nodeclaims-v1.yaml", "nodepools-v1.yaml", "ec2nodeclasses-v1.yaml", "eniconfigs.yaml") {
				if u := o.(*unstructured.Unstructured); u.GetKind() == "NodeClaim" && u.GetName() == tc.dropClaim {
					continue
				}
				objs = append(objs, o)
			}
			kube := k8sfake.NewClientset(typed...)
			dyn := kubeDynamic(append(kubeKarpenterV1(), kubeENIConfigsV1), objs...)

			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{Names: tc.names})
			if err != nil {
				t.Fatalf("collectKube: %v", err)
			}
			// Sources are read concurrently: compare the requests as sorted lists.
			if diff := cmp.Diff(tc.wantActions, kubeActions(dyn.Actions()), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("dynamic requests mismatch (-want +got):\n%s", diff)
			}
			for _, a := range kube.Actions() {
				if a.GetVerb() != "get" && a.GetResource().Resource != "events" {
					t.Errorf("named nodes made a %s of %s, want GETs only", a.GetVerb(), a.GetResource().Resource)
				}
			}
			var claims, pools, classes []string
			for _, c := range s.NodeClaims {
				claims = append(claims, c.Name)
			}
			for _, p := range s.NodePools {
				pools = append(pools, p.Name)
			}
			for _, c := range s.NodeClasses {
				classes = append(classes, c.Name)
			}
			for _, c := range []struct {
				what      string
				want, got []string
			}{
				{"nodeclaims", tc.wantClaims, claims},
				{"nodepools", tc.wantPools, pools},
				{"ec2nodeclasses", tc.wantClasses, classes},
			} {
				if diff := cmp.Diff(c.want, c.got); diff != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", c.what, diff)
				}
			}
			if len(s.Gaps) != 0 {
				t.Errorf("gaps: got %v, want none", s.Gaps)
			}
		})
	}
}

func TestCollectKubePagination(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pageSize  int64
		wantLimit int64
		wantCalls map[string]int
	}{
		// Events are listed four times (sandbox failures, NodeClaims, NodePools, the node
		// monitoring agent's); the fake ignores field selectors, so each list pages through all
		// five events. kube-system's DaemonSets and the pods off the host network are listed once
		// each (the fixture has none of either); no agent's status counts a pod not ready, so no
		// agent's pods are listed.
		{"pages of two", 2, 2, map[string]int{
			"nodes": 2, "events": 12, "nodeclaims": 2, "nodepools": 2, "ec2nodeclasses": 2, "eniconfigs": 1,
			// aws-node's policy agent is off and no NetworkPolicy exists: the VPC CNI's own kinds are counted.
			"networkpolicies": 1, "clusternetworkpolicies": 1, "applicationnetworkpolicies": 1,
			// The CoreDNS pods, by label (none in the fixture: one page).
			"daemonsets": 1, "pods": 2,
		}},
		{"default page size", 0, 500, map[string]int{
			"nodes": 1, "events": 4, "nodeclaims": 1, "nodepools": 1, "ec2nodeclasses": 1, "eniconfigs": 1,
			"networkpolicies": 1, "clusternetworkpolicies": 1, "applicationnetworkpolicies": 1,
			"daemonsets": 1, "pods": 2,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube, dyn := kubeFixture(t)
			typedPager := &kubePager{tracker: kube.Tracker()}
			kube.PrependReactor("list", "*", typedPager.react)
			var dynCalls []metav1.ListOptions
			paged := kubePagedDynamic{Interface: dyn, mu: &sync.Mutex{}, calls: &dynCalls}

			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: paged, PageSize: tc.pageSize}, Scope{})
			if err != nil {
				t.Fatalf("collectKube: %v", err)
			}
			calls := map[string]int{}
			for _, a := range append(kube.Actions(), dyn.Actions()...) {
				if a.GetVerb() == "list" {
					calls[a.GetResource().Resource]++
				}
			}
			if diff := cmp.Diff(tc.wantCalls, calls); diff != "" {
				t.Errorf("list calls per resource mismatch (-want +got):\n%s", diff)
			}
			for _, opts := range append(typedPager.calls, dynCalls...) {
				if opts.Limit != tc.wantLimit {
					t.Errorf("list limit: got %d, want %d", opts.Limit, tc.wantLimit)
				}
			}
			// Nodes, events and custom resources ask the watch cache (resourceVersion 0), and
			// a continued page carries only its token.
			for _, opts := range typedPager.calls {
				want := ""
				if opts.Continue == "" {
					want = "0"
				}
				if opts.ResourceVersion != want {
					t.Errorf("typed list with field selector %q, continue %q: got resourceVersion %q, want %q",
						opts.FieldSelector, opts.Continue, opts.ResourceVersion, want)
				}
			}
			for _, opts := range dynCalls {
				want := "0"
				if opts.Continue != "" {
					want = ""
				}
				if opts.ResourceVersion != want {
					t.Errorf("custom resource list with continue %q: got resourceVersion %q, want %q",
						opts.Continue, opts.ResourceVersion, want)
				}
			}
			counts := map[string]int{
				"nodes": len(s.Nodes), "nodeclaims": len(s.NodeClaims), "nodepools": len(s.NodePools),
				"ec2nodeclasses": len(s.NodeClasses), "eniconfigs": len(s.ENIConfigs), "sandboxFailures": len(s.SandboxFailures),
			}
			want := map[string]int{
				"nodes": 3, "nodeclaims": 3, "nodepools": 3, "ec2nodeclasses": 3, "eniconfigs": 2, "sandboxFailures": 4,
			}
			if diff := cmp.Diff(want, counts); diff != "" {
				t.Errorf("objects read across pages mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCollectKubeOrSelectors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		scope     Scope
		wantNodes []string
		wantLists int
	}{
		{"one selector", Scope{Selector: "karpenter.sh/nodepool=default"},
			[]string{"ip-10-0-1-10.us-west-2.compute.internal"}, 1},
		{"either selector, each node once", Scope{Selector: "karpenter.sh/nodepool=default",
			OrSelectors: []string{"karpenter.sh/capacity-type=on-demand", "eks.amazonaws.com/nodegroup=system"}},
			[]string{"ip-10-0-1-10.us-west-2.compute.internal", "ip-10-0-2-20.us-west-2.compute.internal",
				"ip-10-0-3-30.us-west-2.compute.internal"}, 3},
		{"no node of the second selector", Scope{Selector: "karpenter.sh/nodepool=gpu",
			OrSelectors: []string{"eks.amazonaws.com/nodeclass=auto"}},
			[]string{"ip-10-0-2-20.us-west-2.compute.internal"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube, dyn := kubeFixture(t)
			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, tc.scope)
			if err != nil {
				t.Fatalf("collectKube: %v", err)
			}
			var names []string
			for _, n := range s.Nodes {
				names = append(names, n.Name)
			}
			if diff := cmp.Diff(tc.wantNodes, names); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
			lists := 0
			for _, a := range kube.Actions() {
				if a.GetVerb() == "list" && a.GetResource().Resource == "nodes" {
					lists++
				}
			}
			if lists != tc.wantLists {
				t.Errorf("got %d node lists, want %d (one per selector)", lists, tc.wantLists)
			}
		})
	}
}

func TestKubeNodesGivesEveryNodeToOnPage(t *testing.T) {
	for _, scope := range []Scope{
		{Names: []string{"ip-10-0-2-20.us-west-2.compute.internal", "ip-10-0-1-10.us-west-2.compute.internal"}},
		{},
		{Selector: "karpenter.sh/nodepool=gpu", OrSelectors: []string{"karpenter.sh/capacity-type=on-demand"}},
	} {
		kube, dyn := kubeFixture(t)
		c := &Collector{Kube: kube, Dynamic: dyn, PageSize: 1}
		s := &snapshot.Snapshot{}
		var paged []string
		if err := c.kubeNodes(t.Context(), s, scope, func(nodes []corev1.Node, _ int64) {
			for _, n := range nodes {
				paged = append(paged, n.Name)
			}
		}); err != nil {
			t.Fatalf("kubeNodes(%+v): %v", scope, err)
		}
		var read []string
		for _, n := range s.Nodes {
			read = append(read, n.Name)
		}
		if diff := cmp.Diff(read, paged, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" || len(read) == 0 {
			t.Errorf("scope %+v: nodes given to onPage differ from the nodes read (-read +paged):\n%s", scope, diff)
		}
	}
}
