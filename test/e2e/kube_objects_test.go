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
	gvrENIConfig = schema.GroupVersionResource{Group: "crd.k8s.amazonaws.com", Version: "v1alpha1", Resource: "eniconfigs"}
)

// nodeSpec describes a Node as kubelet and Karpenter would have registered it.
type nodeSpec struct {
	name       string
	providerID string
	zone       string // topology.kubernetes.io/zone label; empty leaves it out
	typ        string // node.kubernetes.io/instance-type label
	internalIP string
	// internalIPv6 is reported first, before internalIP, as on the nodes of IPv6 clusters.
	internalIPv6 string
	pods         int64
	efa          int64 // allocatable vpc.amazonaws.com/efa
	nodePool     string
	nodeClass    string
	nodeClaim    string // owner reference, as Karpenter sets it
	labels       map[string]string
	// extra is added to capacity and allocatable (e.g. vpc.amazonaws.com/pod-eni).
	extra corev1.ResourceList
	// conditions replace the Ready=True condition when set.
	conditions []corev1.NodeCondition
	// claimRequests and claimConditions go on the node's NodeClaim (karpenterNode only):
	// spec.resources.requests, and status conditions added to Launched/Registered/Initialized/Ready.
	claimRequests   map[string]any
	claimConditions []map[string]any
	// claimCapacity goes in the NodeClaim's status.capacity (karpenterNode only), as Karpenter
	// writes it from the instance type, e.g. vpc.amazonaws.com/pod-eni.
	claimCapacity map[string]any
	// booting leaves Initialized and Ready out of the NodeClaim's conditions, as Karpenter
	// writes them while the node starts (karpenterNode only).
	booting bool
	// taints, finalizers and osImage go on the Node as given.
	taints     []corev1.Taint
	finalizers []string
	osImage    string
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
		ObjectMeta: metav1.ObjectMeta{Name: s.name, Labels: labels, Finalizers: s.finalizers},
		Spec:       corev1.NodeSpec{ProviderID: s.providerID, Taints: s.taints},
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
	created.Status.NodeInfo.OperatingSystem = labels[corev1.LabelOSStable]
	created.Status.NodeInfo.OSImage = s.osImage
	if s.internalIPv6 != "" {
		created.Status.Addresses = append(created.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: s.internalIPv6})
	}
	if s.internalIP != "" {
		created.Status.Addresses = append(created.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: s.internalIP})
	}
	if len(created.Status.Addresses) > 0 {
		created.Status.Addresses = append(created.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeHostName, Address: s.name})
	}
	if _, err := w.kube.CoreV1().Nodes().UpdateStatus(w.t.Context(), created, metav1.UpdateOptions{}); err != nil {
		w.t.Fatalf("writing the status of node %s: %v", s.name, err)
	}
}

// awsNode creates the kube-system/aws-node DaemonSet with the VPC CNI env and the scheduling
// the EKS vpc-cni add-on gives it: Linux nodes that are not Fargate, hybrid or Auto Mode, every
// taint tolerated.
func (w *world) awsNode(envs map[string]string) {
	w.t.Helper()
	w.awsNodeWith(envs, nil)
}

// awsNodeWith is awsNode with edit applied to the DaemonSet before it is created.
func (w *world) awsNodeWith(envs map[string]string, edit func(*appsv1.DaemonSet)) {
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
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name: "aws-node", Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.23.1", Env: vars,
					}},
					Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
						RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
							MatchExpressions: []corev1.NodeSelectorRequirement{
								{Key: corev1.LabelOSStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}},
								{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}},
								{Key: "eks.amazonaws.com/compute-type", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"fargate", "hybrid", "auto"}},
							},
						}}},
					}},
					Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				},
			},
		},
	}
	if edit != nil {
		edit(ds)
	}
	if _, err := w.kube.AppsV1().DaemonSets("kube-system").Create(w.t.Context(), ds, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating the aws-node DaemonSet: %v", err)
	}
}

// awsNodeStatus writes the aws-node DaemonSet's status as the DaemonSet controller would,
// for the current spec: desired pods scheduled.
func (w *world) awsNodeStatus(desired int32) {
	w.t.Helper()
	ds, err := w.kube.AppsV1().DaemonSets("kube-system").Get(w.t.Context(), "aws-node", metav1.GetOptions{})
	if err != nil {
		w.t.Fatalf("getting the aws-node DaemonSet: %v", err)
	}
	ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation, DesiredNumberScheduled: desired,
		CurrentNumberScheduled: desired, NumberReady: desired}
	if _, err := w.kube.AppsV1().DaemonSets("kube-system").UpdateStatus(w.t.Context(), ds, metav1.UpdateOptions{}); err != nil {
		w.t.Fatalf("writing the aws-node DaemonSet's status: %v", err)
	}
}

// deleteNode deletes a Node as Karpenter's disruption does; its finalizers keep it, with a
// deletionTimestamp, until something removes them.
func (w *world) deleteNode(name string) {
	w.t.Helper()
	if err := w.kube.CoreV1().Nodes().Delete(w.t.Context(), name, metav1.DeleteOptions{}); err != nil {
		w.t.Fatalf("deleting node %s: %v", name, err)
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
