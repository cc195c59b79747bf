package collect

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubeDecodeAWSNodeStatus keeps status.desiredNumberScheduled only when the DaemonSet
// controller has observed the current spec: a status from before the last edit (or from a
// cluster without a controller) says nothing about where aws-node runs now.
func TestKubeDecodeAWSNodeStatus(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		generation, observed int64
		want                 *int32
	}{
		{"current status", 4, 4, kubeI32(0)},
		{"status of an older spec", 5, 4, nil},
		{"never reconciled", 1, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := &appsv1.DaemonSet{
				ObjectMeta: metav1.ObjectMeta{Name: "aws-node", Generation: tc.generation},
				Status:     appsv1.DaemonSetStatus{ObservedGeneration: tc.observed, DesiredNumberScheduled: 0},
			}
			got := kubeDecodeAWSNode(ds).DesiredNumberScheduled
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("got desiredNumberScheduled %v, want %v", got, tc.want)
			}
		})
	}
}
