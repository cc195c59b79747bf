package tui

import (
	"slices"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The NodeClaims without a Node that claimsSnapshot adds to the demo cluster.
const (
	tuiFailedClaim = "general-f4il3"
	tuiUnregClaim  = "general-h4k8s"
	tuiUnregID     = "i-0aaaabbbbccccdddd"
)

// claimsSnapshot is the demo cluster with two NodeClaims of NodePool general that have no
// Node (in place of the demo's own): one whose launch failed, one whose instance runs but
// never registered, in a subnet whose main route table has no default route.
func claimsSnapshot(tb testing.TB) *snapshot.Snapshot {
	tb.Helper()
	s, err := demo.Snapshot()
	if err != nil {
		tb.Fatalf("reading the demo snapshot: %v", err)
	}
	// The demo's own NodeClaim without a Node makes way for these two.
	s.NodeClaims = slices.DeleteFunc(s.NodeClaims, func(c snapshot.NodeClaim) bool { return c.NodeName == "" })
	var model *snapshot.Instance
	for i := range s.Instances {
		if s.Instances[i].SubnetID != "" && s.Instances[i].VpcID != "" {
			model = &s.Instances[i]
			break
		}
	}
	if model == nil {
		tb.Fatal("the demo has no instance to model the NodeClaim's on")
	}
	launched := s.Taken.Add(-12 * time.Minute)
	in := *model
	in.ID, in.PrivateIP, in.PublicIP, in.LaunchTime, in.ENIs = tuiUnregID, "10.0.9.99", "", launched, nil
	in.Tags = map[string]string{"karpenter.sh/nodeclaim": tuiUnregClaim, "karpenter.sh/nodepool": "general"}
	s.Instances = append(s.Instances, in)
	labels := map[string]string{snapshot.LabelNodePool: "general"}
	ref := snapshot.NodeClassRef{Group: "karpenter.k8s.aws", Kind: snapshot.KindEC2NodeClass, Name: "default"}
	s.NodeClaims = append(s.NodeClaims,
		snapshot.NodeClaim{Name: tuiFailedClaim, Labels: labels, NodeClassRef: ref, Created: s.Taken.Add(-3 * time.Minute),
			Conditions: []snapshot.Condition{{Type: "Launched", Status: "False", Reason: "InsufficientCapacityError",
				Message: "creating instance, insufficient capacity, InsufficientInstanceCapacity", LastTransitionTime: s.Taken.Add(-2 * time.Minute)}}},
		snapshot.NodeClaim{Name: tuiUnregClaim, Labels: labels, NodeClassRef: ref, Created: launched.Add(-10 * time.Second),
			ProviderID: "aws:///" + in.Zone + "/" + tuiUnregID,
			Conditions: []snapshot.Condition{
				{Type: "Launched", Status: "True", Reason: "Launched", LastTransitionTime: launched},
				{Type: "Registered", Status: "Unknown", Reason: "AwaitingReconciliation", LastTransitionTime: launched},
			}},
	)
	s.Events = append(s.Events, snapshot.KubeEvent{Kind: "NodeClaim", Name: tuiFailedClaim, Type: "Warning",
		Reason: "InsufficientCapacityError", Message: "NodeClaim " + tuiFailedClaim + " could not launch", Count: 2, Last: s.Taken.Add(-time.Minute)})
	// The demo's main route table loses its default route.
	for i := range s.RouteTables {
		if s.RouteTables[i].Main {
			s.RouteTables[i].ID = "rtb-0main0000000000001"
			s.RouteTables[i].Routes = []snapshot.Route{{Destination: "10.0.0.0/16", Target: "local", State: snapshot.RouteActive}}
		}
	}
	return s
}

// claimsReport analyses claimsSnapshot.
func claimsReport(tb testing.TB) diagnose.Report {
	tb.Helper()
	r := diagnose.Analyze(claimsSnapshot(tb), diagnose.Options{})
	if len(r.NodeClaims) != 2 {
		tb.Fatalf("got %d NodeClaims without a Node, want 2: %+v", len(r.NodeClaims), r.NodeClaims)
	}
	return r
}
