package collect

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func kubeCiliumNodesCRD() kubeCRD {
	return kubeCRD{source: snapshot.SourceCiliumNodes, group: "cilium.io", resource: "ciliumnodes", versions: []string{"v2"}}
}

// kubeCilium reads Cilium's agent DaemonSet (kube-system/cilium) and, when it exists, the
// cilium-config ConfigMap; in ENI mode (ipam: eni) it lists the CiliumNodes. Without the
// DaemonSet nothing more is read and s.Cilium stays nil, without a gap.
func (c *Collector) kubeCilium(ctx context.Context, s *snapshot.Snapshot, _ Scope) error {
	s.Cilium, s.CiliumNodes = nil, nil
	ds, err := c.Kube.AppsV1().DaemonSets(snapshot.CiliumNamespace).Get(ctx, snapshot.CiliumDaemonSet, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return c.kubeFail(s, snapshot.SourceCilium, "get", "daemonsets.apps in kube-system", err)
	}
	s.Cilium = kubeDecodeCilium(ds.Spec.Template.Spec)
	cm, err := c.Kube.CoreV1().ConfigMaps(snapshot.CiliumNamespace).Get(ctx, snapshot.CiliumConfigMap, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		if err := c.kubeFail(s, snapshot.SourceCiliumConfig, "get", "configmaps in kube-system", err); err != nil {
			return err
		}
	default:
		s.Cilium.ConfigRead = true
		for _, k := range snapshot.CiliumKeys() {
			if v, ok := cm.Data[k]; ok {
				if s.Cilium.Config == nil {
					s.Cilium.Config = make(map[string]string)
				}
				s.Cilium.Config[k] = v
			}
		}
	}
	if s.Cilium.IPAM() != snapshot.CiliumIPAMENI {
		return nil
	}
	err = c.kubeReadCRD(ctx, s, kubeCiliumNodesCRD(), false, nil,
		"install Cilium's CiliumNode CRD (cilium-operator registers it), or check that Cilium runs with ipam: eni",
		func(u *unstructured.Unstructured) { s.CiliumNodes = append(s.CiliumNodes, kubeobj.DecodeCiliumNode(u)) })
	kubeSortByName(s.CiliumNodes, func(v *snapshot.CiliumNode) string { return v.Name })
	return err
}

// kubeDecodeCilium keeps the agent container's image and the pod template's scheduling.
func kubeDecodeCilium(pod corev1.PodSpec) *snapshot.Cilium {
	out := &snapshot.Cilium{Scheduling: &snapshot.Scheduling{NodeSelector: pod.NodeSelector, Tolerations: pod.Tolerations}}
	if pod.Affinity != nil && pod.Affinity.NodeAffinity != nil {
		out.Scheduling.Affinity = pod.Affinity.NodeAffinity
	}
	for _, ct := range pod.Containers {
		if ct.Name == "cilium-agent" {
			out.Image = ct.Image
		}
	}
	return out
}
