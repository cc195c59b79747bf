package cmd

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var gvrAutoNodeClass = schema.GroupVersionResource{Group: snapshot.AutoModeGroup, Version: "v1", Resource: "nodeclasses"}

// mixedSnapshot holds a self-managed node of EC2NodeClass "default", an Auto Mode node of
// NodeClass "auto", one node of each kind whose class is named "shared", and a node with no class.
func mixedSnapshot() *snapshot.Snapshot {
	node := func(name string, labels map[string]string) corev1.Node {
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	}
	s := snapshot.New(liveTaken)
	s.Nodes = []corev1.Node{
		node("karpenter-default", map[string]string{snapshot.LabelNodePool: "general", snapshot.LabelEC2NodeClass: "default"}),
		node("i-0a000000000000001", map[string]string{snapshot.LabelNodePool: "auto-pool",
			snapshot.LabelComputeType: snapshot.ComputeTypeAuto, snapshot.LabelAutoNodeClass: "auto"}),
		node("karpenter-shared", map[string]string{snapshot.LabelNodePool: "general", snapshot.LabelEC2NodeClass: "shared"}),
		node("i-0a000000000000002", map[string]string{snapshot.LabelNodePool: "auto-pool",
			snapshot.LabelComputeType: snapshot.ComputeTypeAuto, snapshot.LabelAutoNodeClass: "shared"}),
		node("managed", map[string]string{"eks.amazonaws.com/nodegroup": "ng-1"}),
	}
	s.NodePools = []snapshot.NodePool{
		{Name: "general", NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "default"}},
		{Name: "auto-pool", NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass, Name: "auto"}},
	}
	s.NodeClasses = []snapshot.EC2NodeClass{
		{Name: "default"}, {Name: "shared"},
		{Name: "auto", Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass},
		{Name: "shared", Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass},
	}
	return s
}

func TestSelectionNodeClassKinds(t *testing.T) {
	tests := []struct {
		name               string
		names              []string
		selector, pool, nc string
		wantNodes          []string
		wantResources      []string
		wantScope          collect.Scope
	}{
		{name: "EC2NodeClass", nc: "default", wantNodes: []string{"karpenter-default"},
			wantResources: []string{"ec2nodeclass/default", "nodeclass/default"},
			wantScope:     collect.Scope{Selector: snapshot.LabelEC2NodeClass + "=default", OrSelectors: []string{snapshot.LabelAutoNodeClass + "=default"}}},
		{name: "Auto Mode NodeClass", nc: "auto", wantNodes: []string{"i-0a000000000000001"},
			wantResources: []string{"ec2nodeclass/auto", "nodeclass/auto"},
			wantScope:     collect.Scope{Selector: snapshot.LabelEC2NodeClass + "=auto", OrSelectors: []string{snapshot.LabelAutoNodeClass + "=auto"}}},
		{name: "a name of both kinds selects the nodes of both", nc: "shared",
			wantNodes:     []string{"i-0a000000000000002", "karpenter-shared"},
			wantResources: []string{"ec2nodeclass/shared", "nodeclass/shared"},
			wantScope:     collect.Scope{Selector: snapshot.LabelEC2NodeClass + "=shared", OrSelectors: []string{snapshot.LabelAutoNodeClass + "=shared"}}},
		{name: "with a selector", nc: "shared", selector: snapshot.LabelComputeType + "=auto",
			wantNodes:     []string{"i-0a000000000000002"},
			wantResources: []string{"ec2nodeclass/shared", "nodeclass/shared"},
			wantScope: collect.Scope{Selector: snapshot.LabelComputeType + "=auto," + snapshot.LabelEC2NodeClass + "=shared",
				OrSelectors: []string{snapshot.LabelComputeType + "=auto," + snapshot.LabelAutoNodeClass + "=shared"}}},
		{name: "with a NodePool", nc: "shared", pool: "general", wantNodes: []string{"karpenter-shared"},
			wantResources: []string{"ec2nodeclass/default", "ec2nodeclass/shared", "nodeclass/shared", "nodepool/general"},
			wantScope: collect.Scope{Selector: snapshot.LabelEC2NodeClass + "=shared," + snapshot.LabelNodePool + "=general",
				OrSelectors: []string{snapshot.LabelAutoNodeClass + "=shared," + snapshot.LabelNodePool + "=general"}}},
		{name: "a named node of another class", names: []string{"karpenter-default"}, nc: "auto",
			wantResources: []string{"ec2nodeclass/auto", "nodeclass/auto"},
			wantScope:     collect.Scope{Names: []string{"karpenter-default"}}},
		{name: "Auto Mode NodePool brings its NodeClass", pool: "auto-pool",
			wantNodes:     []string{"i-0a000000000000001", "i-0a000000000000002"},
			wantResources: []string{"nodeclass/auto", "nodepool/auto-pool"},
			wantScope:     collect.Scope{Selector: snapshot.LabelNodePool + "=auto-pool"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := newSelection(tt.names, tt.selector, tt.pool, tt.nc)
			if err != nil {
				t.Fatalf("newSelection: %v", err)
			}
			if diff := cmp.Diff(tt.wantScope, sel.scope()); diff != "" {
				t.Errorf("live scope (-want +got):\n%s", diff)
			}
			opts, err := sel.options(mixedSnapshot(), nil, nil)
			if err != nil {
				t.Fatalf("options: %v", err)
			}
			if diff := cmp.Diff(tt.wantNodes, sortedTrue(opts.Nodes)); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantResources, sortedTrue(opts.Resources)); diff != "" {
				t.Errorf("resources (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSelectionUnknownNodeClass(t *testing.T) {
	tests := []struct {
		name     string
		gap      string
		wantCode int
	}{
		{name: "neither kind has it", wantCode: ExitUsage},
		{name: "EC2NodeClasses unreadable", gap: snapshot.SourceNodeClasses},
		{name: "Auto Mode NodeClasses unreadable", gap: snapshot.SourceAutoNodeClasses},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mixedSnapshot()
			if tt.gap != "" {
				s.Gaps = append(s.Gaps, snapshot.Gap{Source: tt.gap, Reason: "forbidden"})
			}
			sel, err := newSelection(nil, "", "", "gpu")
			if err != nil {
				t.Fatalf("newSelection: %v", err)
			}
			_, err = sel.options(s, nil, nil)
			var exit *exitError
			switch {
			case tt.wantCode == 0 && err != nil:
				t.Errorf("options: got %v, want no error when a kind could not be read", err)
			case tt.wantCode != 0 && (!errors.As(err, &exit) || exit.code != tt.wantCode):
				t.Errorf("options: got %v, want a usage error", err)
			}
		})
	}
}

// sortedTrue returns the keys of m whose value is true, sorted; nil for none.
func sortedTrue(m map[string]bool) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] {
			out = append(out, k)
		}
	}
	return out
}

// withAutoMode relabels liveNodeB as an EKS Auto Mode node of NodeClass "auto" and adds that
// NodeClass to the cluster.
func withAutoMode(t *testing.T, c *liveCluster) {
	t.Helper()
	n, err := c.kube.CoreV1().Nodes().Get(t.Context(), liveNodeB, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting %s: %v", liveNodeB, err)
	}
	delete(n.Labels, snapshot.LabelEC2NodeClass)
	n.Labels[snapshot.LabelComputeType] = snapshot.ComputeTypeAuto
	n.Labels[snapshot.LabelAutoNodeClass] = "auto"
	if _, err := c.kube.CoreV1().Nodes().Update(t.Context(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("updating %s: %v", liveNodeB, err)
	}
	nc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass",
		"metadata": map[string]any{"name": "auto"},
		"spec":     map[string]any{"role": "AutoModeNodeRole"},
	}}
	if err := c.dyn.Tracker().Create(gvrAutoNodeClass, nc, ""); err != nil {
		t.Fatalf("creating NodeClass auto: %v", err)
	}
}

func TestLiveNodeClassSelectsAutoMode(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "Auto Mode NodeClass", args: []string{"--nodeclass", "auto"}, want: []string{liveNodeB}},
		{name: "EC2NodeClass", args: []string{"--nodeclass", "default"}, want: []string{liveNodeA}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newLiveCluster(t)
			withAutoMode(t, c)
			r := c.run(t, append([]string{"check", "-o", "json"}, tt.args...)...)
			if r.code != ExitOK && r.code != ExitFindings {
				t.Fatalf("exit code: got %d, want %d or %d; stderr %q", r.code, ExitOK, ExitFindings, r.stderr)
			}
			if diff := cmp.Diff(tt.want, decodeReport(t, r.stdout).nodeNames()); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompleteAutoModeNodeClasses(t *testing.T) {
	notFound := func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		return true, nil, apierrors.NewNotFound(gvrAutoNodeClass.GroupResource(), "")
	}
	tests := []struct {
		name      string
		args      []string
		crdAbsent bool
		want      []string
	}{
		{name: "both kinds", args: []string{"check", "--nodeclass", ""}, want: []string{"auto", "default"}},
		{name: "without the Auto Mode CRD", args: []string{"check", "--nodeclass", ""}, crdAbsent: true,
			want: []string{"default"}},
		{name: "nodes of an Auto Mode NodeClass", args: []string{"check", "--nodeclass", "auto", ""}, want: []string{liveNodeB}},
		{name: "nodes of an EC2NodeClass", args: []string{"check", "--nodeclass", "default", ""}, want: []string{liveNodeA}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newLiveCluster(t)
			withAutoMode(t, c)
			if tt.crdAbsent {
				c.dyn.PrependReactor("list", "nodeclasses", notFound)
			}
			o, _, _ := newTestOptions()
			o.newCollector = clientsCollector(c.kube, c.dyn, noEC2(t))
			got := complete(t, o, tt.args...)
			if diff := cmp.Diff(tt.want, got.values); diff != "" {
				t.Errorf("completions (-want +got):\n%s", diff)
			}
			if got.directive != noFile {
				t.Errorf("directive: got %d, want %d", got.directive, noFile)
			}
		})
	}
}
