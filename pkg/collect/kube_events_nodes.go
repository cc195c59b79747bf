package collect

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeNodeAgentEvents lists, from the watch cache, the Events about Nodes with reason
// NetworkingReady, which the EKS node monitoring agent writes, and keeps the Warning ones of
// the nodes read whose message names a network allowance the instance went over, also behind
// client-go's "(combined from similar events): " prefix. Each keeps its type, its count (the
// events.k8s.io series' count when larger) and when it first and last happened, first never
// after last. The newest kubeEventsPerObject of each node are kept, as of Karpenter's objects,
// and a note says how many older ones were left out. A cluster without the agent has none:
// that is no gap. When an earlier list of events failed, events are not listed again.
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
	byNode := map[string][]snapshot.KubeEvent{}
	seen := map[string]int{}
	err := c.kubeListEvents(ctx, selector, func(ev *corev1.Event) {
		if ev.InvolvedObject.Kind != "Node" || ev.Reason != snapshot.ConditionNetworkingReady || ev.Type != corev1.EventTypeWarning ||
			!read[ev.InvolvedObject.Name] || snapshot.Allowance(ev.Message) == "" {
			return
		}
		e := kubeDecodeKarpenterEvent(ev)
		e.First = kubeEventFirst(ev, e.Last)
		seen[e.Name]++
		byNode[e.Name] = kubeKeepNewest(append(byNode[e.Name], e))
	})
	if err != nil {
		return c.kubeFail(s, snapshot.SourceEvents, "list", "events (core, all namespaces)", err)
	}
	var out []snapshot.KubeEvent
	cut, cutNodes := 0, 0
	for name, evs := range byNode {
		evs = kubeNewest(evs)
		if n := seen[name] - len(evs); n > 0 {
			cut += n
			cutNodes++
		}
		out = append(out, evs...)
	}
	if cut > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("events: %d older NetworkingReady events about %d %s were left out; karpnet keeps "+
			"the newest %d of each node", cut, cutNodes, kubePlural(cutNodes, "node", "nodes"), kubeEventsPerObject))
	}
	slices.SortFunc(out, func(a, b snapshot.KubeEvent) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), a.First.Compare(b.First), cmp.Compare(a.Message, b.Message))
	})
	s.NodeEvents = out
	return nil
}

// kubeEventFirst returns when an event first happened, in UTC: firstTimestamp, else
// eventTime (an events.k8s.io event's first occurrence), else last; never after last, which
// a writer's clock or a series' lastObservedTime can otherwise make it.
func kubeEventFirst(ev *corev1.Event, last time.Time) time.Time {
	first := last
	switch {
	case !ev.FirstTimestamp.IsZero():
		first = ev.FirstTimestamp.UTC()
	case !ev.EventTime.IsZero():
		first = ev.EventTime.UTC()
	}
	if !last.IsZero() && first.After(last) {
		return last
	}
	return first
}

// kubePlural returns one when n is 1, else many.
func kubePlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
