package collect

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeAgents lists the DaemonSets of kube-system (one request a page, from the API server's
// watch cache) and keeps the node agents of snapshot.AgentNames, with their scheduling and
// status. The pods of an agent are listed (by its selector, paged) only when its status is
// current and counts fewer pods ready than scheduled: a healthy cluster costs one request. A
// run scoped to some nodes reads none of it.
func (c *Collector) kubeAgents(ctx context.Context, s *snapshot.Snapshot, scope Scope) error {
	if kubeScoped(scope) {
		return nil
	}
	names := snapshot.AgentNames()
	var agents []snapshot.Agent
	selectors := map[string]*metav1.LabelSelector{}
	err := kubePaginate(metav1.ListOptions{Limit: c.kubePageSize(), ResourceVersion: "0"}, func(opts metav1.ListOptions) (string, error) {
		list, err := c.Kube.AppsV1().DaemonSets(snapshot.AgentNamespace).List(ctx, opts)
		if err != nil {
			return "", err
		}
		for i := range list.Items {
			ds := &list.Items[i]
			if _, ok := slices.BinarySearch(names, ds.Name); !ok {
				continue
			}
			a := snapshot.Agent{Name: ds.Name, Scheduling: kubeScheduling(ds.Spec.Template.Spec)}
			if ds.Status.ObservedGeneration > 0 && ds.Status.ObservedGeneration >= ds.Generation {
				desired, ready := ds.Status.DesiredNumberScheduled, ds.Status.NumberReady
				a.Desired, a.Ready = &desired, &ready
			}
			agents = append(agents, a)
			selectors[ds.Name] = ds.Spec.Selector
		}
		return list.Continue, nil
	})
	if err != nil {
		return c.kubeFail(s, snapshot.SourceAgents, "list", "daemonsets.apps in kube-system", err)
	}
	slices.SortFunc(agents, func(a, b snapshot.Agent) int { return strings.Compare(a.Name, b.Name) })
	for i := range agents {
		a := &agents[i]
		if a.Desired == nil || *a.Ready >= *a.Desired {
			continue // all ready, or nothing current to go by
		}
		sel, err := metav1.LabelSelectorAsSelector(selectors[a.Name])
		if err != nil || sel.Empty() {
			continue // a DaemonSet the API server admitted has a selector; nothing to list by otherwise
		}
		pods, err := c.kubeAgentPods(ctx, sel.String())
		if errors.Is(err, errKubeTooManyPods) {
			s.Notes = append(s.Notes, kubeTooManyPodsNote("node-agent-not-running for kube-system/"+a.Name, "pods of kube-system/"+a.Name,
				"read the DaemonSet's pods that are not ready by hand (their node and events)"))
			continue
		}
		if err != nil {
			if err := c.kubeFail(s, snapshot.SourceAgentPods, "list", "pods in kube-system", err); err != nil {
				return err
			}
			continue
		}
		a.Pods, a.PodsRead = pods, true
	}
	s.Agents, s.AgentsRead = agents, true
	return nil
}

// kubeAgentPods lists the pods of kube-system that selector selects, paged (at most
// kubePodPages pages), keeping what says whether each is up on its node.
func (c *Collector) kubeAgentPods(ctx context.Context, selector string) ([]snapshot.AgentPod, error) {
	var out []snapshot.AgentPod
	err := c.kubeEachPod(ctx, selector, c.kubePodPaginate, func(p *corev1.Pod) { out = append(out, kubeAgentPod(p)) })
	slices.SortFunc(out, func(a, b snapshot.AgentPod) int {
		return cmp.Or(strings.Compare(a.Node, b.Node), strings.Compare(a.Name, b.Name))
	})
	return out, err
}

// kubeAgentPod keeps a node agent's pod: its node, phase, readiness, creation and why it is not
// ready.
func kubeAgentPod(p *corev1.Pod) snapshot.AgentPod {
	out := snapshot.AgentPod{Name: p.Name, Node: p.Spec.NodeName, Phase: string(p.Status.Phase), Created: p.CreationTimestamp.UTC()}
	for _, cond := range p.Status.Conditions {
		switch {
		case cond.Type == corev1.PodReady:
			out.Ready = cond.Status == corev1.ConditionTrue
		case cond.Type == corev1.PodScheduled && cond.Status != corev1.ConditionTrue && out.Reason == "":
			out.Reason = cond.Reason
		}
	}
	if out.Ready {
		out.Reason = ""
		return out
	}
	for _, st := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		if st.Ready {
			continue
		}
		switch {
		case st.State.Waiting != nil && st.State.Waiting.Reason != "":
			out.Reason = st.State.Waiting.Reason
		case st.LastTerminationState.Terminated != nil && st.LastTerminationState.Terminated.Reason != "":
			out.Reason = st.LastTerminationState.Terminated.Reason
		default:
			continue
		}
		break
	}
	return out
}
