package collect

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

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
// cilium-config ConfigMap; in ENI mode (ipam: eni) it reads the cilium-operator Deployment's
// args and the host-network DaemonSets, and lists the CiliumNodes, which it lists too in the
// cluster-pool and multi-pool modes, whose operator writes its errors on them. Without the
// agent DaemonSet nothing more is read and s.Cilium stays nil, without a gap. Only the
// CiliumNodes of the nodes read are kept, each with at most kubeMaxCiliumENIs ENIs; a note
// says what was left out.
func (c *Collector) kubeCilium(ctx context.Context, s *snapshot.Snapshot, scope Scope) error {
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
	switch s.Cilium.IPAM() {
	case snapshot.CiliumIPAMENI:
		if err := c.kubeCiliumOperator(ctx, s); err != nil {
			return err
		}
		if err := c.kubeHostNetworkDaemonSets(ctx, s); err != nil {
			return err
		}
	case snapshot.CiliumIPAMClusterPool, snapshot.CiliumIPAMMultiPool:
	default:
		return nil
	}
	read := make(map[string]bool, len(s.Nodes))
	for i := range s.Nodes {
		read[s.Nodes[i].Name] = true
	}
	others, enisCut := 0, map[string]int{}
	err = c.kubeReadCRD(ctx, s, kubeCiliumNodesCRD(), false, nil,
		"install Cilium's CiliumNode CRD (cilium-operator registers it), or check cilium-config's ipam",
		func(u *unstructured.Unstructured) {
			// Cilium names a CiliumNode after its node; the checks read only those of the nodes read.
			if !read[u.GetName()] {
				others++
				return
			}
			cn := kubeobj.DecodeCiliumNode(u)
			if n := len(cn.ENIs); n > kubeMaxCiliumENIs {
				cn.ENIs = slices.Clip(cn.ENIs[:kubeMaxCiliumENIs])
				enisCut[cn.Name] = n
			}
			s.CiliumNodes = append(s.CiliumNodes, cn)
		})
	kubeSortByName(s.CiliumNodes, func(v *snapshot.CiliumNode) string { return v.Name })
	for _, name := range slices.Sorted(maps.Keys(enisCut)) {
		s.Notes = append(s.Notes, fmt.Sprintf("CiliumNode %s lists %d ENIs; karpnet keeps the %d of the lowest device "+
			"numbers (no EC2 instance type takes more than %d)", name, enisCut[name], kubeMaxCiliumENIs, kubeMostENIs))
	}
	if others > 0 && !scope.narrowed() && others > len(s.Nodes) {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: %d CiliumNodes name no node of the cluster and were left out; karpnet "+
			"keeps the %d of the nodes it read", snapshot.SourceCiliumNodes, others, len(s.CiliumNodes)))
	}
	return err
}

// kubeMostENIs is the most network interfaces any EC2 instance type takes (trn1n.32xlarge's
// 80 in Karpenter's VPC limits), and kubeMaxCiliumENIs how many of a CiliumNode's
// status.eni.enis karpnet keeps: room above it for types to come. A CiliumNode listing more
// describes no instance; the rest would only print.
const (
	kubeMostENIs      = 80
	kubeMaxCiliumENIs = 128
)

// kubeCiliumOperator reads --aws-enable-prefix-delegation from the kube-system/cilium-operator
// Deployment's container args (one GET); a missing Deployment leaves it unset, without a gap.
func (c *Collector) kubeCiliumOperator(ctx context.Context, s *snapshot.Snapshot) error {
	d, err := c.Kube.AppsV1().Deployments(snapshot.CiliumNamespace).Get(ctx, snapshot.CiliumOperator, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return c.kubeFail(s, snapshot.SourceCiliumOperator, "get", "deployments.apps in kube-system", err)
	}
	for _, ct := range d.Spec.Template.Spec.Containers {
		if v, ok := kubeBoolFlag(append(slices.Clone(ct.Command), ct.Args...), snapshot.CiliumOperatorPrefixDelegationFlag); ok {
			s.Cilium.OperatorPrefixDelegation = &v
		}
	}
	return nil
}

// kubeBoolFlag returns the value of a boolean flag in args as pflag reads it: "--flag" and
// "--flag=true" are true, "--flag=false" false; the last one given wins. false when absent
// or not a boolean.
func kubeBoolFlag(args []string, flag string) (value, ok bool) {
	for _, a := range args {
		switch {
		case a == flag:
			value, ok = true, true
		case strings.HasPrefix(a, flag+"="):
			if v, err := strconv.ParseBool(strings.TrimPrefix(a, flag+"=")); err == nil {
				value, ok = v, true
			}
		}
	}
	return value, ok
}

// kubeHostNetworkDaemonSets lists the DaemonSets of every namespace from the API server's
// watch cache (resourceVersion "0", paged should the server answer from etcd) and keeps those
// whose pods run in the host's network namespace, with their scheduling: their pods take no
// address of Cilium's pool.
func (c *Collector) kubeHostNetworkDaemonSets(ctx context.Context, s *snapshot.Snapshot) error {
	var out []snapshot.DaemonSet
	err := kubePaginate(metav1.ListOptions{Limit: c.kubePageSize(), ResourceVersion: "0"}, func(opts metav1.ListOptions) (string, error) {
		list, err := c.Kube.AppsV1().DaemonSets(metav1.NamespaceAll).List(ctx, opts)
		if err != nil {
			return "", err
		}
		for i := range list.Items {
			ds := &list.Items[i]
			if ds.Spec.Template.Spec.HostNetwork {
				out = append(out, snapshot.DaemonSet{Namespace: ds.Namespace, Name: ds.Name,
					Scheduling: kubeScheduling(ds.Spec.Template.Spec)})
			}
		}
		return list.Continue, nil
	})
	if err != nil {
		return c.kubeFail(s, snapshot.SourceDaemonSets, "list", "daemonsets.apps in all namespaces", err)
	}
	slices.SortFunc(out, func(a, b snapshot.DaemonSet) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	s.Cilium.HostNetwork, s.Cilium.HostNetworkRead = out, true
	return nil
}

// kubeScheduling keeps a pod template's nodeSelector, node affinity and tolerations.
func kubeScheduling(pod corev1.PodSpec) *snapshot.Scheduling {
	out := &snapshot.Scheduling{NodeSelector: pod.NodeSelector, Tolerations: pod.Tolerations}
	if pod.Affinity != nil && pod.Affinity.NodeAffinity != nil {
		out.Affinity = pod.Affinity.NodeAffinity
	}
	return out
}

// kubeDecodeCilium keeps the agent container's image and the pod template's scheduling.
func kubeDecodeCilium(pod corev1.PodSpec) *snapshot.Cilium {
	out := &snapshot.Cilium{Scheduling: kubeScheduling(pod)}
	for _, ct := range pod.Containers {
		if ct.Name == "cilium-agent" {
			out.Image = ct.Image
		}
	}
	return out
}
