package e2e

import (
	"fmt"
	"maps"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

var (
	gvrNodePool  = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	gvrNodeClaim = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}
	gvrNodeClass = schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}
	gvrENIConfig = schema.GroupVersionResource{Group: "crd.k8s.amazonaws.com", Version: "v1alpha1", Resource: "eniconfigs"}
)

// nodeSpec describes a Node as kubelet and Karpenter would have registered it.
type nodeSpec struct {
	name       string
	providerID string
	zone       string // topology.kubernetes.io/zone label; empty leaves it out
	typ        string // node.kubernetes.io/instance-type label
	internalIP string
	pods       int64
	efa        int64 // allocatable vpc.amazonaws.com/efa
	nodePool   string
	nodeClass  string
	nodeClaim  string // owner reference, as Karpenter sets it
	labels     map[string]string
	// extra is added to capacity and allocatable (e.g. vpc.amazonaws.com/pod-eni).
	extra corev1.ResourceList
	// conditions replace the Ready=True condition when set.
	conditions []corev1.NodeCondition
	// claimRequests and claimConditions go on the node's NodeClaim (karpenterNode only):
	// spec.resources.requests, and status conditions added to Launched/Registered/Initialized/Ready.
	claimRequests   map[string]any
	claimConditions []map[string]any
}

// node creates the Node, then writes its status through the status subresource.
func (w *world) node(s nodeSpec) {
	w.t.Helper()
	labels := map[string]string{
		corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64", corev1.LabelHostname: s.name,
	}
	if s.zone != "" {
		labels[corev1.LabelTopologyZone] = s.zone
		labels[corev1.LabelTopologyRegion] = region
	}
	if s.typ != "" {
		labels[corev1.LabelInstanceTypeStable] = s.typ
	}
	if s.nodePool != "" {
		labels["karpenter.sh/nodepool"] = s.nodePool
		labels["karpenter.sh/registered"] = "true"
		labels["karpenter.sh/initialized"] = "true"
		labels["karpenter.sh/capacity-type"] = "on-demand"
	}
	if s.nodeClass != "" {
		labels["karpenter.k8s.aws/ec2nodeclass"] = s.nodeClass
	}
	for k, v := range s.labels {
		labels[k] = v
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: s.name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: s.providerID},
	}
	if s.nodeClaim != "" {
		n.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: "karpenter.sh/v1", Kind: "NodeClaim", Name: s.nodeClaim,
			UID: "00000000-0000-0000-0000-000000000001", BlockOwnerDeletion: ptr.To(true),
		}}
	}
	created, err := w.kube.CoreV1().Nodes().Create(w.t.Context(), n, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("creating node %s: %v", s.name, err)
	}
	res := corev1.ResourceList{
		corev1.ResourcePods:   *resource.NewQuantity(s.pods, resource.DecimalSI),
		corev1.ResourceCPU:    resource.MustParse("2"),
		corev1.ResourceMemory: resource.MustParse("8Gi"),
	}
	if s.efa > 0 {
		res["vpc.amazonaws.com/efa"] = *resource.NewQuantity(s.efa, resource.DecimalSI)
	}
	for k, v := range s.extra {
		res[k] = v
	}
	created.Status = corev1.NodeStatus{
		Capacity:    res,
		Allocatable: res,
		Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
		}},
	}
	if len(s.conditions) > 0 {
		created.Status.Conditions = s.conditions
	}
	if s.internalIP != "" {
		created.Status.Addresses = []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: s.internalIP},
			{Type: corev1.NodeHostName, Address: s.name},
		}
	}
	if _, err := w.kube.CoreV1().Nodes().UpdateStatus(w.t.Context(), created, metav1.UpdateOptions{}); err != nil {
		w.t.Fatalf("writing the status of node %s: %v", s.name, err)
	}
}

// awsNode creates the kube-system/aws-node DaemonSet with the VPC CNI env.
func (w *world) awsNode(envs map[string]string) {
	w.t.Helper()
	var vars []corev1.EnvVar
	for _, k := range slices.Sorted(maps.Keys(envs)) {
		vars = append(vars, corev1.EnvVar{Name: k, Value: envs[k]})
	}
	labels := map[string]string{"k8s-app": "aws-node"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-node", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "aws-node", Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.23.1", Env: vars,
				}}},
			},
		},
	}
	if _, err := w.kube.AppsV1().DaemonSets("kube-system").Create(w.t.Context(), ds, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating the aws-node DaemonSet: %v", err)
	}
}

// sandboxFailure records a FailedCreatePodSandBox event from kubelet on node, as the VPC CNI
// causes it when it has no IP for a pod: count failures over the last two minutes.
func (w *world) sandboxFailure(node, pod string, count int32) {
	w.t.Helper()
	now := metav1.NewTime(time.Now())
	first := metav1.NewTime(now.Add(-2 * time.Minute))
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.sandbox", pod), Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: pod},
		Reason:         "FailedCreatePodSandBox",
		Message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "0a1b": ` +
			`plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container`,
		Source:         corev1.EventSource{Component: "kubelet", Host: node},
		Type:           corev1.EventTypeWarning,
		Count:          count,
		FirstTimestamp: first,
		LastTimestamp:  now,
	}
	if _, err := w.kube.CoreV1().Events("default").Create(w.t.Context(), ev, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating a sandbox event: %v", err)
	}
}

// create creates a custom object and, when status is set, writes it through the status subresource.
func (w *world) create(gvr schema.GroupVersionResource, obj map[string]any, status map[string]any) {
	w.t.Helper()
	u := &unstructured.Unstructured{Object: obj}
	created, err := w.dyn.Resource(gvr).Create(w.t.Context(), u, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("creating %s %s: %v", gvr.Resource, u.GetName(), err)
	}
	if status == nil {
		return
	}
	created.Object["status"] = status
	if _, err := w.dyn.Resource(gvr).UpdateStatus(w.t.Context(), created, metav1.UpdateOptions{}); err != nil {
		w.t.Fatalf("writing the status of %s %s: %v", gvr.Resource, u.GetName(), err)
	}
}

// condition is a Karpenter status condition as a map.
func condition(typ, status, reason, message string) map[string]any {
	return map[string]any{
		"type": typ, "status": status, "reason": reason, "message": message,
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339), "observedGeneration": int64(1),
	}
}
