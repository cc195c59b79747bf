package collect

import (
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeNodeClaimReads is what kubeDecodeNodeClaim reads of a NodeClaim: the NodeClaims list,
// thousands of objects, is decoded with only these parts (kubeDecodeShaped). Both change
// together; TestNodeClaimReadsIsWhatTheDecodeReads holds them to each other.
var kubeNodeClaimReads = kubeShape{
	"apiVersion": nil, "kind": nil,
	"metadata": {"name": nil, "labels": nil, "creationTimestamp": nil, "deletionTimestamp": nil},
	"spec":     {"nodeClassRef": nil, "resources": {"requests": nil}},
	"status":   {"providerID": nil, "nodeName": nil, "capacity": nil, "conditions": nil},
}

// kubeDecodeNodeClaim reads a karpenter.sh NodeClaim at v1 or v1beta1.
func kubeDecodeNodeClaim(u *unstructured.Unstructured) snapshot.NodeClaim {
	o := u.Object
	return snapshot.NodeClaim{
		Name:         u.GetName(),
		APIVersion:   u.GetAPIVersion(),
		Labels:       kubeStrMap(o, "metadata", "labels"),
		NodeClassRef: kubeNodeClassRef(kubeMap(o, "spec", "nodeClassRef")),
		ProviderID:   kubeStr(o, "status", "providerID"),
		NodeName:     kubeStr(o, "status", "nodeName"),
		Requests:     kubeQuantityMap(o, "spec", "resources", "requests"),
		Capacity:     kubeVPCResources(kubeQuantityMap(o, "status", "capacity")),
		Conditions:   kubeConditions(o),
		Created:      kubeUTC(u.GetCreationTimestamp().Time),
		Deleting:     kubeDeletionTime(u),
	}
}

// kubeDeletionTime returns an object's deletionTimestamp, or the zero time.
func kubeDeletionTime(u *unstructured.Unstructured) time.Time {
	if t := u.GetDeletionTimestamp(); t != nil {
		return kubeUTC(t.Time)
	}
	return time.Time{}
}

// kubeUTC returns t in UTC, and the zero time as it is.
func kubeUTC(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

// kubeVPCPrefix begins the names of the VPC resources of a capacity.
const kubeVPCPrefix = "vpc.amazonaws.com/"

// kubeVPCResources keeps the vpc.amazonaws.com/* entries of a resource list; nil for none.
func kubeVPCResources(m map[string]string) map[string]string {
	for k := range m {
		if !strings.HasPrefix(k, kubeVPCPrefix) {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// kubeDecodeNodePool reads a karpenter.sh NodePool at v1 or v1beta1 (where kubelet lives in
// spec.template.spec.kubelet).
func kubeDecodeNodePool(u *unstructured.Unstructured) snapshot.NodePool {
	o := u.Object
	return snapshot.NodePool{
		Name:         u.GetName(),
		APIVersion:   u.GetAPIVersion(),
		NodeClassRef: kubeNodeClassRef(kubeMap(o, "spec", "template", "spec", "nodeClassRef")),
		Requirements: kubeRequirements(o, "spec", "template", "spec", "requirements"),
		Labels:       kubeStrMap(o, "spec", "template", "metadata", "labels"),
		Kubelet:      kubeKubelet(kubeMap(o, "spec", "template", "spec", "kubelet")),
		Conditions:   kubeConditions(o),
		Disruption:   kubeDisruption(kubeMap(o, "spec", "disruption")),
	}
}

// kubeDisruption reads a NodePool's spec.disruption; nil when it is absent or empty.
func kubeDisruption(m map[string]any) *snapshot.Disruption {
	if len(m) == 0 {
		return nil
	}
	d := &snapshot.Disruption{
		ConsolidationPolicy: kubeStr(m, "consolidationPolicy"),
		ConsolidateAfter:    kubeScalar(m["consolidateAfter"]),
		ExpireAfter:         kubeScalar(m["expireAfter"]),
	}
	budgets, _ := m["budgets"].([]any)
	for _, b := range budgets {
		bm, ok := b.(map[string]any)
		if !ok {
			continue
		}
		budget := snapshot.DisruptionBudget{Nodes: kubeScalar(bm["nodes"]), Schedule: kubeStr(bm, "schedule"),
			Duration: kubeScalar(bm["duration"])}
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

// kubeScalar returns a string or number field as written ("10%", "5", "30s"); "" for others.
func kubeScalar(v any) string {
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

// kubeNodeClassRef reads a nodeClassRef: v1 has group/kind/name, v1beta1 apiVersion/kind/name
// with kind optional. A ref without a group or API version is Karpenter AWS's EC2NodeClass; an
// eks.amazonaws.com ref keeps its group and, when it has no kind, is an Auto Mode NodeClass.
func kubeNodeClassRef(m map[string]any) snapshot.NodeClassRef {
	return kubeNodeClassRefOf(kubeStr(m, "group"), kubeStr(m, "kind"), kubeStr(m, "name"), kubeStr(m, "apiVersion"))
}

// kubeNodeClassRefOf is kubeNodeClassRef of a reference's group, kind, name and apiVersion.
func kubeNodeClassRefOf(group, kind, name, apiVersion string) snapshot.NodeClassRef {
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

// kubeRequirements reads a list of scheduling requirements.
func kubeRequirements(m map[string]any, path ...string) []snapshot.Requirement {
	var out []snapshot.Requirement
	for _, r := range kubeMaps(m, path...) {
		req := snapshot.Requirement{
			Key:      kubeStr(r, "key"),
			Operator: kubeStr(r, "operator"),
			Values:   kubeStrs(r, "values"),
		}
		if req.Key != "" {
			out = append(out, req)
		}
	}
	return out
}

// kubeKubelet reads the pod-density part of a kubelet configuration, typed or open map.
// maxPods may be a number or, with Karpenter's NodeClassCEL gate, a CEL expression string.
// It returns nil when the configuration sets neither maxPods nor podsPerCore.
func kubeKubelet(m map[string]any) *snapshot.Kubelet {
	if m == nil {
		return nil
	}
	k := &snapshot.Kubelet{PodsPerCore: kubeToInt32(m["podsPerCore"])}
	switch v := m["maxPods"].(type) {
	case string:
		k.MaxPodsExpression = v
	default:
		k.MaxPods = kubeToInt32(v)
	}
	if k.MaxPods == nil && k.MaxPodsExpression == "" && k.PodsPerCore == nil {
		return nil
	}
	return k
}
