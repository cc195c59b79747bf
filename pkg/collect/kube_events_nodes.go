package collect

import (
	"cmp"
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeNodeAgentEvents lists, from the watch cache, the Events about Nodes with reason
// NetworkingReady, which the EKS node monitoring agent writes, and keeps those of the nodes
// read whose message names a network allowance the instance went over. A cluster without the
// agent has none: that is no gap. When an earlier list of events failed, events are not listed
// again.
func (c *Collector) kubeNodeAgentEvents(ctx context.Context, s *snapshot.Snapshot, _ Scope) error {
	if s.Unavailable(snapshot.SourceEvents) {
		return nil
	}
	read := make(map[string]bool, len(s.Nodes))
	for i := range s.Nodes {
		read[s.Nodes[i].Name] = true
	}
	selector := fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.kind", "Node"),
		fields.OneTermEqualSelector("reason", snapshot.ConditionNetworkingReady),
	)
	var out []snapshot.KubeEvent
	err := c.kubeListEvents(ctx, selector, func(ev *corev1.Event) {
		if ev.InvolvedObject.Kind != "Node" || ev.Reason != snapshot.ConditionNetworkingReady ||
			!read[ev.InvolvedObject.Name] || snapshot.Allowance(ev.Message) == "" {
			return
		}
		e := kubeDecodeKarpenterEvent(ev)
		e.First = kubeEventFirst(ev, e.Last)
		out = append(out, e)
	})
	if err != nil {
		return c.kubeFail(s, snapshot.SourceEvents, "list", "events (core, all namespaces)", err)
	}
	slices.SortFunc(out, func(a, b snapshot.KubeEvent) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), a.First.Compare(b.First), cmp.Compare(a.Message, b.Message))
	})
	s.NodeEvents = out
	return nil
}

// kubeEventFirst returns when an event first happened, in UTC: firstTimestamp, else
// eventTime, else last.
func kubeEventFirst(ev *corev1.Event, last time.Time) time.Time {
	switch {
	case !ev.FirstTimestamp.IsZero():
		return ev.FirstTimestamp.UTC()
	case !ev.EventTime.IsZero():
		return ev.EventTime.UTC()
	}
	return last
}
