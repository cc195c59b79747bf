package collect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestKubeSystemPods(t *testing.T) {
	pod := func(name, app, node string, ready bool, agent *corev1.ContainerStatus) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name, Labels: map[string]string{"k8s-app": app}},
			Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		st := corev1.ConditionFalse
		if ready {
			st = corev1.ConditionTrue
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
		if agent != nil {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "aws-node", Ready: true}, *agent}
		}
		return p
	}
	crash := &corev1.ContainerStatus{Name: "aws-eks-nodeagent", RestartCount: 7,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 2}}}
	objects := []runtime.Object{
		pod("coredns-a", "kube-dns", "node-1", true, nil), pod("coredns-b", "kube-dns", "node-1", true, nil),
		pod("aws-node-1", "aws-node", "node-1", false, crash),
		pod("other", "other", "node-1", true, nil),
	}
	policy := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "deny-all"}}
	coreDNS := []snapshot.SystemPod{{Name: "coredns-a", Node: "node-1", Phase: "Running", Ready: true},
		{Name: "coredns-b", Node: "node-1", Phase: "Running", Ready: true}}
	agentPods := []snapshot.SystemPod{{Name: "aws-node-1", Node: "node-1", Phase: "Running",
		Agent: &snapshot.ContainerState{Restarts: 7, Waiting: "CrashLoopBackOff", LastExit: "Error", ExitCode: 2}}}
	for _, tc := range []struct {
		name      string
		agent     bool
		policy    bool
		wantAgent []snapshot.SystemPod
	}{
		{name: "agent off: only CoreDNS"},
		{name: "agent on, no policy: only CoreDNS", agent: true},
		{name: "agent on with a policy: the aws-node pods too", agent: true, policy: true, wantAgent: agentPods},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := append([]runtime.Object(nil), objects...)
			if tc.policy {
				objs = append(objs, policy)
			}
			c := &Collector{Kube: k8sfake.NewClientset(objs...)}
			s := &snapshot.Snapshot{AWSNode: &snapshot.AWSNode{NodeAgent: &snapshot.NodeAgent{NetworkPolicy: tc.agent}}}
			if err := c.kubeSystemPods(t.Context(), s); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(coreDNS, s.CoreDNS); diff != "" {
				t.Errorf("CoreDNS (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAgent, s.PolicyAgentPods); diff != "" {
				t.Errorf("agent pods (-want +got):\n%s", diff)
			}
			if tc.policy && (len(s.NetworkPolicies) != 1 || s.NetworkPolicies[0].Names[0] != "shop/deny-all") {
				t.Errorf("policies %+v, want shop/deny-all counted", s.NetworkPolicies)
			}
			if len(s.Gaps) != 0 {
				t.Errorf("gaps %+v, want none", s.Gaps)
			}
		})
	}
}
