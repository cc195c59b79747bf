package collect

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeCiliumNode is a CiliumNode as Cilium's agent and operator write it in ENI mode, with the
// error a cluster-pool operator writes (the decoder reads both).
func kubeCiliumNode() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cilium.io/v2", "kind": "CiliumNode",
		"metadata": map[string]any{"name": "ip-10-0-1-10.us-west-2.compute.internal"},
		"spec": map[string]any{
			"instance-id": "i-0123456789abcdef0",
			"eni": map[string]any{
				"first-interface-index": int64(1), "subnet-ids": []any{"subnet-0pods"},
				"security-groups": []any{"sg-0pods"}, "use-primary-address": false,
				"exclude-interface-tags": map[string]any{"owner": "other"},
			},
		},
		"status": map[string]any{
			"eni": map[string]any{"enis": map[string]any{
				"eni-0b": map[string]any{"id": "eni-0b", "number": int64(1), "subnet": map[string]any{"id": "subnet-0pods"},
					"security-groups": []any{"sg-0pods"}, "addresses": []any{"10.0.64.5", "10.0.64.6"}},
				"eni-0a": map[string]any{"id": "eni-0a", "number": int64(0), "subnet": map[string]any{"id": "subnet-0node"},
					"security-groups": []any{"sg-0node"}, "addresses": []any{}, "tags": map[string]any{"Name": "node"}},
			}},
			"ipam": map[string]any{
				"operator-status": map[string]any{"error": "allocator clusterCIDR: 10.0.0.0/8, nodeMask: 24 full"},
				"used":            map[string]any{"10.0.64.5": map[string]any{"owner": "default/web"}},
			},
		},
	}}
}

// kubeCiliumSnapshot is a snapshot that read the node of kubeCiliumNode.
func kubeCiliumSnapshot() *snapshot.Snapshot {
	return &snapshot.Snapshot{Nodes: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-10.us-west-2.compute.internal"}}}}
}

func TestKubeCilium(t *testing.T) {
	agent := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "cilium", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"kubernetes.io/os": "linux"}, HostNetwork: true,
			Containers: []corev1.Container{{Name: "cilium-agent", Image: "quay.io/cilium/cilium:v1.20.2"}},
		}}},
	}
	// other is a DaemonSet of another namespace whose pods take pod addresses.
	other := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "fluent-bit", Namespace: "logging"}}
	operator := func(args ...string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "cilium-operator", Namespace: "kube-system"},
			Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "cilium-operator", Args: append([]string{"--config-dir=/tmp/cilium/config-map"}, args...)}},
			}}}}
	}
	agentSched := &snapshot.Scheduling{NodeSelector: map[string]string{"kubernetes.io/os": "linux"}}
	eniCilium := func(pd *bool) *snapshot.Cilium {
		return &snapshot.Cilium{Image: "quay.io/cilium/cilium:v1.20.2", ConfigRead: true, Scheduling: agentSched,
			Config:                   map[string]string{"ipam": "eni", "aws-enable-prefix-delegation": "true"},
			OperatorPrefixDelegation: pd, HostNetworkRead: true,
			HostNetwork: []snapshot.DaemonSet{{Namespace: "kube-system", Name: "cilium", Scheduling: agentSched}}}
	}
	off, on := false, true
	config := func(ipam string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cilium-config", Namespace: "kube-system"},
			Data: map[string]string{"ipam": ipam, "aws-enable-prefix-delegation": "true", "cluster-name": "kept-out"}}
	}
	one := int32(1)
	wantNode := snapshot.CiliumNode{
		Name: "ip-10-0-1-10.us-west-2.compute.internal", InstanceID: "i-0123456789abcdef0", FirstInterfaceIndex: &one,
		SubnetIDs: []string{"subnet-0pods"}, SecurityGroups: []string{"sg-0pods"},
		ExcludeInterfaceTags: map[string]string{"owner": "other"},
		ENIs: []snapshot.CiliumENI{
			{ID: "eni-0a", Number: 0, Subnet: "subnet-0node", SecurityGroups: []string{"sg-0node"}, Tags: map[string]string{"Name": "node"}},
			{ID: "eni-0b", Number: 1, Subnet: "subnet-0pods", SecurityGroups: []string{"sg-0pods"}, Addresses: 2},
		},
		OperatorError: "allocator clusterCIDR: 10.0.0.0/8, nodeMask: 24 full", Used: 1,
	}
	for _, tc := range []struct {
		name       string
		objs       []runtime.Object
		served     []schema.GroupVersionResource
		want       *snapshot.Cilium
		wantNodes  []snapshot.CiliumNode
		wantGap    string
		typedReads int
		dynReads   int
	}{
		{name: "no Cilium: one get, nothing else", typedReads: 1},
		{name: "cluster-pool: the CiliumNodes are listed for the operator's errors, nothing else",
			objs:   []runtime.Object{agent, config("cluster-pool"), operator(), other},
			served: []schema.GroupVersionResource{kubeCiliumNodesV2}, typedReads: 2, dynReads: 1,
			want: &snapshot.Cilium{Image: "quay.io/cilium/cilium:v1.20.2", ConfigRead: true, Scheduling: agentSched,
				Config: map[string]string{"ipam": "cluster-pool", "aws-enable-prefix-delegation": "true"}},
			wantNodes: []snapshot.CiliumNode{wantNode}},
		{name: "overlay (kubernetes): no CiliumNode is read", objs: []runtime.Object{agent, config("kubernetes")},
			served: []schema.GroupVersionResource{kubeCiliumNodesV2}, typedReads: 2,
			want: &snapshot.Cilium{Image: "quay.io/cilium/cilium:v1.20.2", ConfigRead: true, Scheduling: agentSched,
				Config: map[string]string{"ipam": "kubernetes", "aws-enable-prefix-delegation": "true"}}},
		{name: "ENI mode: the operator's args, the host-network DaemonSets and the CiliumNodes are read",
			objs:   []runtime.Object{agent, config("eni"), operator("--aws-enable-prefix-delegation=false"), other},
			served: []schema.GroupVersionResource{kubeCiliumNodesV2}, typedReads: 4, dynReads: 1,
			want: eniCilium(&off), wantNodes: []snapshot.CiliumNode{wantNode}},
		{name: "ENI mode: a bare flag turns prefix delegation on",
			objs:   []runtime.Object{agent, config("eni"), operator("--aws-enable-prefix-delegation"), other},
			served: []schema.GroupVersionResource{kubeCiliumNodesV2}, typedReads: 4, dynReads: 1,
			want: eniCilium(&on), wantNodes: []snapshot.CiliumNode{wantNode}},
		{name: "ENI mode, an operator without the flag and no cilium-operator: cilium-config decides",
			objs:   []runtime.Object{agent, config("eni")},
			served: []schema.GroupVersionResource{kubeCiliumNodesV2}, typedReads: 4, dynReads: 1,
			want: eniCilium(nil), wantNodes: []snapshot.CiliumNode{wantNode}},
		{name: "ENI mode without the CRD: a gap", objs: []runtime.Object{agent, config("eni"), operator()}, typedReads: 4, dynReads: 1,
			want: eniCilium(nil), wantGap: snapshot.SourceCiliumNodes},
		{name: "no cilium-config: the agent alone", objs: []runtime.Object{agent}, typedReads: 2,
			want: &snapshot.Cilium{Image: "quay.io/cilium/cilium:v1.20.2",
				Scheduling: &snapshot.Scheduling{NodeSelector: map[string]string{"kubernetes.io/os": "linux"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := k8sfake.NewClientset(tc.objs...)
			var dynObjs []runtime.Object
			if len(tc.served) > 0 {
				dynObjs = append(dynObjs, kubeCiliumNode())
			}
			dyn := kubeDynamic(tc.served, dynObjs...)
			s := kubeCiliumSnapshot()
			if err := (&Collector{Kube: kube, Dynamic: dyn}).kubeCilium(t.Context(), s, Scope{}); err != nil {
				t.Fatalf("kubeCilium: %v", err)
			}
			if diff := cmp.Diff(tc.want, s.Cilium); diff != "" {
				t.Errorf("Cilium (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantNodes, s.CiliumNodes); diff != "" {
				t.Errorf("CiliumNodes (-want +got):\n%s", diff)
			}
			gap := ""
			if len(s.Gaps) > 0 {
				gap = s.Gaps[0].Source
			}
			if gap != tc.wantGap || len(s.Gaps) > 1 {
				t.Errorf("gaps %+v, want one of %q", s.Gaps, tc.wantGap)
			}
			if got := len(kube.Actions()); got != tc.typedReads {
				t.Errorf("%d typed requests, want %d: %v", got, tc.typedReads, kube.Actions())
			}
			if got := len(dyn.Actions()); got != tc.dynReads {
				t.Errorf("%d dynamic requests, want %d", got, tc.dynReads)
			}
		})
	}
}

// TestKubeCiliumForbidden checks that in ENI mode a denied list of DaemonSets or get of the
// operator's Deployment is a gap naming the rule to add, and the rest is still read.
func TestKubeCiliumForbidden(t *testing.T) {
	agent := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "cilium", Namespace: "kube-system"}}
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cilium-config", Namespace: "kube-system"},
		Data: map[string]string{"ipam": "eni"}}
	for _, tc := range []struct {
		name string
		fail kubeFailing
		want snapshot.Gap
	}{
		{"list daemonsets", kubeFailing{false, "list", "daemonsets", kubeForbidden("apps", "daemonsets")},
			snapshot.Gap{Source: snapshot.SourceDaemonSets, Reason: "forbidden",
				Remedy: "grant list on daemonsets.apps in all namespaces (see the ClusterRole in docs/permissions.md)"}},
		{"get cilium-operator", kubeFailing{false, "get", "deployments/cilium-operator", kubeForbidden("apps", "deployments")},
			snapshot.Gap{Source: snapshot.SourceCiliumOperator, Reason: "forbidden",
				Remedy: "grant get on deployments.apps in kube-system (see the ClusterRole in docs/permissions.md)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := k8sfake.NewClientset(agent, config)
			dyn := kubeDynamic([]schema.GroupVersionResource{kubeCiliumNodesV2}, kubeCiliumNode())
			tc.fail.install(kube, dyn)
			s := kubeCiliumSnapshot()
			if err := (&Collector{Kube: kube, Dynamic: dyn}).kubeCilium(t.Context(), s, Scope{}); err != nil {
				t.Fatalf("kubeCilium: %v", err)
			}
			if diff := cmp.Diff([]snapshot.Gap{tc.want}, s.Gaps); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}
			if len(s.CiliumNodes) != 1 {
				t.Errorf("%d CiliumNodes, want 1: the rest is still read", len(s.CiliumNodes))
			}
		})
	}
}

// TestKubeCiliumBounded: only the CiliumNodes of the nodes read are kept, each with at most
// kubeMaxCiliumENIs ENIs, and a note says what was left out; the healthy twin (one CiliumNode
// of 2 ENIs per node) keeps everything without a note.
func TestKubeCiliumBounded(t *testing.T) {
	agent := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "cilium", Namespace: "kube-system"}}
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cilium-config", Namespace: "kube-system"},
		Data: map[string]string{"ipam": "cluster-pool"}}
	named := func(name string, enis int) *unstructured.Unstructured {
		u := kubeCiliumNode()
		u.SetName(name)
		if enis > 0 {
			m := map[string]any{}
			for i := range enis {
				id := fmt.Sprintf("eni-%05d", i)
				m[id] = map[string]any{"id": id, "number": int64(i)}
			}
			u.Object["status"].(map[string]any)["eni"] = map[string]any{"enis": m}
		}
		return u
	}
	const node = "ip-10-0-1-10.us-west-2.compute.internal"
	for _, tc := range []struct {
		name      string
		objs      []runtime.Object
		scope     Scope
		wantNodes int
		wantENIs  int
		wantNotes []string
	}{
		{"one CiliumNode of the node read", []runtime.Object{named(node, 0)}, Scope{}, 1, 2, nil},
		{"20,000 CiliumNodes of nodes that do not exist", func() []runtime.Object {
			out := []runtime.Object{named(node, 0)}
			for i := range 20000 {
				out = append(out, named(fmt.Sprintf("ghost-%05d", i), 0))
			}
			return out
		}(), Scope{}, 1, 2, []string{"ciliumnodes.cilium.io: 20000 CiliumNodes name no node of the cluster and were left out; " +
			"karpnet keeps the 1 of the nodes it read"}},
		{"other nodes' CiliumNodes in a run on some nodes: no note", []runtime.Object{named(node, 0), named("other-a", 0),
			named("other-b", 0)}, Scope{Names: []string{node}}, 1, 2, nil},
		{"40,000 ENIs", []runtime.Object{named(node, 40000)}, Scope{}, 1, kubeMaxCiliumENIs,
			[]string{"CiliumNode " + node + " lists 40000 ENIs; karpnet keeps the 128 of the lowest device numbers " +
				"(no EC2 instance type takes more than 80)"}},
		{"80 ENIs, as many as trn1n.32xlarge takes", []runtime.Object{named(node, 80)}, Scope{}, 1, 80, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := k8sfake.NewClientset(agent, config)
			dyn := kubeDynamic([]schema.GroupVersionResource{kubeCiliumNodesV2}, tc.objs...)
			s := kubeCiliumSnapshot()
			if err := (&Collector{Kube: kube, Dynamic: dyn}).kubeCilium(t.Context(), s, tc.scope); err != nil {
				t.Fatalf("kubeCilium: %v", err)
			}
			if len(s.CiliumNodes) != tc.wantNodes || s.CiliumNodes[0].Name != node || len(s.CiliumNodes[0].ENIs) != tc.wantENIs {
				t.Fatalf("%d CiliumNodes (first with %d ENIs), want %d of %s with %d", len(s.CiliumNodes),
					len(s.CiliumNodes[0].ENIs), tc.wantNodes, node, tc.wantENIs)
			}
			if tc.wantENIs == kubeMaxCiliumENIs && s.CiliumNodes[0].ENIs[kubeMaxCiliumENIs-1].Number != kubeMaxCiliumENIs-1 {
				t.Errorf("last ENI kept is number %d, want the lowest numbers", s.CiliumNodes[0].ENIs[kubeMaxCiliumENIs-1].Number)
			}
			if diff := cmp.Diff(tc.wantNotes, s.Notes); diff != "" || len(s.Gaps) > 0 {
				t.Errorf("gaps %+v; notes (-want +got):\n%s", s.Gaps, diff)
			}
		})
	}
}

// kubeCiliumNodeListJSON is a CiliumNode list of one node's CiliumNode listing enis ENIs of
// 50 addresses each, as the operator writes them.
func kubeCiliumNodeListJSON(name string, enis int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"kind":"CiliumNodeList","apiVersion":"cilium.io/v2","metadata":{},"items":[{"apiVersion":"cilium.io/v2",`+
		`"kind":"CiliumNode","metadata":{"name":%q},"spec":{"instance-id":"i-0123456789abcdef0"},"status":{"eni":{"enis":{`, name)
	for i := range enis {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"eni-%017x":{"id":"eni-%017x","number":%d,"subnet":{"id":"subnet-0pods","cidr":"10.0.0.0/16"},`+
			`"security-groups":["sg-0pods"],"vpc":{"id":"vpc-0123456789abcdef0"},"addresses":[`, i, i, i)
		for a := range 50 {
			if a > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"10.0.%d.%d"`, i%250, a)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`}}}}]}`)
	return []byte(b.String())
}

// TestKubeCiliumNodeTooLong: a CiliumNode longer than kubeMaxObject (no API server accepts
// one) ends the list as soon as it passes the bound, a gap, rather than being decoded whole;
// one of 128 ENIs is read.
func TestKubeCiliumNodeTooLong(t *testing.T) {
	const node = "ip-10-0-1-10.us-west-2.compute.internal"
	agent := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "cilium", Namespace: "kube-system"}}
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cilium-config", Namespace: "kube-system"},
		Data: map[string]string{"ipam": "cluster-pool"}}
	for _, tc := range []struct {
		enis int
		gap  bool
	}{{128, false}, {40000, true}} {
		t.Run(fmt.Sprintf("%d ENIs", tc.enis), func(t *testing.T) {
			body := kubeCiliumNodeListJSON(node, tc.enis)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(body)
			}))
			defer srv.Close()
			rc, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1})
			if err != nil {
				t.Fatal(err)
			}
			s := kubeCiliumSnapshot()
			goruntime.GC()
			var before goruntime.MemStats
			goruntime.ReadMemStats(&before)
			peak := kubeHeapPeak()
			start := time.Now()
			c := &Collector{Kube: k8sfake.NewClientset(agent, config), REST: rc.CoreV1().RESTClient()}
			if err := c.kubeCilium(t.Context(), s, Scope{}); err != nil {
				t.Fatalf("kubeCilium: %v", err)
			}
			t.Logf("a list of %.1f MiB: %.2f s, heap peak %.0f MiB above the start", float64(len(body))/(1<<20),
				time.Since(start).Seconds(), float64(peak()-before.HeapInuse)/(1<<20))
			if !tc.gap {
				if len(s.Gaps) != 0 || len(s.CiliumNodes) != 1 || len(s.CiliumNodes[0].ENIs) != tc.enis {
					t.Errorf("gaps %+v, %d CiliumNodes: want none and one of %d ENIs", s.Gaps, len(s.CiliumNodes), tc.enis)
				}
				return
			}
			want := "the API server's ciliumnodes list holds an object longer than 3 MiB"
			if len(s.Gaps) != 1 || s.Gaps[0].Source != snapshot.SourceCiliumNodes || !strings.HasPrefix(s.Gaps[0].Reason, want) {
				t.Errorf("gaps %+v: want one of %s saying %q", s.Gaps, snapshot.SourceCiliumNodes, want)
			}
		})
	}
}
