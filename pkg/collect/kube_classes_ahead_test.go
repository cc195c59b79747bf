package collect

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestKubeClassesReadAheadNameTheCluster: in a run that names no node the EC2NodeClasses are
// listed once, with the nodes, and give the same classes as when read after them; the cluster
// their generated instance profiles name is known from that list, and none when the classes
// disagree or give no role.
func TestKubeClassesReadAheadNameTheCluster(t *testing.T) {
	for _, c := range []struct {
		name     string
		profiles map[string][2]string // class name -> role, status.instanceProfile
		want     string
	}{
		{"generated", map[string][2]string{"default": {"KarpenterNodeRole-demo", "demo_13350930935433484217"},
			"efa": {"KarpenterNodeRole-demo", "demo_2205462539123496522"}}, "demo"},
		{"one class's, the others without status", map[string][2]string{"efa": {"KarpenterNodeRole-demo", "demo_2205462539123496522"}}, "demo"},
		{"two clusters", map[string][2]string{"default": {"KarpenterNodeRole-demo", "demo_13350930935433484217"},
			"efa": {"KarpenterNodeRole-demo", "other_2205462539123496522"}}, ""},
		{"the user's profile", map[string][2]string{"default": {"", "demo_13350930935433484217"}}, ""},
		{"none", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			kube, _ := kubeFixture(t)
			var objs []runtime.Object
			for _, o := range kubeUnstructured(t, "nodeclaims-v1.yaml", "nodepools-v1.yaml", "ec2nodeclasses-v1.yaml", "eniconfigs.yaml") {
				u := o.(*unstructured.Unstructured)
				if p, ok := c.profiles[u.GetName()]; ok && u.GetKind() == "EC2NodeClass" {
					if p[0] == "" {
						unstructured.RemoveNestedField(u.Object, "spec", "role")
					}
					if err := unstructured.SetNestedField(u.Object, p[1], "status", "instanceProfile"); err != nil {
						t.Fatal(err)
					}
				}
				objs = append(objs, u)
			}
			dyn := kubeDynamic(append(kubeKarpenterV1(), kubeENIConfigsV1), objs...)
			col := &Collector{Kube: kube, Dynamic: dyn}

			a := col.kubeReadAhead(t.Context())
			if got := a.classes.clusterName(t.Context(), 10*time.Second); got != c.want {
				t.Errorf("cluster from the instance profiles %q, want %q", got, c.want)
			}
			a.stop()

			dyn.ClearActions()
			s, err := col.Collect(t.Context(), Scope{})
			if err != nil {
				t.Fatal(err)
			}
			lists := 0
			for _, act := range kubeActions(dyn.Actions()) {
				if act == "list ec2nodeclasses.karpenter.k8s.aws/v1" {
					lists++
				}
			}
			if lists != 1 {
				t.Errorf("%d lists of the EC2NodeClasses, want 1: %v", lists, kubeActions(dyn.Actions()))
			}
			// Read by name (a run that names the nodes), the same classes.
			named, err := (&Collector{Kube: kube, Dynamic: dyn}).Collect(t.Context(), Scope{Names: kubeNodeNames(s)})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.NodeClasses) == 0 {
				t.Fatal("no EC2NodeClass read")
			}
			byName := map[string]snapshot.EC2NodeClass{}
			for _, nc := range named.NodeClasses {
				byName[nc.Name] = nc
			}
			for _, nc := range s.NodeClasses {
				if other, ok := byName[nc.Name]; ok {
					if diff := cmp.Diff(other, nc); diff != "" {
						t.Errorf("class %s read ahead differs from read by name (-by name +ahead):\n%s", nc.Name, diff)
					}
				}
			}
		})
	}
}
