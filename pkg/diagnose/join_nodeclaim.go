package diagnose

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Karpenter's NodeClaim condition types and the reason its conditions start with.
const (
	condLaunched      = "Launched"
	condRegistered    = "Registered"
	condTrue          = "True"
	condFalse         = "False"
	reasonAwaitingRec = "AwaitingReconciliation"
)

// registrationGrace is how long after its launch a NodeClaim may stay unregistered before
// nodeclaim-not-registered calls it a failure. An EKS-optimized AMI boots, runs nodeadm and
// registers its kubelet one to three minutes after the instance launches; five minutes, the
// same grace as a booting node's (bootGrace), leaves room for a slow boot and stays well
// inside Karpenter's 15-minute registration TTL (registrationTTL), so the finding comes while
// the instance can still be inspected.
const registrationGrace = bootGrace

// registrationTTL is Karpenter's registration timeout: it deletes a NodeClaim whose Registered
// condition has not turned True 15 minutes after its last transition (kubernetes-sigs/karpenter
// pkg/controllers/nodeclaim/lifecycle/liveness.go, registrationTimeout).
const registrationTTL = 15 * time.Minute

// launchTTL is Karpenter's launch timeout: it deletes a NodeClaim whose Launched condition is
// still not True 5 minutes after its last transition (liveness.go, LaunchTimeout).
const launchTTL = 5 * time.Minute

// ClaimInfo is one NodeClaim that has no Node, joined with its instance, subnet, NodePool,
// class and events. Pointers are nil when the object is unknown.
type ClaimInfo struct {
	Claim *snapshot.NodeClaim
	// Provider is the parsed status.providerID; ProviderErr says why it did not parse (empty
	// before the launch fills it in).
	Provider    ProviderID
	ProviderErr error
	// Unread is the gap of the claim's Region when EC2 could not be read there.
	Unread *snapshot.Gap

	Instance *snapshot.Instance
	Subnet   *snapshot.Subnet
	Pool     *snapshot.NodePool
	Class    *snapshot.EC2NodeClass
	// PoolName, ClassName and ClassKind are what the claim names, even when the objects were
	// not found.
	PoolName  string
	ClassName string
	ClassKind string

	// Events are the Events about the claim, oldest first.
	Events []snapshot.KubeEvent
	// Age is Snapshot.Taken less the claim's creation; zero when its creation is unknown.
	Age time.Duration
	// Status is one of the Claim* statuses.
	Status string
}

// Name returns the NodeClaim's name.
func (c *ClaimInfo) Name() string { return c.Claim.Name }

// Ref returns the claim's resource name, nodeclaim/NAME.
func (c *ClaimInfo) Ref() string { return "nodeclaim/" + c.Claim.Name }

// Condition returns the claim's condition of the given type, or nil.
func (c *ClaimInfo) Condition(conditionType string) *snapshot.Condition {
	return findCondition(c.Claim.Conditions, conditionType)
}

// Label names the claim for messages: "NodeClaim NAME (NodePool P, EC2NodeClass C)".
func (c *ClaimInfo) Label() string {
	var of []string
	if c.PoolName != "" {
		of = append(of, "NodePool "+c.PoolName)
	}
	if c.ClassName != "" {
		of = append(of, c.ClassKind+" "+c.ClassName)
	}
	if len(of) == 0 {
		return "NodeClaim " + c.Claim.Name
	}
	return "NodeClaim " + c.Claim.Name + " (" + strings.Join(of, ", ") + ")"
}

// LastEvent returns the claim's newest event, nil when it has none.
func (c *ClaimInfo) LastEvent() *snapshot.KubeEvent {
	if len(c.Events) == 0 {
		return nil
	}
	return &c.Events[len(c.Events)-1]
}

// launcher names what launched the claim: Karpenter, or EKS Auto Mode.
// windows reports whether the claim's class launches Windows instances (its amiFamily).
func (c *ClaimInfo) windows() bool {
	return c.Class != nil && strings.HasPrefix(strings.ToLower(c.Class.AMIFamily), "windows")
}

func (c *ClaimInfo) launcher() string { return launcherName(c.ClassKind == snapshot.KindNodeClass) }

// joinClaims returns the NodeClaims that no Node answers to, sorted by name: no Node is named
// like the claim's status.nodeName, none has its status.providerID, and the index joined none
// to it.
func (x *Index) joinClaims() []*ClaimInfo {
	s := x.Snapshot
	joined := map[*snapshot.NodeClaim]bool{}
	names := map[string]bool{}
	providers := map[string]bool{}
	for _, n := range x.Nodes {
		if n.Claim != nil {
			joined[n.Claim] = true
		}
		names[n.Name()] = true
		if id := n.Node.Spec.ProviderID; id != "" {
			providers[id] = true
		}
	}
	events := map[string][]snapshot.KubeEvent{}
	for _, e := range s.Events {
		if e.Kind == "NodeClaim" {
			events[e.Name] = append(events[e.Name], e)
		}
	}
	var out []*ClaimInfo
	for i := range s.NodeClaims {
		c := &s.NodeClaims[i]
		if joined[c] || c.NodeName != "" && names[c.NodeName] || c.ProviderID != "" && providers[c.ProviderID] {
			continue
		}
		out = append(out, x.claimInfo(c, events[c.Name]))
	}
	slices.SortFunc(out, func(a, b *ClaimInfo) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// claimInfo joins one NodeClaim without a Node and decides its status.
func (x *Index) claimInfo(c *snapshot.NodeClaim, events []snapshot.KubeEvent) *ClaimInfo {
	ci := &ClaimInfo{Claim: c, PoolName: c.NodePool(), ClassName: c.NodeClassRef.Name}
	ci.Events = slices.Clone(events)
	slices.SortStableFunc(ci.Events, func(a, b snapshot.KubeEvent) int { return a.Last.Compare(b.Last) })
	ci.Pool = x.NodePools[ci.PoolName]
	ci.ClassKind = cmp.Or(refKind(c.NodeClassRef), snapshot.KindEC2NodeClass)
	if ci.ClassName == "" && ci.Pool != nil {
		ci.ClassName = ci.Pool.NodeClassRef.Name
		ci.ClassKind = cmp.Or(refKind(ci.Pool.NodeClassRef), snapshot.KindEC2NodeClass)
	}
	if ci.ClassName != "" {
		ci.Class = x.NodeClass(ci.ClassKind, ci.ClassName)
	}
	ci.Provider, ci.ProviderErr = ParseProviderID(c.ProviderID)
	if ci.ProviderErr == nil {
		ci.Unread = x.Snapshot.ZoneGap(ci.Provider.Zone)
		ci.Instance = x.Instances[ci.Provider.InstanceID]
	}
	if ci.Instance != nil {
		ci.Subnet = x.Subnets[ci.Instance.SubnetID]
	}
	if !c.Created.IsZero() {
		ci.Age = x.Snapshot.Taken.Sub(c.Created)
	}
	ci.Status = x.claimStatus(ci)
	return ci
}

// claimStatus decides the status of a NodeClaim without a Node.
func (x *Index) claimStatus(c *ClaimInfo) string {
	launched, registered := c.Condition(condLaunched), c.Condition(condRegistered)
	switch {
	case !c.Claim.Deleting.IsZero():
		return ClaimDeleting
	case launchFailed(launched):
		return ClaimLaunchFailed
	case launched == nil || launched.Status != condTrue:
		return ClaimLaunching
	case registered != nil && registered.Status == condTrue:
		return ClaimNodeDeleted
	case x.sinceLaunch(c) >= registrationGrace || instanceEnded(c):
		return ClaimNotRegistered
	}
	return ClaimRegistering
}

// launchFailed reports whether a Launched condition records a failed launch: False, or
// Unknown with a reason other than the initial one.
func launchFailed(launched *snapshot.Condition) bool {
	if launched == nil {
		return false
	}
	switch launched.Status {
	case condFalse:
		return true
	case condTrue:
		return false
	}
	return launched.Reason != "" && launched.Reason != reasonAwaitingRec
}

// launchedAt returns when the claim launched: its Launched=True transition, else its
// creation; zero when neither is known.
func launchedAt(c *ClaimInfo) time.Time {
	if l := c.Condition(condLaunched); l != nil && l.Status == condTrue && !l.LastTransitionTime.IsZero() {
		return l.LastTransitionTime
	}
	return c.Claim.Created
}

// sinceLaunch returns how long ago the claim launched, 0 when that is unknown.
func (x *Index) sinceLaunch(c *ClaimInfo) time.Duration {
	at := launchedAt(c)
	if at.IsZero() {
		return 0
	}
	return max(x.Snapshot.Taken.Sub(at), 0)
}

// instanceEnded reports whether the claim's instance is known to be shutting down or
// terminated. An instance DescribeInstances did not return is unknown, not gone: collection
// may not have asked for it.
func instanceEnded(c *ClaimInfo) bool {
	return c.Instance != nil && (c.Instance.State == "shutting-down" || c.Instance.State == "terminated")
}

// registrationDeadline returns when Karpenter deletes an unregistered claim: 15 minutes after
// its Registered condition's last transition, else after its creation; zero when unknown.
func registrationDeadline(c *ClaimInfo) time.Time {
	if r := c.Condition(condRegistered); r != nil && !r.LastTransitionTime.IsZero() {
		return r.LastTransitionTime.Add(registrationTTL)
	}
	if c.Claim.Created.IsZero() {
		return time.Time{}
	}
	return c.Claim.Created.Add(registrationTTL)
}
