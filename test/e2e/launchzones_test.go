package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// TestLaunchFailuresByZone: Karpenter deleted three NodeClaims of one pool whose launches found
// their zone's subnet full, leaving only their InsufficientCapacityError events: one finding
// names the zone, the count and the subnet. One capacity error in the other zone, and failures
// older than an hour, stay below it.
func TestLaunchFailuresByZone(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	b := subnetRef{w.subnet("10.0.16.0/20", "us-west-2b"), "us-west-2b"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a, b}, sgs: sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2a", "us-west-2b"}, 0)

	full := "InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet '" + b.id +
		"' to satisfy the requested number of instances."
	for i := range 3 {
		w.launchFailureEvent(fmt.Sprintf("general-full%d", i), full, time.Duration(i+1)*time.Minute)
	}
	for i := range 2 {
		w.launchFailureEvent(fmt.Sprintf("general-old%d", i), full, 2*time.Hour)
	}
	w.launchFailureEvent("general-ice01", "InsufficientInstanceCapacity: We currently do not have sufficient m5.large "+
		"capacity in the Availability Zone you requested (us-west-2a). Our system will be working on provisioning "+
		"additional capacity. You can currently get m5.large capacity by not specifying an Availability Zone in your "+
		"request or choosing us-west-2b.", 5*time.Minute)

	r := karpnet(t, runOpts{}, "check", "-o", "json", "--only", "launch-failures-by-zone")
	wantCode(t, r, 0)
	rep := decode(t, r)
	want := []finding{{"launch-failures-by-zone", "warning", "", "zone/us-west-2b"}}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Fatalf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, p := range []string{"3 NodeClaims failed to launch there in the last hour", "3 of them on full subnet " + b.id,
		"(NodePool general)"} {
		if m := message(rep, "launch-failures-by-zone"); !strings.Contains(m, p) {
			t.Errorf("message lacks %q: %s", p, m)
		}
	}
}

// launchFailureEvent records Karpenter's InsufficientCapacityError event about NodeClaim name,
// deleted since, that hit the fleet error errs ago.
func (w *world) launchFailureEvent(name, errs string, ago time.Duration) {
	w.t.Helper()
	last := metav1.NewTime(time.Now().Add(-ago))
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: name + ".launch", Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "NodeClaim", APIVersion: "karpenter.sh/v1", Name: name,
			UID: types.UID(name)},
		Reason: "InsufficientCapacityError", Type: corev1.EventTypeWarning, Count: 1,
		Message: "NodeClaim " + name + " event: creating instance, insufficient capacity, with fleet error(s), " + errs,
		Source:  corev1.EventSource{Component: "karpenter"}, FirstTimestamp: last, LastTimestamp: last,
	}
	if _, err := w.kube.CoreV1().Events("default").Create(w.t.Context(), ev, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating a launch failure event: %v", err)
	}
}

// gvrSGP is the VPC resource controller's SecurityGroupPolicy.
var gvrSGP = schema.GroupVersionResource{Group: "vpcresources.k8s.aws", Version: "v1beta1", Resource: "securitygrouppolicies"}

// TestSGPUnsupportedTypes: with security groups for pods and a SecurityGroupPolicy, a NodePool
// whose requirements admit the newest network-optimised Intel families, which Karpenter v1.14.1
// gives pod-eni capacity and the VPC resource controller v1.7.19 does not list, is found; a
// NodePool of m5 and c6i types is clean.
func TestSGPUnsupportedTypes(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNode(map[string]string{"ENABLE_POD_ENI": "true"})
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a}, sgs: sgs})
	families := func(name string, values ...any) {
		w.create(schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}, map[string]any{
			"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
				"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
				"requirements": []any{map[string]any{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": values}},
			}}},
		}, map[string]any{"conditions": []any{condition("Ready", "True", "Ready", "")}})
	}
	families("network", "m5", "c8in")
	families("general", "m5", "c6i")
	sgp := map[string]any{"apiVersion": "vpcresources.k8s.aws/v1beta1", "kind": "SecurityGroupPolicy",
		"metadata": map[string]any{"name": "payments", "namespace": "default"},
		"spec": map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"app": "payments"}},
			"securityGroups": map[string]any{"groupIds": []any{sgs[0]}}}}
	if _, err := w.dyn.Resource(gvrSGP).Namespace("default").Create(t.Context(), &unstructured.Unstructured{Object: sgp}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the SecurityGroupPolicy: %v", err)
	}

	r := karpnet(t, runOpts{}, "check", "-o", "json", "--only", "sgp-unsupported-types")
	wantCode(t, r, 0)
	rep := decode(t, r)
	want := []finding{{"sgp-unsupported-types", "warning", "", "nodepool/network"}}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Fatalf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, p := range []string{"NodePool network admits 13 instance types", "c8in.2xlarge (Karpenter pod-eni 38)", "1 SecurityGroupPolicy (default/payments)"} {
		if m := message(rep, "sgp-unsupported-types"); !strings.Contains(m, p) {
			t.Errorf("message lacks %q: %s", p, m)
		}
	}
}
