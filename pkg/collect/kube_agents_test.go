package collect

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeAgentDS is a node agent DaemonSet of kube-system selecting k8s-app=name, whose status
// counts desired and ready pods at the current generation.
func kubeAgentDS(name string, desired, ready int32) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name, Generation: 2},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": name}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			}},
		},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: desired, NumberReady: ready},
	}
}

func TestKubeAgents(t *testing.T) {
	created := time.Date(2026, 8, 21, 11, 0, 0, 0, time.UTC)
	pod := func(name, app, node string, ready bool, waiting string) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name, Labels: map[string]string{"k8s-app": app},
				CreationTimestamp: metav1.NewTime(created)},
			Spec:   corev1.PodSpec{NodeName: node},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		}
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
		if waiting != "" {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "a",
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: waiting}}}}
		}
		return p
	}
	other := kubeAgentDS("ebs-csi-node", 2, 0)
	stale := kubeAgentDS("kube-proxy", 2, 0)
	stale.Status.ObservedGeneration = 1
	kube := k8sfake.NewClientset(
		kubeAgentDS("aws-node", 2, 2), kubeAgentDS("eks-pod-identity-agent", 2, 1), other, stale,
		pod("kube-proxy-a", "kube-proxy", "node-a", false, ""),
		pod("aws-node-a", "aws-node", "node-a", true, ""),
		pod("eks-pod-identity-agent-b", "eks-pod-identity-agent", "node-b", false, "CrashLoopBackOff"),
		pod("eks-pod-identity-agent-a", "eks-pod-identity-agent", "node-a", true, ""),
	)
	s := &snapshot.Snapshot{}
	if err := (&Collector{Kube: kube}).kubeAgents(t.Context(), s, Scope{}); err != nil {
		t.Fatal(err)
	}
	two, one := int32(2), int32(1)
	sched := &snapshot.Scheduling{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}
	want := []snapshot.Agent{
		{Name: "aws-node", Scheduling: sched, Desired: &two, Ready: &two},
		{Name: "eks-pod-identity-agent", Scheduling: sched, Desired: &two, Ready: &one, PodsRead: true, Pods: []snapshot.AgentPod{
			{Name: "eks-pod-identity-agent-a", Node: "node-a", Phase: "Running", Ready: true, Created: created},
			{Name: "eks-pod-identity-agent-b", Node: "node-b", Phase: "Running", Created: created, Reason: "CrashLoopBackOff"},
		}},
		{Name: "kube-proxy", Scheduling: sched},
	}
	if !s.AgentsRead || len(s.Gaps) > 0 {
		t.Fatalf("AgentsRead %v, gaps %v", s.AgentsRead, s.Gaps)
	}
	if d := cmp.Diff(want, s.Agents); d != "" {
		t.Errorf("agents (-want +got):\n%s", d)
	}

	scoped := &snapshot.Snapshot{}
	if err := (&Collector{Kube: kube}).kubeAgents(t.Context(), scoped, Scope{Names: []string{"node-a"}}); err != nil || scoped.AgentsRead {
		t.Errorf("a scoped run read the agents (err %v)", err)
	}
}

func TestKubeIMDSNeed(t *testing.T) {
	if !slices.IsSorted(kubeCredentialEnv) || !slices.IsSorted(kubeIMDSImages) {
		t.Fatal("kubeCredentialEnv and kubeIMDSImages must be sorted")
	}
	env := func(kv ...string) []corev1.EnvVar {
		var out []corev1.EnvVar
		for i := 0; i < len(kv); i += 2 {
			out = append(out, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	spec := func(image string, e []corev1.EnvVar, args ...string) *corev1.PodSpec {
		return &corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image, Env: e, Args: args}}}
	}
	lbc := "public.ecr.aws/eks/aws-load-balancer-controller:v2.13.0"
	for _, tc := range []struct {
		name string
		pod  *corev1.PodSpec
		want string
	}{
		{"the load balancer controller without credentials", spec(lbc, nil), "image aws-load-balancer-controller"},
		{"by digest too", spec("public.ecr.aws/eks/aws-load-balancer-controller@sha256:abc", nil), "image aws-load-balancer-controller"},
		{"the EBS CSI controller", spec("public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.40.0", nil, "controller", "--endpoint=x"),
			"image aws-ebs-csi-driver (controller)"},
		{"an SDK user without credentials", spec("example.com/orders:1", env("AWS_REGION", "us-west-2")), "AWS_REGION set"},
		{"IRSA", spec(lbc, env("AWS_REGION", "us-west-2", "AWS_ROLE_ARN", "arn:aws:iam::1:role/x",
			"AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/secrets/eks.amazonaws.com/serviceaccount/token")), ""},
		{"EKS Pod Identity", spec(lbc, env("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://169.254.170.23/v1/credentials",
			"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "/var/run/secrets/pods.eks.amazonaws.com/serviceaccount/eks-pod-identity-token")), ""},
		{"env from a Secret", &corev1.PodSpec{Containers: []corev1.Container{{Image: lbc,
			EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{}}}}}}, ""},
		{"the EBS CSI node plugin", spec("public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.40.0", nil, "node"), ""},
		{"an unrelated pod", spec("nginx:1.27", nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := kubeIMDSNeed(tc.pod)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("kubeIMDSNeed = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

func TestKubeIMDSPods(t *testing.T) {
	lbc := []corev1.Container{{Name: "c", Image: "public.ecr.aws/eks/aws-load-balancer-controller:v2.13.0"}}
	pod := func(name, node string, host bool, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name},
			Spec: corev1.PodSpec{NodeName: node, HostNetwork: host, Containers: lbc}, Status: corev1.PodStatus{Phase: phase}}
	}
	kube := k8sfake.NewClientset(pod("lbc-a", "node-a", false, corev1.PodRunning), pod("lbc-host", "node-a", true, corev1.PodRunning),
		pod("lbc-pending", "", false, corev1.PodPending), pod("lbc-done", "node-a", false, corev1.PodSucceeded))
	s := &snapshot.Snapshot{}
	if err := (&Collector{Kube: kube}).kubeIMDSPods(t.Context(), s, Scope{}); err != nil {
		t.Fatal(err)
	}
	want := []snapshot.IMDSPod{{Namespace: "kube-system", Name: "lbc-a", Node: "node-a", Why: "image aws-load-balancer-controller",
		Scheduling: &snapshot.Scheduling{}}}
	if d := cmp.Diff(want, s.IMDSPods); d != "" || !s.IMDSPodsRead {
		t.Errorf("IMDS pods (-want +got):\n%s (read %v)", d, s.IMDSPodsRead)
	}
}

// TestKubeIMDSPodsStopAtTheBound reads no more than kubePodPages pages of 500 pods: past them
// a note says the check is not judged (no gap: a cluster of a few hundred nodes has that many
// pods every day) and no pod is kept.
func TestKubeIMDSPodsStopAtTheBound(t *testing.T) {
	kube := k8sfake.NewClientset()
	lbc := []corev1.Container{{Name: "c", Image: "public.ecr.aws/eks/aws-load-balancer-controller:v2.13.0"}}
	for i := range kubePodPages*kubeDefaultPageSize + 1 {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("p-%05d", i)},
			Spec: corev1.PodSpec{NodeName: "node-a", Containers: lbc}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		if err := kube.Tracker().Add(p); err != nil {
			t.Fatal(err)
		}
	}
	pager := &kubePager{tracker: kube.Tracker()}
	kube.PrependReactor("list", "pods", pager.react)
	s := &snapshot.Snapshot{}
	if err := (&Collector{Kube: kube}).kubeIMDSPods(t.Context(), s, Scope{}); err != nil {
		t.Fatal(err)
	}
	if s.IMDSPodsRead || len(s.IMDSPods) != 0 || len(s.Gaps) != 0 || len(s.Notes) != 1 ||
		!strings.HasPrefix(s.Notes[0], "imds-hop-limit-blocks-pods not judged: more than 5000 pods off the host network") {
		t.Errorf("read %v, %d pods, gaps %v, notes %q; want one note and nothing kept", s.IMDSPodsRead, len(s.IMDSPods), s.Gaps, s.Notes)
	}
	if len(pager.calls) != kubePodPages {
		t.Errorf("%d requests, want %d", len(pager.calls), kubePodPages)
	}
}
