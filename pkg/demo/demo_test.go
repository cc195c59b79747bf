package demo_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// finding is the part of a diagnose.Finding that identifies it.
type finding struct {
	ID       string
	Severity string
	Node     string
	Resource string
}

// TestAnalyze checks that karpnet finds exactly the faults planted in the demo cluster and
// that every other node is clean.
func TestAnalyze(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r := diagnose.Analyze(s, diagnose.Options{})

	const (
		terminated = "ip-10-0-15-186.us-west-2.compute.internal" // general, instance terminated
		missing    = "ip-10-0-19-98.us-west-2.compute.internal"  // general, instance not returned
		xenMaxPods = "ip-10-0-50-20.us-west-2.compute.internal"  // batch m4.large, maxPods 110
		typeLabel  = "ip-10-0-16-33.us-west-2.compute.internal"  // general, label m5.xlarge on m5.2xlarge
		extraSG    = "ip-10-0-15-126.us-west-2.compute.internal" // general, debug SG attached by hand
		legacy     = "ip-10-0-59-16.us-west-2.compute.internal"  // general, in the untagged legacy subnet
		podsFull   = "subnet/subnet-0c8ae009df552f60f"           // pod subnet us-west-2b, 12 free
		batchLow   = "subnet/subnet-02720e173c311fcb4"           // batch us-west-2a, 4 free
		defaultNC  = "ec2nodeclass/default"
		stagingNC  = "ec2nodeclass/staging"                      // SubnetsReady=False
		training1  = "ip-10-0-64-138.us-west-2.compute.internal" // efa class: no kubelet.maxPods with PD
		training2  = "ip-10-0-64-178.us-west-2.compute.internal"
		autoNoPods = "i-0aabd605ffdb17f34" // Auto Mode web node in us-west-2c, no pod subnet there
		webNC      = "nodeclass/web"
		unjoined   = "nodeclaim/batch-szxd6"           // batch us-west-2c, launched into the isolated subnet
		isolated   = "subnet/subnet-0714a16d895e97a48" // batch us-west-2c: its route table lost the default route
		leaked     = "instance/i-078e49eb08986dce8"    // batch instance no NodeClaim names
		fragmented = "subnet/subnet-0ffd6a39ba6f48905" // pod subnet us-west-2c: another cluster's IPs in every /28
		leakedENI1 = "eni/eni-0239ee3152f11eb73"       // pod ENIs of a node terminated 9 days ago
		leakedENI2 = "eni/eni-05bb9370a3105d348"
		nodeRef    = "node/"
		critical   = "critical"
		warning    = "warning"
		info       = "info"
	)
	want := []finding{
		{"instance-not-found", critical, missing, nodeRef + missing},
		{"instance-not-running", critical, terminated, nodeRef + terminated},
		{"max-pods-exceeds-ip-capacity", critical, xenMaxPods, nodeRef + xenMaxPods},
		{"nodeclaim-not-registered", critical, "", unjoined},
		{"nodeclass-not-ready", critical, "", stagingNC},
		{"nodepool-registration-unhealthy", critical, "", "nodepool/batch"},
		{"pod-ip-allocation-failures", critical, xenMaxPods, nodeRef + xenMaxPods},
		{"pod-subnet-zone-missing", critical, autoNoPods, webNC},
		{"subnet-ip-exhaustion", critical, "", podsFull},
		{"subnet-no-egress-route", critical, "", isolated},
		{"subnet-prefix-fragmented", critical, "", fragmented},
		{"eni-leaked", warning, "", leakedENI1},
		{"eni-leaked", warning, "", leakedENI2},
		{"instance-orphaned", warning, "", leaked},
		{"instance-type-mismatch", warning, typeLabel, nodeRef + typeLabel},
		{"network-policy-not-enforced", warning, "", "daemonset/kube-system/aws-node"},
		{"security-group-drift", warning, extraSG, defaultNC},
		{"subnet-ip-exhaustion", warning, "", batchLow},
		{"subnet-not-selected", warning, legacy, defaultNC},
		{"max-pods-below-ip-capacity", info, training1, nodeRef + training1},
		{"max-pods-below-ip-capacity", info, training2, nodeRef + training2},
		{"nodeclaim-drifted", info, extraSG, "nodeclaim/general-kdbmg"},
		{"nodeclaim-drifted", info, legacy, "nodeclaim/general-vh4wf"},
	}
	var got []finding
	for _, f := range r.Findings {
		got = append(got, finding{f.ID, f.Severity.String(), f.Node, f.Resource})
		if f.Message == "" || f.Remedy == "" {
			t.Errorf("%s on %s%s: got message %q and remedy %q, want both", f.ID, f.Node, f.Resource, f.Message, f.Remedy)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings differ (-want +got):\n%s", diff)
	}

	sum := r.Summary
	if sum.Nodes+sum.Skipped < 30 {
		t.Errorf("summary: got %d checked and %d skipped nodes, want at least 30 in all", sum.Nodes, sum.Skipped)
	}
	if sum.Skipped != 2 || sum.SkippedBy["hybrid"] != 1 || sum.SkippedBy["fargate"] != 1 {
		t.Errorf("summary: got %d skipped nodes (%v), want 2: the hybrid node and the Fargate node", sum.Skipped, sum.SkippedBy)
	}
	if sum.Terminating != 1 {
		t.Errorf("summary: got %d terminating nodes, want 1 (the node Karpenter consolidates, with no finding)", sum.Terminating)
	}
	if 2*sum.Clean <= sum.Nodes {
		t.Errorf("summary: got %d clean of %d checked nodes, want a majority clean", sum.Clean, sum.Nodes)
	}
}

// TestSandboxFailures checks the pod sandbox events: they sit on the node whose max pods is
// above its IP capacity and carry the VPC CNI's message.
func TestSandboxFailures(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.SandboxFailures) == 0 {
		t.Fatal("got no sandbox failures, want some")
	}
	for _, f := range s.SandboxFailures {
		if f.Node != "ip-10-0-50-20.us-west-2.compute.internal" {
			t.Errorf("%s/%s: got node %s, want the m4.large batch node", f.Namespace, f.Pod, f.Node)
		}
		if !strings.Contains(f.Message, "failed to assign an IP address to container") || f.Count < 1 || !f.LastSeen.Before(s.Taken) {
			t.Errorf("%s/%s: got message %q, count %d, last seen %v", f.Namespace, f.Pod, f.Message, f.Count, f.LastSeen)
		}
	}
}
