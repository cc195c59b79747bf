package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// metadataOptions sets an instance's IMDS options as Karpenter's launch template does.
func (w *world) metadataOptions(in ec2types.Instance, tokens ec2types.HttpTokensState, hops int32) {
	w.t.Helper()
	if _, err := w.ec2.ModifyInstanceMetadataOptions(w.t.Context(), &ec2.ModifyInstanceMetadataOptionsInput{
		InstanceId: in.InstanceId, HttpTokens: tokens, HttpPutResponseHopLimit: aws.Int32(hops),
		HttpEndpoint: ec2types.InstanceMetadataEndpointStateEnabled,
	}); err != nil {
		w.t.Fatalf("setting the metadata options of %s: %v", aws.ToString(in.InstanceId), err)
	}
}

// serviceAccount creates the default service account of namespace, which the API server's
// admission wants before a pod (no controller-manager runs to create it).
func (w *world) serviceAccount(namespace string) {
	w.t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: namespace}}
	if _, err := w.kube.CoreV1().ServiceAccounts(namespace).Create(w.t.Context(), sa, metav1.CreateOptions{}); err != nil &&
		!apierrors.IsAlreadyExists(err) {
		w.t.Fatalf("creating service account %s/default: %v", namespace, err)
	}
}

// pod creates a running pod bound to node, ready when ready is true.
func (w *world) pod(p *corev1.Pod, node string, ready bool) {
	w.t.Helper()
	ctx := w.t.Context()
	w.serviceAccount(p.Namespace)
	p.Spec.NodeName = node
	created, err := w.kube.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("creating pod %s/%s: %v", p.Namespace, p.Name, err)
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	created.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}}
	if _, err := w.kube.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		w.t.Fatalf("writing pod %s/%s's status: %v", p.Namespace, p.Name, err)
	}
}

// poolTaint puts a taint on every node of a NodePool (spec.template.spec.taints).
func (w *world) poolTaint(pool string, t corev1.Taint) {
	w.t.Helper()
	patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"taints":[{"key":%q,"value":%q,"effect":%q}]}}}}`, t.Key, t.Value, t.Effect)
	gvr := schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	if _, err := w.dyn.Resource(gvr).Patch(w.t.Context(), pool, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		w.t.Fatalf("tainting NodePool %s: %v", pool, err)
	}
}

// agentDaemonSet creates a node agent DaemonSet of kube-system with the given tolerations and
// writes its status as the DaemonSet controller would: desired pods scheduled, ready of them.
func (w *world) agentDaemonSet(name string, tolerations []corev1.Toleration, desired, ready int32) {
	w.t.Helper()
	ctx := w.t.Context()
	labels := map[string]string{"app.kubernetes.io/name": name}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{HostNetwork: true, Tolerations: tolerations,
					Containers: []corev1.Container{{Name: name, Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/" + name + ":v0.1.30"}}},
			},
		},
	}
	created, err := w.kube.AppsV1().DaemonSets("kube-system").Create(ctx, ds, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("creating the %s DaemonSet: %v", name, err)
	}
	created.Status = appsv1.DaemonSetStatus{ObservedGeneration: created.Generation, DesiredNumberScheduled: desired,
		CurrentNumberScheduled: desired, NumberReady: ready}
	if _, err := w.kube.AppsV1().DaemonSets("kube-system").UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		w.t.Fatalf("writing the %s DaemonSet's status: %v", name, err)
	}
}

// TestIMDSAndNodeAgents is a cluster moved from managed node groups to Karpenter: its
// instances require IMDSv2 with a hop limit of 1, Karpenter v1's default. The AWS Load
// Balancer Controller runs off the host network without IRSA on one of them (it cannot get a
// token), and a copy on a node with hop limit 2 may be rescheduled onto such a node (the class
// says 1), while a copy with IRSA and one on the host network are fine. A GPU pool's taint is tolerated by aws-node (every taint) but not by the EKS Pod
// Identity agent, whose pod is also missing on a node of the general pool 20 minutes on.
func TestIMDSAndNodeAgents(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1"})
	w.awsNodeStatus(3)
	zones := []string{"us-west-2a"}
	// The class as the API server stores it under Karpenter's CRD, with its metadataOptions
	// default (the suite's CRDs keep the fields without their defaults).
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a}, sgs: sgs, spec: map[string]any{
		"metadataOptions": map[string]any{"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
			"httpPutResponseHopLimit": int64(1), "httpTokens": "required"}}})
	w.nodePool("general", "v1", "default", zones, 0)
	w.nodePool("gpu", "v1", "default", zones, 0)
	w.poolTaint("gpu", corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule})

	one := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: sgs, ip: "10.0.0.10"})
	two := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: sgs, ip: "10.0.0.11"})
	gpu := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: sgs, ip: "10.0.0.12"})
	w.metadataOptions(one, ec2types.HttpTokensStateRequired, 1)
	w.metadataOptions(two, ec2types.HttpTokensStateRequired, 2)
	w.metadataOptions(gpu, ec2types.HttpTokensStateRequired, 2)
	w.karpenterNode(nodeNameOf(one), "general", "default", "v1", one, 29, nil)
	w.karpenterNode(nodeNameOf(two), "general", "default", "v1", two, 29, nil)
	w.karpenterNode(nodeNameOf(gpu), "gpu", "default", "v1", gpu, 29, nil)
	w.taint(nodeNameOf(gpu), corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule})

	lbc := func(name string, host bool, env ...corev1.EnvVar) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name}, Spec: corev1.PodSpec{HostNetwork: host,
			Containers: []corev1.Container{{Name: "controller", Image: "public.ecr.aws/eks/aws-load-balancer-controller:v2.13.0", Env: env}}}}
	}
	w.pod(lbc("aws-load-balancer-controller-a", false), nodeNameOf(one), true)
	w.pod(lbc("aws-load-balancer-controller-irsa", false,
		corev1.EnvVar{Name: "AWS_ROLE_ARN", Value: "arn:aws:iam::123456789012:role/lbc"},
		corev1.EnvVar{Name: "AWS_WEB_IDENTITY_TOKEN_FILE", Value: "/var/run/secrets/eks.amazonaws.com/serviceaccount/token"}), nodeNameOf(one), true)
	w.pod(lbc("aws-load-balancer-controller-host", true), nodeNameOf(one), true)
	w.pod(lbc("aws-load-balancer-controller-b", false), nodeNameOf(two), true)

	// kube-proxy tolerates the GPU taint with operator Exists; the Pod Identity agent only
	// CriticalAddonsOnly. Its pod runs on the first node and is missing on the second.
	w.agentDaemonSet("kube-proxy", []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, 3, 3)
	w.agentDaemonSet("eks-pod-identity-agent", []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}}, 2, 1)
	w.pod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "eks-pod-identity-agent-x7k2p",
		Labels: map[string]string{"app.kubernetes.io/name": "eks-pod-identity-agent"}},
		Spec: corev1.PodSpec{HostNetwork: true, Containers: []corev1.Container{{Name: "agent", Image: "eks/eks-pod-identity-agent:v0.1.30"}}}},
		nodeNameOf(one), true)

	// Now: the nodes are new, so the missing agent pod is still within its grace. Warnings
	// only: check exits 0 (it fails on critical).
	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 0)
	rep := decode(t, r)
	want := []finding{
		{"imds-hop-limit-blocks-pods", "warning", "", "ec2nodeclass/default"},
		{"nodepool-agent-excluded", "warning", "", "nodepool/gpu"},
	}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, f := range rep.Findings {
		if f.ID == "imds-hop-limit-blocks-pods" && (!strings.Contains(f.Message, "1 pod that needs IMDS runs there") ||
			!strings.Contains(f.Message, "kube-system/aws-load-balancer-controller-a on "+nodeNameOf(one)) ||
			!strings.Contains(f.Message, "kube-system/aws-load-balancer-controller-b on "+nodeNameOf(two)+" now") ||
			strings.Contains(f.Message, "-irsa") || strings.Contains(f.Message, "-host") ||
			commandLines(f.Commands) != `kubectl patch ec2nodeclass default --type merge -p {"spec":{"metadataOptions":{"httpPutResponseHopLimit":2}}}`) {
			t.Errorf("the IMDS finding does not name the one pod and the class patch: %s\n%s", f.Message, commandLines(f.Commands))
		}
	}

	// 20 minutes on, the second node still has no Pod Identity agent.
	later := shiftedSnapshot(t, 20*time.Minute)
	r = karpnet(t, runOpts{}, "check", "-o", "json", "--snapshot", later, "--only", "node-agent-not-running")
	wantCode(t, r, 0)
	want = []finding{{"node-agent-not-running", "warning", nodeNameOf(two), "node/" + nodeNameOf(two)}}
	if diff := cmpDiff(want, decode(t, r).set()); diff != "" {
		t.Errorf("20 minutes on (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
}
