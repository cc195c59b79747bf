package collect

import (
	"cmp"
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeSandboxReason is the kubelet event reason for a pod whose network could not be set up.
const kubeSandboxReason = "FailedCreatePodSandBox"

// kubeSandboxFailures lists FailedCreatePodSandBox events in every namespace from the API
// server's watch cache (resourceVersion "0", one response however many pods failed; paged
// should the server answer from etcd). When the scope is narrowed to some nodes, only events
// of those nodes are kept.
func (c *Collector) kubeSandboxFailures(ctx context.Context, s *snapshot.Snapshot, scope Scope) error {
	var keep map[string]bool
	if len(scope.Names) > 0 || scope.Selector != "" || len(scope.OrSelectors) > 0 {
		keep = make(map[string]bool, len(s.Nodes))
		for i := range s.Nodes {
			keep[s.Nodes[i].Name] = true
		}
	}
	var out []snapshot.SandboxFailure
	err := c.kubeListEvents(ctx, fields.OneTermEqualSelector("reason", kubeSandboxReason), func(ev *corev1.Event) {
		if ev.Reason != kubeSandboxReason {
			return
		}
		if f := kubeDecodeSandboxEvent(ev); f.Node != "" && (keep == nil || keep[f.Node]) {
			out = append(out, f)
		}
	})
	if err != nil {
		return c.kubeFail(s, snapshot.SourceEvents, "list", "events (core, all namespaces)", err)
	}
	slices.SortFunc(out, func(a, b snapshot.SandboxFailure) int {
		return cmp.Or(
			cmp.Compare(a.Node, b.Node),
			cmp.Compare(a.Namespace, b.Namespace),
			cmp.Compare(a.Pod, b.Pod),
			a.LastSeen.Compare(b.LastSeen),
			cmp.Compare(a.Message, b.Message),
		)
	})
	s.SandboxFailures = out
	return nil
}

// kubeDecodeSandboxEvent maps an event to the node it happened on, its pod, and how often and
// when it was last seen.
func kubeDecodeSandboxEvent(ev *corev1.Event) snapshot.SandboxFailure {
	f := snapshot.SandboxFailure{
		Node:      ev.Source.Host,
		Namespace: ev.InvolvedObject.Namespace,
		Pod:       ev.InvolvedObject.Name,
		Message:   ev.Message,
		Count:     ev.Count,
	}
	if f.Node == "" {
		f.Node = ev.ReportingInstance
	}
	if f.Namespace == "" {
		f.Namespace = ev.Namespace
	}
	f.Count, f.LastSeen = kubeEventCountAndLast(ev)
	switch first := ev.FirstTimestamp.Time; {
	case !first.IsZero():
		f.FirstSeen = first.UTC()
	case !ev.EventTime.IsZero():
		f.FirstSeen = ev.EventTime.UTC()
	}
	if !f.FirstSeen.IsZero() && f.FirstSeen.After(f.LastSeen) {
		f.FirstSeen = f.LastSeen
	}
	return f
}

// kubeListEvents lists the events of every namespace that selector picks from the API
// server's watch cache (resourceVersion "0", one response however many there are; paged
// should the server answer from etcd) and visits each. A server may ignore the selector, so
// the visit checks what it reads.
func (c *Collector) kubeListEvents(ctx context.Context, selector fields.Selector, visit func(*corev1.Event)) error {
	text := selector.String()
	return kubePaginate(metav1.ListOptions{Limit: c.kubePageSize(), ResourceVersion: "0"}, func(opts metav1.ListOptions) (string, error) {
		opts.FieldSelector = text
		list, err := c.Kube.CoreV1().Events(metav1.NamespaceAll).List(ctx, opts)
		if err != nil {
			return "", err
		}
		for i := range list.Items {
			visit(&list.Items[i])
		}
		return list.Continue, nil
	})
}
