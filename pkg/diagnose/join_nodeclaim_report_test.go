package diagnose

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestReportNodeClaims(t *testing.T) {
	s := edited(healthy(), unjoined(7*time.Minute, true, cond(condLaunched, "True", "", "", 7*time.Minute),
		registeredUnknown(7*time.Minute)))
	r := Analyze(s, Options{})
	if len(r.NodeClaims) != 1 {
		t.Fatalf("got %d NodeClaim reports, want 1", len(r.NodeClaims))
	}
	got := r.NodeClaims[0]
	if got.Name != claimB || got.Status != ClaimNotRegistered || got.NodePool != "default" || got.NodeClass != "default" ||
		got.AgeSeconds != 420 || got.Instance == nil || got.Instance.ID != instanceClaim || got.Instance.SubnetID != subnetA ||
		got.Instance.PrivateIP != "10.0.1.50" || len(got.Conditions) != 2 {
		t.Errorf("NodeClaim report = %+v", got)
	}
	if len(got.Findings) != 1 || got.Findings[0].ID != nodeClaimNotRegistered.ID {
		t.Errorf("findings = %+v, want the nodeclaim-not-registered finding", got.Findings)
	}
	want := Summary{Listed: 1, Statuses: statuses(map[string]int{StatusOK: 1}), Nodes: 1, Clean: 1,
		NodeClaimsWithoutNode: 1, NodeClaimsNotJoined: 1, NodeClaimsByStatus: map[string]int{ClaimNotRegistered: 1},
		Findings: map[string]int{"info": 0, "warning": 0, "critical": 1}}
	if diff := cmp.Diff(want, r.Summary); diff != "" {
		t.Errorf("summary mismatch (-want +got):\n%s", diff)
	}

	// A selection of nodes leaves the claim out unless its NodePool is selected.
	if r := Analyze(s, Options{Nodes: map[string]bool{nodeA: true}}); len(r.NodeClaims) != 0 || r.Summary.NodeClaimsWithoutNode != 0 {
		t.Errorf("node selection: got NodeClaims %+v, want none", r.NodeClaims)
	}
	r = Analyze(s, Options{Nodes: map[string]bool{nodeA: true}, Resources: map[string]bool{"nodepool/default": true}})
	if len(r.NodeClaims) != 1 || len(r.NodeClaims[0].Findings) != 1 {
		t.Errorf("--nodepool default: got NodeClaims %+v, want %s with its finding", r.NodeClaims, claimB)
	}
}

func TestReportWithoutNodeClaimsKeepsItsJSON(t *testing.T) {
	b, err := json.Marshal(Analyze(healthy(), Options{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"nodeClaims"`, `"nodeClaimsWithoutNode"`, `"nodeClaimsNotJoined"`} {
		if strings.Contains(string(b), key) {
			t.Errorf("a report without NodeClaims lacking a Node carries %s:\n%s", key, b)
		}
	}
}

func TestReportNodeClaimsWorstFirst(t *testing.T) {
	s := edited(healthy(), unjoined(10*time.Second, false))
	s.NodeClaims = append(s.NodeClaims, snapshot.NodeClaim{Name: "zz-failed", Labels: map[string]string{snapshot.LabelNodePool: "default"},
		Conditions: []snapshot.Condition{launchErr("LaunchFailed", "boom")}, Created: joinTaken().Add(-time.Minute)})
	r := Analyze(s, Options{})
	var names []string
	for _, c := range r.NodeClaims {
		names = append(names, c.Name+"="+c.Status)
	}
	if diff := cmp.Diff([]string{"zz-failed=launch failed", claimB + "=launching"}, names); diff != "" {
		t.Errorf("order mismatch (-want +got):\n%s", diff)
	}
}

func TestReportNodeClaimWayOut(t *testing.T) {
	notRegistered := unjoined(7*time.Minute, true, cond(condLaunched, "True", "", "", 7*time.Minute),
		registeredUnknown(7*time.Minute))
	t.Run("nil without route tables", func(t *testing.T) {
		r := Analyze(edited(healthy(), notRegistered), Options{})
		if len(r.NodeClaims) != 1 || r.NodeClaims[0].WayOut != nil {
			t.Errorf("got NodeClaims %+v, want one without a way out", r.NodeClaims)
		}
	})
	t.Run("the instance subnet's route and ACL", func(t *testing.T) {
		r := Analyze(edited(healthy(), edits(notRegistered, withNATPath)), Options{})
		if len(r.NodeClaims) != 1 {
			t.Fatalf("got %d NodeClaim reports, want 1", len(r.NodeClaims))
		}
		want := &wayout.WayOut{SubnetID: subnetA, RouteTable: tableMain, MainTable: true, Verdict: wayout.WayOutRoute,
			Reason:        "route 0.0.0.0/0 -> " + natA + " (" + natNote + ")",
			DefaultRoutes: []wayout.DefaultRoute{{Destination: "0.0.0.0/0", Target: natA, Kind: wayout.RouteNAT, Usable: true, Note: natNote}},
			NetworkACL:    aclA, NACLVerdict: wayout.NACLAllows}
		got := r.NodeClaims[0].WayOut
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(wayout.WayOut{}), cmpopts.IgnoreFields(wayout.WayOut{}, "NACLReason")); diff != "" {
			t.Errorf("way out (-want +got):\n%s", diff)
		}
	})
}
