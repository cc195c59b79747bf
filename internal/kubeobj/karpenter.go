// Package kubeobj reads the Kubernetes objects karpnet keeps (Karpenter's NodeClaims,
// NodePools and EC2NodeClasses, EKS Auto Mode's NodeClasses, the VPC CNI's ENIConfigs), in
// their unstructured form, into their snapshot values. A field that is absent, or of another
// type than expected, reads as the zero value: one malformed field never fails a collection.
// It says nothing of what to read or how: pkg/collect lists and gets the objects, and
// internal/kubestream reads NodeClaims straight from a list's text by the same rules
// (NodeClassRefOf, ConditionOf, UTC, VPCPrefix).
package kubeobj

import (
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// DecodeNodeClaim reads a karpenter.sh NodeClaim at v1 or v1beta1.
func DecodeNodeClaim(u *unstructured.Unstructured) snapshot.NodeClaim {
	o := u.Object
	return snapshot.NodeClaim{
		Name:         u.GetName(),
		APIVersion:   u.GetAPIVersion(),
		Labels:       strMap(o, "metadata", "labels"),
		NodeClassRef: nodeClassRef(object(o, "spec", "nodeClassRef")),
		ProviderID:   str(o, "status", "providerID"),
		NodeName:     str(o, "status", "nodeName"),
		Requests:     quantityMap(o, "spec", "resources", "requests"),
		Capacity:     vpcResources(quantityMap(o, "status", "capacity")),
		Conditions:   conditions(o),
		Created:      UTC(u.GetCreationTimestamp().Time),
		Deleting:     deletionTime(u),
	}
}

// deletionTime returns an object's deletionTimestamp, or the zero time.
func deletionTime(u *unstructured.Unstructured) time.Time {
	if t := u.GetDeletionTimestamp(); t != nil {
		return UTC(t.Time)
	}
	return time.Time{}
}

// UTC returns t in UTC, and the zero time as it is.
func UTC(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

// VPCPrefix begins the names of the VPC resources of a capacity.
const VPCPrefix = "vpc.amazonaws.com/"

// vpcResources keeps the vpc.amazonaws.com/* entries of a resource list; nil for none.
func vpcResources(m map[string]string) map[string]string {
	for k := range m {
		if !strings.HasPrefix(k, VPCPrefix) {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// DecodeNodePool reads a karpenter.sh NodePool at v1 or v1beta1 (where kubelet lives in
// spec.template.spec.kubelet).
func DecodeNodePool(u *unstructured.Unstructured) snapshot.NodePool {
	o := u.Object
	return snapshot.NodePool{
		Name:          u.GetName(),
		APIVersion:    u.GetAPIVersion(),
		NodeClassRef:  nodeClassRef(object(o, "spec", "template", "spec", "nodeClassRef")),
		Requirements:  requirements(o, "spec", "template", "spec", "requirements"),
		Labels:        strMap(o, "spec", "template", "metadata", "labels"),
		Kubelet:       kubelet(object(o, "spec", "template", "spec", "kubelet")),
		Conditions:    conditions(o),
		Disruption:    disruption(object(o, "spec", "disruption")),
		Taints:        taints(o, "spec", "template", "spec", "taints"),
		StartupTaints: taints(o, "spec", "template", "spec", "startupTaints"),
	}
}

// taints reads a list of taints; entries without a key are left out.
func taints(o map[string]any, path ...string) []corev1.Taint {
	var out []corev1.Taint
	for _, m := range objects(o, path...) {
		if str(m, "key") == "" {
			continue
		}
		out = append(out, corev1.Taint{Key: str(m, "key"), Value: str(m, "value"), Effect: corev1.TaintEffect(str(m, "effect"))})
	}
	return out
}

// disruption reads a NodePool's spec.disruption; nil when it is absent or empty.
func disruption(m map[string]any) *snapshot.Disruption {
	if len(m) == 0 {
		return nil
	}
	d := &snapshot.Disruption{
		ConsolidationPolicy: str(m, "consolidationPolicy"),
		ConsolidateAfter:    scalar(m["consolidateAfter"]),
		ExpireAfter:         scalar(m["expireAfter"]),
	}
	budgets, _ := m["budgets"].([]any)
	for _, b := range budgets {
		bm, ok := b.(map[string]any)
		if !ok {
			continue
		}
		budget := snapshot.DisruptionBudget{Nodes: scalar(bm["nodes"]), Schedule: str(bm, "schedule"),
			Duration: scalar(bm["duration"])}
		reasons, _ := bm["reasons"].([]any)
		for _, r := range reasons {
			if s, ok := r.(string); ok {
				budget.Reasons = append(budget.Reasons, s)
			}
		}
		d.Budgets = append(d.Budgets, budget)
	}
	return d
}

// scalar returns a string or number field as written ("10%", "5", "30s"); "" for others.
func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// nodeClassRef reads a nodeClassRef: v1 has group/kind/name, v1beta1 apiVersion/kind/name
// with kind optional. A ref without a group or API version is Karpenter AWS's EC2NodeClass; an
// eks.amazonaws.com ref keeps its group and, when it has no kind, is an Auto Mode NodeClass.
func nodeClassRef(m map[string]any) snapshot.NodeClassRef {
	return NodeClassRefOf(str(m, "group"), str(m, "kind"), str(m, "name"), str(m, "apiVersion"))
}

// NodeClassRefOf is nodeClassRef of a reference's group, kind, name and apiVersion.
func NodeClassRefOf(group, kind, name, apiVersion string) snapshot.NodeClassRef {
	ref := snapshot.NodeClassRef{Group: group, Kind: kind, Name: name}
	if ref.Name == "" {
		return ref
	}
	if ref.Group == "" {
		if apiVersion != "" {
			if gv, err := schema.ParseGroupVersion(apiVersion); err == nil {
				ref.Group = gv.Group
			}
		} else {
			ref.Group = snapshot.AWSGroup
		}
	}
	switch {
	case ref.Kind != "":
	case ref.Group == snapshot.AWSGroup:
		ref.Kind = snapshot.KindEC2NodeClass
	case ref.Group == snapshot.AutoModeGroup:
		ref.Kind = snapshot.KindNodeClass
	}
	return ref
}

// requirements reads a list of scheduling requirements.
func requirements(m map[string]any, path ...string) []snapshot.Requirement {
	var out []snapshot.Requirement
	for _, r := range objects(m, path...) {
		req := snapshot.Requirement{
			Key:      str(r, "key"),
			Operator: str(r, "operator"),
			Values:   strs(r, "values"),
		}
		if req.Key != "" {
			out = append(out, req)
		}
	}
	return out
}

// kubelet reads the pod-density part of a kubelet configuration, typed or open map.
// maxPods may be a number or, with Karpenter's NodeClassCEL gate, a CEL expression string.
// It returns nil when the configuration sets neither maxPods nor podsPerCore.
func kubelet(m map[string]any) *snapshot.Kubelet {
	if m == nil {
		return nil
	}
	k := &snapshot.Kubelet{PodsPerCore: toInt32(m["podsPerCore"])}
	switch v := m["maxPods"].(type) {
	case string:
		k.MaxPodsExpression = v
	default:
		k.MaxPods = toInt32(v)
	}
	if k.MaxPods == nil && k.MaxPodsExpression == "" && k.PodsPerCore == nil {
		return nil
	}
	return k
}
