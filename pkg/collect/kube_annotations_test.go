package collect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestCollectKubeKeepsOnlyReadAnnotations: a node's annotations are not kept whole (a
// "secret-ish" one is dropped); the ENIConfig annotation the checks read stays, by the default
// key and by the key aws-node's ENI_CONFIG_ANNOTATION_DEF names.
func TestCollectKubeKeepsOnlyReadAnnotations(t *testing.T) {
	for _, c := range []struct {
		name, setting string
		want          map[string]string
	}{
		{"default key", "", map[string]string{"k8s.amazonaws.com/eniConfig": "us-west-2a"}},
		{"aws-node's key", "example.com/eni", map[string]string{"example.com/eni": "pods-a"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			kube, dyn := kubeFixture(t)
			nodes, err := kube.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
			if err != nil || len(nodes.Items) == 0 {
				t.Fatalf("fixture nodes: %v", err)
			}
			n := nodes.Items[0]
			n.Annotations = map[string]string{"secret-ish": "token=abc123", "k8s.amazonaws.com/eniConfig": "us-west-2a",
				"example.com/eni": "pods-a", "node.alpha.kubernetes.io/ttl": "0"}
			if _, err := kube.CoreV1().Nodes().Update(t.Context(), &n, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			if c.setting != "" {
				ds, err := kube.AppsV1().DaemonSets("kube-system").Get(t.Context(), "aws-node", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				for i := range ds.Spec.Template.Spec.Containers {
					if ds.Spec.Template.Spec.Containers[i].Name == "aws-node" {
						ds.Spec.Template.Spec.Containers[i].Env = append(ds.Spec.Template.Spec.Containers[i].Env,
							corev1.EnvVar{Name: "ENI_CONFIG_ANNOTATION_DEF", Value: c.setting})
					}
				}
				if _, err := kube.AppsV1().DaemonSets("kube-system").Update(t.Context(), ds, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			s, err := kubeCollect(t, &Collector{Kube: kube, Dynamic: dyn}, Scope{})
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range s.Nodes {
				if got.Name != n.Name {
					if len(got.Annotations) != 0 {
						t.Errorf("%s: annotations %v kept, want none", got.Name, got.Annotations)
					}
					continue
				}
				if diff := cmp.Diff(c.want, got.Annotations); diff != "" {
					t.Errorf("%s: annotations (-want +got):\n%s", got.Name, diff)
				}
			}
		})
	}
}
