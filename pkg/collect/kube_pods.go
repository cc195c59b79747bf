package collect

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeSystemPods reads, in a run over the whole cluster, the CoreDNS pods (kube-system,
// k8s-app=kube-dns: a few pods, one page) and, when aws-node's network policy agent is on and
// network policies exist, the aws-node pods (one per node, paged) for the agent container's
// state. Whether policies exist is known already where they were counted (kubePolicies); where
// the agent and the controller are on, one NetworkPolicy is listed to tell.
func (c *Collector) kubeSystemPods(ctx context.Context, s *snapshot.Snapshot) error {
	pods, err := c.kubeListPods(ctx, snapshot.CoreDNSSelector)
	if apierrors.IsNotFound(err) {
		err = nil // a list answered NotFound: the API server serves no pods, so there are none
	}
	if err != nil {
		if err := c.kubeFail(s, snapshot.SourceCoreDNSPods, "list", "pods in kube-system", err); err != nil {
			return err
		}
	}
	for i := range pods {
		s.CoreDNS = append(s.CoreDNS, kubeSystemPod(&pods[i]))
	}
	if !kubePolicyAgentOn(s) || s.Cilium != nil {
		return nil
	}
	if len(s.NetworkPolicies) == 0 && !s.Unavailable(snapshot.SourceNetworkPolicies) {
		list, err := c.Kube.NetworkingV1().NetworkPolicies("").List(ctx, metav1.ListOptions{Limit: 1})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return c.kubeFail(s, snapshot.SourceNetworkPolicies, "list", snapshot.SourceNetworkPolicies, err)
		case len(list.Items) == 0:
			return nil
		}
		count := snapshot.PolicyCount{Kind: snapshot.KindNetworkPolicy,
			Names: []string{list.Items[0].Namespace + "/" + list.Items[0].Name}}
		kubeCountRest(s, snapshot.SourceNetworkPolicies, &count, len(list.Items), list.RemainingItemCount, list.Continue)
		s.NetworkPolicies = append(s.NetworkPolicies, count)
	}
	if len(s.NetworkPolicies) == 0 {
		return nil
	}
	pods, err = c.kubeListPods(ctx, snapshot.AWSNodeSelector)
	if apierrors.IsNotFound(err) {
		err = nil
	}
	if err != nil {
		if err := c.kubeFail(s, snapshot.SourceAWSNodePods, "list", "pods in kube-system", err); err != nil {
			return err
		}
	}
	for i := range pods {
		p := kubeSystemPod(&pods[i])
		for _, st := range pods[i].Status.ContainerStatuses {
			if st.Name == snapshot.NodeAgentContainer {
				p.Agent = kubeContainerState(&st)
			}
		}
		s.PolicyAgentPods = append(s.PolicyAgentPods, p)
	}
	return nil
}

// kubeListPods lists kube-system's pods with a label selector, in pages from the watch cache;
// what was read before a failure is returned with it.
func (c *Collector) kubeListPods(ctx context.Context, selector string) ([]corev1.Pod, error) {
	var out []corev1.Pod
	err := c.kubeEachPod(ctx, selector, kubePaginate, func(p *corev1.Pod) { out = append(out, *p) })
	return out, err
}

// kubeEachPod hands each pod of kube-system that selector selects to keep, page by page from
// the watch cache, paging with paginate (kubePaginate, or the bounded c.kubePodPaginate).
func (c *Collector) kubeEachPod(ctx context.Context, selector string,
	paginate func(metav1.ListOptions, func(metav1.ListOptions) (string, error)) error, keep func(*corev1.Pod)) error {
	opts := metav1.ListOptions{LabelSelector: selector, Limit: c.kubePageSize(), ResourceVersion: "0"}
	return paginate(opts, func(opts metav1.ListOptions) (string, error) {
		list, err := c.Kube.CoreV1().Pods(kubeAWSNodeNamespace).List(ctx, opts)
		if err != nil {
			return "", err
		}
		for i := range list.Items {
			keep(&list.Items[i])
		}
		return list.Continue, nil
	})
}

// kubeSystemPod keeps a pod's name, node, phase and Ready condition.
func kubeSystemPod(p *corev1.Pod) snapshot.SystemPod {
	out := snapshot.SystemPod{Name: p.Name, Node: p.Spec.NodeName, Phase: string(p.Status.Phase)}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			out.Ready = c.Status == corev1.ConditionTrue
		}
	}
	return out
}

// kubeContainerState keeps a container's readiness, restarts, the reason it waits and the
// reason and code its last run ended with.
func kubeContainerState(st *corev1.ContainerStatus) *snapshot.ContainerState {
	out := &snapshot.ContainerState{Ready: st.Ready, Restarts: st.RestartCount}
	if w := st.State.Waiting; w != nil {
		out.Waiting = w.Reason
	}
	if t := st.LastTerminationState.Terminated; t != nil {
		out.LastExit, out.ExitCode = t.Reason, t.ExitCode
	}
	return out
}
