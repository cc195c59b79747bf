package diagnose

import (
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Names of the NodeClaim without a Node the join cases add.
const (
	claimB        = "default-xk2p9"
	instanceClaim = "i-0fedcba9876543210"
)

// joinTaken is the healthy fixture's snapshot time.
func joinTaken() time.Time { return time.Date(2026, 8, 21, 12, 0, 0, 0, time.UTC) }

// unjoined returns an edit that adds NodeClaim claimB of NodePool default, created age ago,
// with the given conditions and, when providerID is set, its instance instanceClaim.
func unjoined(age time.Duration, providerID bool, conds ...snapshot.Condition) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		c := snapshot.NodeClaim{
			Name:         claimB,
			Labels:       map[string]string{snapshot.LabelNodePool: "default"},
			NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "default"},
			Conditions:   conds,
			Created:      joinTaken().Add(-age),
		}
		if providerID {
			c.ProviderID = "aws:///us-west-2a/" + instanceClaim
			in := instance(instanceClaim, "10.0.1.50")
			in.LaunchTime = joinTaken().Add(-age)
			s.Instances = append(s.Instances, in)
		}
		s.NodeClaims = append(s.NodeClaims, c)
	}
}

// cond returns a condition that last changed ago before the snapshot.
func cond(typ, status, reason, message string, ago time.Duration) snapshot.Condition {
	return snapshot.Condition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: joinTaken().Add(-ago)}
}

// claimEvent returns an edit that adds an event on claimB.
func claimEvent(reason, message string, ago time.Duration) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.Events = append(s.Events, snapshot.KubeEvent{Kind: "NodeClaim", Name: claimB, Type: "Warning",
			Reason: reason, Message: message, Count: 2, Last: joinTaken().Add(-ago)})
	}
}

// claimDeleting marks claimB as being deleted.
func claimDeleting(s *snapshot.Snapshot) {
	for i := range s.NodeClaims {
		if s.NodeClaims[i].Name == claimB {
			s.NodeClaims[i].Deleting = joinTaken().Add(-10 * time.Second)
		}
	}
}

func TestClaimStatus(t *testing.T) {
	awaiting := cond(condLaunched, "Unknown", reasonAwaitingRec, "object is awaiting reconciliation", 10*time.Second)
	cases := []struct {
		name string
		edit func(*snapshot.Snapshot)
		want string
	}{
		{"launching", unjoined(10*time.Second, false, awaiting), ClaimLaunching},
		{"no conditions yet", unjoined(time.Second, false), ClaimLaunching},
		{"launch failed", unjoined(time.Minute, false, cond(condLaunched, "Unknown", "LaunchFailed", "Instance launch failed", time.Minute)), ClaimLaunchFailed},
		{"launched False", unjoined(time.Minute, false, cond(condLaunched, "False", "", "", time.Minute)), ClaimLaunchFailed},
		{"registering", unjoined(30*time.Second, true, cond(condLaunched, "True", "", "", 30*time.Second)), ClaimRegistering},
		{"not registered", unjoined(6*time.Minute, true, cond(condLaunched, "True", "", "", 6*time.Minute)), ClaimNotRegistered},
		{"instance terminated", edits(unjoined(time.Minute, true, cond(condLaunched, "True", "", "", time.Minute)),
			func(s *snapshot.Snapshot) { s.Instances[len(s.Instances)-1].State = "terminated" }), ClaimNotRegistered},
		{"registered, node gone", unjoined(time.Hour, true, cond(condLaunched, "True", "", "", time.Hour),
			cond(condRegistered, "True", "", "", time.Hour)), ClaimNodeDeleted},
		{"deleting", edits(unjoined(time.Minute, false, cond(condLaunched, "Unknown", "LaunchFailed", "x", time.Minute)), claimDeleting), ClaimDeleting},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := NewIndex(edited(healthy(), tc.edit))
			if len(x.Claims) != 1 {
				t.Fatalf("got %d claims without a Node, want 1", len(x.Claims))
			}
			if got := x.Claims[0].Status; got != tc.want {
				t.Errorf("status = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestJoinClaimsSkipsClaimsWithANode(t *testing.T) {
	s := healthy()
	// The node answers to the claim by providerID only.
	s.NodeClaims[0].NodeName = ""
	s.NodeClaims = append(s.NodeClaims, snapshot.NodeClaim{Name: "other", NodeName: nodeA})
	x := NewIndex(s)
	if len(x.Claims) != 0 {
		t.Errorf("got claims without a Node %v, want none", x.Claims[0].Name())
	}
}

func TestNodeClaimEventsJoined(t *testing.T) {
	s := edited(healthy(), edits(unjoined(time.Minute, false),
		claimEvent("Late", "b", time.Second), claimEvent("Early", "a", time.Minute),
		func(s *snapshot.Snapshot) {
			s.Events = append(s.Events, snapshot.KubeEvent{Kind: "NodePool", Name: claimB, Reason: "Other"})
		}))
	x := NewIndex(s)
	got := x.Claims[0].Events
	if len(got) != 2 || got[0].Reason != "Early" || got[1].Reason != "Late" {
		t.Errorf("events = %+v, want Early then Late, the NodePool event left out", got)
	}
	if x.Claims[0].Age != time.Minute {
		t.Errorf("age = %s, want 1m", x.Claims[0].Age)
	}
}
