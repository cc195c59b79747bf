package collect

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestCollectEC2AnswersThatAreNotEC2 answers DescribeInstances with what a captive portal, a
// proxy or a broken endpoint sends: none of it reads as "no instance" (which would make every
// node instance-not-found), each is a gap that says what came.
func TestCollectEC2AnswersThatAreNotEC2(t *testing.T) {
	const portal = "<!DOCTYPE html>\n<html><body>\x1b[2JSign in to the guest network</body></html>"
	for _, tc := range []struct {
		name       string
		fault      func(*ec2sim.Server)
		source     string
		reason     string
		otherCalls bool // whether the second round of calls is made
	}{
		{"captive portal", func(s *ec2sim.Server) { s.SetBody(ec2sim.DescribeInstances, http.StatusOK, "text/html", portal) },
			snapshot.SourceEC2, `HTTP 200 from the EC2 endpoint, text/html, not a DescribeInstances answer: "<!DOCTYPE html> <html><body>\x1b[2JSign in`, false},
		{"empty success", func(s *ec2sim.Server) { s.SetBody(ec2sim.DescribeInstances, http.StatusOK, "text/xml", "") },
			snapshot.SourceEC2, "HTTP 200 from the EC2 endpoint, text/xml, not a DescribeInstances answer: an empty body", false},
		{"proxy error page", func(s *ec2sim.Server) {
			s.SetBody(ec2sim.DescribeInstances, http.StatusBadGateway, "text/html", "<html><body>502 Bad Gateway</body></html>")
		}, snapshot.SourceDescribeInstances, `HTTP 502 from the EC2 endpoint, text/html, not EC2's XML: "<html><body>502 Bad Gateway</body></html>"`, true},
		{"a million instances nobody asked for", func(s *ec2sim.Server) { s.SetExtraInstances(1_000_000) },
			snapshot.SourceDescribeInstances, "the EC2 endpoint's answer to DescribeInstances is longer than 64 MiB, the most karpnet reads", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newEC2World(t, 2)
			tc.fault(w.sim)
			start := time.Now()
			(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
			if d := time.Since(start); d > 2*time.Minute {
				t.Errorf("collection took %s, want the answer cut at ec2MaxAnswer (about 3 s; 10 times that with -race)", d)
			}
			if len(w.snap.Instances) != 0 {
				t.Errorf("instances: got %d, want none read from such an answer", len(w.snap.Instances))
			}
			var gap *snapshot.Gap
			for i := range w.snap.Gaps {
				if w.snap.Gaps[i].Source == tc.source {
					gap = &w.snap.Gaps[i]
				}
			}
			if gap == nil || !strings.Contains(gap.Reason, tc.reason) {
				t.Fatalf("gaps %+v: want one for %s with a reason containing %q", w.snap.Gaps, tc.source, tc.reason)
			}
			if strings.ContainsAny(gap.Reason+gap.Remedy, "\x1b\n") || !strings.Contains(gap.Remedy, "AWS_ENDPOINT_URL_EC2") {
				t.Errorf("gap %+v: want one line, control characters escaped, naming AWS_ENDPOINT_URL_EC2", *gap)
			}
			if got := w.sim.Total() > w.sim.Count(ec2sim.DescribeInstances); got != tc.otherCalls {
				t.Errorf("other calls made: got %v, want %v (%v)", got, tc.otherCalls, w.sim.Counts())
			}
		})
	}
}

// TestCollectEC2KeepsOnlyInstancesAskedFor answers every DescribeInstances with instances no
// filter selected: only the nodes' instances are kept.
func TestCollectEC2KeepsOnlyInstancesAskedFor(t *testing.T) {
	w := newEC2World(t, 2)
	w.sim.SetExtraInstances(500)
	(&Collector{EC2: ec2sim.NewClient(w.url, "us-west-2")}).collectEC2(t.Context(), w.snap)
	if len(w.snap.Gaps) != 0 {
		t.Errorf("gaps %+v, want none", w.snap.Gaps)
	}
	var ids []string
	for _, in := range w.snap.Instances {
		ids = append(ids, in.ID)
	}
	if want := []string{ec2InstanceID(0), ec2InstanceID(1)}; strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("instances: got %v, want only %v", ids, want)
	}
}

// ec2HeavyInstance is instance i with enis interfaces of ips addresses each, tagged and in two
// security groups as Karpenter's nodes are.
func ec2HeavyInstance(i, enis, ips int) snapshot.Instance {
	groups := []snapshot.GroupRef{{ID: "sg-0a1b2c3d4e5f60c01", Name: "eks-cluster-sg-prod"}, {ID: "sg-0a1b2c3d4e5f60c02", Name: "prod-node"}}
	in := snapshot.Instance{ID: ec2InstanceID(i), Type: "c5.24xlarge", State: "running", Zone: "us-west-2a", ZoneID: "usw2-az1",
		VpcID: "vpc-0a1b2c3d4e5f60000", SubnetID: "subnet-0a1b2c3d4e5f60a01", PrivateIP: "10.0.1.10", SecurityGroups: groups,
		Tags: map[string]string{"Name": "prod-general", "karpenter.sh/nodepool": "general", "karpenter.k8s.aws/ec2nodeclass": "default",
			"karpenter.sh/nodeclaim": "general-x7k2p", "eks:eks-cluster-name": "prod"}}
	for e := range enis {
		eni := snapshot.ENI{ID: fmt.Sprintf("eni-%013x%04x", i, e), InterfaceType: "interface", DeviceIndex: int32(e),
			SubnetID: in.SubnetID, SecurityGroups: groups, Status: "in-use"}
		for p := range ips {
			n := i*enis*ips + e*ips + p
			eni.PrivateIPs = append(eni.PrivateIPs, fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255))
		}
		eni.PrimaryIP = eni.PrivateIPs[0]
		in.ENIs = append(in.ENIs, eni)
	}
	return in
}

// TestEC2MaxAnswerFitsLargeNodes describes a full batch of 200 of the largest nodes there are
// for IP addresses (15 ENIs of 50 addresses, a c5.24xlarge full of pods), 14.3 MiB in EC2's
// XML: it is read whole, well within ec2MaxAnswer.
func TestEC2MaxAnswerFitsLargeNodes(t *testing.T) {
	sim := ec2sim.New()
	var ids []string
	for i := range ec2FilterBatch {
		sim.AddInstances(ec2HeavyInstance(i, 15, 50))
		ids = append(ids, ec2InstanceID(i))
	}
	call := ec2Call{api: ec2sim.NewClient(sim.Start(t), "us-west-2"), region: "us-west-2"}
	out, err := call.instances(t.Context(), ids)
	if err != nil || len(out) != ec2FilterBatch {
		t.Fatalf("got %d instances, %v; want all %d", len(out), err, ec2FilterBatch)
	}
	if got := len(out[199].ENIs[14].PrivateIPs); got != 50 {
		t.Errorf("addresses of the last ENI: got %d, want 50", got)
	}
}
