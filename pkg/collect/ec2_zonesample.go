package collect

import (
	"context"
	"sync"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// A filtered read's streams are planned at the first page of nodes from the zones of that
// page. The node list comes sorted by name, and EKS's node names (ip-10-0-1-2...) sort by
// address, so by subnet and zone: the first page is mostly one zone, and the read is then one
// stream. NodeClaims are named after their NodePool with a random suffix, so the first
// NodeClaims listed are a fair sample of the zones: when the NodeClaims are being listed
// meanwhile, the filtered read's streams wait a moment for their zones (ec2ZoneSampleSize, at
// most ec2ZoneSampleWait) and are planned from those. The node listing does not wait: the
// read is filtered from the first page on, and the nodes' IDs are held until it ends.
const (
	ec2ZoneSampleSize = 500
	ec2ZoneSampleWait = time.Second
)

// ec2ZoneSample counts the zones of the first NodeClaims listed (from their providerIDs).
// It is safe for concurrent use.
type ec2ZoneSample struct {
	mu    sync.Mutex
	zones map[string]int
	n     int
	ready chan struct{} // closed once ec2ZoneSampleSize are counted, or the list ended
	once  sync.Once
}

func newEC2ZoneSample() *ec2ZoneSample {
	return &ec2ZoneSample{zones: map[string]int{}, ready: make(chan struct{})}
}

// add counts the zone of a NodeClaim's providerID (none when it has none yet).
func (z *ec2ZoneSample) add(providerID string) {
	p, ok := snapshot.ParseProviderIDLeniently(providerID)
	if !ok {
		return
	}
	zone := p.Zone
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.n >= ec2ZoneSampleSize {
		return
	}
	z.zones[zone]++
	z.n++
	if z.n == ec2ZoneSampleSize {
		z.end()
	}
}

// end says the list ended (or failed): what was counted is the whole sample.
func (z *ec2ZoneSample) end() { z.once.Do(func() { close(z.ready) }) }

// wait returns the zones counted once the sample is complete, or what was counted by then
// when wait has passed or ctx ends first.
func (z *ec2ZoneSample) wait(ctx context.Context, wait time.Duration) map[string]int {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-z.ready:
	case <-t.C:
	case <-ctx.Done():
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	out := make(map[string]int, len(z.zones))
	for zone, n := range z.zones {
		out[zone] = n
	}
	return out
}
