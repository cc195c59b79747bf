package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestHostileEC2AnswersThatAreNotEC2 runs check against an EC2 endpoint that answers with a
// captive portal's page, a proxy's HTML 500 or a million instances nobody asked for: each is a
// gap that says what came, and no node is reported instance-not-found, which needs a
// well-formed answer that lacks the instance.
func TestHostileEC2AnswersThatAreNotEC2(t *testing.T) {
	all := []string{ec2sim.DescribeInstances, ec2sim.DescribeSubnets, ec2sim.DescribeSecurityGroups,
		ec2sim.DescribePlacementGroups, ec2sim.DescribeInstanceTypes}
	for _, tc := range []struct {
		name   string
		fault  func(*ec2sim.Server)
		source string
		parts  []string
		bound  time.Duration
	}{
		{"captive portal", func(s *ec2sim.Server) {
			for _, a := range all {
				s.SetBody(a, http.StatusOK, "text/html", hostilePortal)
			}
		}, "ec2", []string{"HTTP 200 from the EC2 endpoint, text/html, not a DescribeInstances answer", `\x1b[2JSign in`,
			"AWS_ENDPOINT_URL_EC2", "captive portal"}, 10 * time.Second},
		{"proxy HTML 500", func(s *ec2sim.Server) {
			for _, a := range all {
				s.SetBody(a, http.StatusInternalServerError, "text/html", "<html><body>\x1b[31m500 Internal Server Error</body></html>")
			}
		}, "ec2:DescribeInstances", []string{`HTTP 500 from the EC2 endpoint, text/html, not EC2's XML: "<html><body>\x1b[31m500`,
			"AWS_ENDPOINT_URL_EC2"}, 10 * time.Second},
		{"a million instances", func(s *ec2sim.Server) { s.SetExtraInstances(1_000_000) },
			"ec2:DescribeInstances", []string{"longer than 64 MiB"}, 60 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostileCluster(t)
			tc.fault(h.EC2)
			r, took := h.run(t, "check", "-o", "json")
			wantCode(t, r, ExitOK)
			wantWithin(t, took, tc.bound)
			rep := decodeReport(t, r.stdout)
			g := wantGap(t, rep, tc.source, tc.parts...)
			if strings.Contains(g.Reason, "UnknownError") || strings.ContainsAny(g.Reason+g.Remedy, "\x1b\n") {
				t.Errorf("gap %+v: want what came, on one line with control characters escaped", g)
			}
			wantNoFinding(t, rep, "instance-not-found")
			if r.stderr != "" {
				t.Errorf("stderr: got %q, want nothing (no SDK warning either)", r.stderr)
			}
			h.wantReadOnly(t)
		})
	}
}

// TestHostileEC2KeepsOnlyInstancesAskedFor answers DescribeInstances with instances nobody asked
// for besides the nodes': the saved snapshot holds the nodes' instances only.
func TestHostileEC2KeepsOnlyInstancesAskedFor(t *testing.T) {
	h := newHostileCluster(t)
	h.EC2.SetExtraInstances(1000)
	file := filepath.Join(t.TempDir(), "snap.json")
	r, _ := h.run(t, "check", "--save-snapshot", file)
	wantCode(t, r, ExitOK)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := snapshot.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Instances) != 2 || len(s.Gaps) != 0 {
		t.Errorf("got %d instances and gaps %+v, want the 2 nodes' instances and no gap", len(s.Instances), s.Gaps)
	}
}

// TestHostileEC2RegionsThatFailStayTheirOwn adds to a cluster with a node whose instance is gone
// (a critical instance-not-found in us-west-2) one node in an invented Region and one in a Region
// the account has not enabled. Each of those Regions is a gap of its own and the critical
// finding stands (exit 1); before, one "ec2" gap hid it and check exited 0.
func TestHostileEC2RegionsThatFailStayTheirOwn(t *testing.T) {
	h := newHostileCluster(t)
	node := func(name, providerID string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Node",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"karpenter.sh/nodepool": "general"}},
			"spec":     map[string]any{"providerID": providerID}}
	}
	h.Kube.Add(node("gone", "aws:///us-west-2a/i-0a1b2c3d4e5f6ffff"))
	h.Kube.Add(node("bogus", "aws:///zz-bogus0-1a/i-0a1b2c3d4e5f6fffe"))
	h.Kube.Add(node("optin", "aws:///eu-south-2a/i-0a1b2c3d4e5f6fffd"))
	h.EC2.FailRegion("eu-south-2", "AuthFailure")
	r, _ := h.run(t, "check", "-o", "json")
	wantCode(t, r, ExitFindings)
	rep := decodeReport(t, r.stdout)
	regions := map[string]string{}
	for _, g := range rep.Gaps {
		if g.Region == "" {
			t.Errorf("gap %+v covers every Region", g)
		}
		regions[g.Region] = g.Reason
	}
	if !strings.HasPrefix(regions["zz-bogus0-1"], "zz-bogus0-1 is not a Region of any AWS partition") ||
		!strings.HasPrefix(regions["eu-south-2"], "AuthFailure") || len(regions) != 2 {
		t.Errorf("Region gaps %q: want zz-bogus0-1 invented and eu-south-2 refused", regions)
	}
	var notFound []string
	for _, f := range rep.Findings {
		if f.ID == "instance-not-found" {
			notFound = append(notFound, f.Node)
		}
	}
	if len(notFound) != 1 || notFound[0] != "gone" {
		t.Errorf("instance-not-found on %q, want on gone only", notFound)
	}
	if rep.Summary.Skipped != 2 {
		t.Errorf("%d nodes skipped, want the 2 of the Regions not read", rep.Summary.Skipped)
	}
	h.wantReadOnly(t)
}
