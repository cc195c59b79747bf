package collect

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeEventsPerObject is how many Events karpnet keeps about one NodeClaim or NodePool: the
// newest. Karpenter repeats the same launch or registration event on every retry (the API
// server folds repeats into a count), so ten tell the story of one object.
const kubeEventsPerObject = 10

// kubeKarpenterEvents lists the Events about NodeClaims and NodePools in every namespace from
// the API server's watch cache (resourceVersion "0", paged should the server answer from
// etcd), keeps the newest kubeEventsPerObject of each object and sorts them by kind, name
// and time, newest last. A list that fails is a gap on SourceEvents, once: when the sandbox
// failures' list of events already failed, events are not listed again.
func (c *Collector) kubeKarpenterEvents(ctx context.Context, s *snapshot.Snapshot, _ Scope) error {
	if s.Unavailable(snapshot.SourceEvents) {
		return nil
	}
	byObject := map[[2]string][]snapshot.KubeEvent{}
	// One list per kind: a field selector cannot say "this kind or that".
	for _, kind := range []string{"NodeClaim", "NodePool"} {
		err := c.kubeListEvents(ctx, fields.OneTermEqualSelector("involvedObject.kind", kind), func(ev *corev1.Event) {
			if ev.InvolvedObject.Kind != kind || !kubeIsKarpenterObject(ev.InvolvedObject.APIVersion) {
				return
			}
			e := kubeDecodeKarpenterEvent(ev)
			key := [2]string{e.Kind, e.Name}
			byObject[key] = kubeKeepNewest(append(byObject[key], e))
		})
		if err != nil {
			return c.kubeFail(s, snapshot.SourceEvents, "list", "events (core, all namespaces)", err)
		}
	}
	var out []snapshot.KubeEvent
	for _, evs := range byObject {
		out = append(out, kubeNewest(evs)...)
	}
	slices.SortFunc(out, kubeCompareEvents)
	s.Events = out
	return nil
}

// kubeIsKarpenterObject reports whether an involved object's apiVersion is Karpenter's (or
// not given, as some recorders leave it).
func kubeIsKarpenterObject(apiVersion string) bool {
	return apiVersion == "" || strings.HasPrefix(apiVersion, snapshot.KarpenterGroup+"/")
}

// kubeKeepNewest drops the oldest of one object's events once they reach twice
// kubeEventsPerObject, keeping the newest kubeEventsPerObject (sorted), so that an object
// with many events costs a sort every kubeEventsPerObject events, not every event.
func kubeKeepNewest(evs []snapshot.KubeEvent) []snapshot.KubeEvent {
	if len(evs) < 2*kubeEventsPerObject {
		return evs
	}
	return kubeNewest(evs)
}

// kubeNewest sorts one object's events and keeps the newest kubeEventsPerObject.
func kubeNewest(evs []snapshot.KubeEvent) []snapshot.KubeEvent {
	slices.SortFunc(evs, kubeCompareEvents)
	if n := len(evs) - kubeEventsPerObject; n > 0 {
		evs = append(evs[:0], evs[n:]...)
	}
	return evs
}

// kubeCompareEvents orders events by object, then time (oldest first), then content.
func kubeCompareEvents(a, b snapshot.KubeEvent) int {
	return cmp.Or(
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Name, b.Name),
		a.Last.Compare(b.Last),
		cmp.Compare(a.Reason, b.Reason),
		cmp.Compare(a.Type, b.Type),
		cmp.Compare(a.Message, b.Message),
		cmp.Compare(a.Count, b.Count),
	)
}

// kubeDecodeKarpenterEvent keeps an event's object, type, reason, message, count (the
// series' when larger) and when it last happened: lastTimestamp, else eventTime, else
// firstTimestamp, or the series' lastObservedTime when later.
func kubeDecodeKarpenterEvent(ev *corev1.Event) snapshot.KubeEvent {
	e := snapshot.KubeEvent{
		Kind: ev.InvolvedObject.Kind, Name: ev.InvolvedObject.Name,
		Type: ev.Type, Reason: ev.Reason, Message: ev.Message, Count: ev.Count,
	}
	e.Count, e.Last = kubeEventCountAndLast(ev)
	return e
}

// kubeEventCountAndLast returns how often an event happened (the series' count when larger,
// at least 1) and when it last did, in UTC: lastTimestamp, else eventTime, else
// firstTimestamp, or the series' lastObservedTime when later; zero when none is set.
func kubeEventCountAndLast(ev *corev1.Event) (int32, time.Time) {
	count := ev.Count
	if ev.Series != nil && ev.Series.Count > count {
		count = ev.Series.Count
	}
	var last time.Time
	switch {
	case !ev.LastTimestamp.IsZero():
		last = ev.LastTimestamp.Time
	case !ev.EventTime.IsZero():
		last = ev.EventTime.Time
	case !ev.FirstTimestamp.IsZero():
		last = ev.FirstTimestamp.Time
	}
	if ev.Series != nil && ev.Series.LastObservedTime.After(last) {
		last = ev.Series.LastObservedTime.Time
	}
	if !last.IsZero() {
		last = last.UTC()
	}
	return max(count, 1), last
}
