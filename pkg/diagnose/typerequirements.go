package diagnose

// Whether a NodePool's requirements admit an instance type, from the labels Karpenter gives
// every type (karpenter-provider-aws pkg/providers/instancetype/types.go, computeRequirements).

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The well-known labels of instance types that karpnet evaluates.
const (
	labelInstanceFamily     = "karpenter.k8s.aws/instance-family"
	labelInstanceCategory   = "karpenter.k8s.aws/instance-category"
	labelInstanceGeneration = "karpenter.k8s.aws/instance-generation"
	labelInstanceSize       = "karpenter.k8s.aws/instance-size"
	labelInstanceCPU        = "karpenter.k8s.aws/instance-cpu"
	labelInstanceMemory     = "karpenter.k8s.aws/instance-memory"
	labelBetaInstanceType   = "beta.kubernetes.io/instance-type"
)

// instanceTypeScheme splits a type's name into category and generation, as Karpenter does.
var instanceTypeScheme = regexp.MustCompile(`(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.`)

// typeFamily is the part of a type's name before the dot: m5 of m5.large.
func typeFamily(name string) string {
	f, _, _ := strings.Cut(name, ".")
	return f
}

// typeLabel returns the values of a well-known label for the type; typeKey is false for a key
// that is not about the instance type (zone, capacity type, a label of the user's), known is
// false for a label of the type karpnet does not know (GPUs, local NVMe, bandwidth, or an
// architecture, vCPU or memory count its data lacks).
func typeLabel(t maxpods.PodENIType, key string) (values []string, typeKey, known bool) {
	family, size, _ := strings.Cut(t.Name, ".")
	parts := instanceTypeScheme.FindStringSubmatch(t.Name)
	num := func(n int) ([]string, bool, bool) {
		if n == 0 {
			return nil, true, false
		}
		return []string{strconv.Itoa(n)}, true, true
	}
	switch key {
	case corev1.LabelInstanceTypeStable, labelBetaInstanceType:
		return []string{t.Name}, true, true
	case labelInstanceFamily:
		return []string{family}, true, true
	case labelInstanceSize:
		return []string{size}, true, true
	case labelInstanceCategory, labelInstanceGeneration:
		if len(parts) != 4 {
			return nil, true, true
		}
		if key == labelInstanceCategory {
			return []string{parts[1]}, true, true
		}
		return []string{parts[3]}, true, true
	case labelInstanceHypervisor:
		return []string{t.Hypervisor}, true, true
	case corev1.LabelArchStable:
		if t.Arch == "" {
			return nil, true, false
		}
		return []string{t.Arch}, true, true
	case labelInstanceCPU:
		return num(t.VCPUs)
	case labelInstanceMemory:
		return num(t.MemoryMiB)
	}
	if strings.HasPrefix(key, snapshot.AWSGroup+"/instance-") {
		return nil, true, false
	}
	return nil, false, true
}

// typeAdmitted reports whether every requirement admits the type (In, NotIn, Exists,
// DoesNotExist, Gt, Lt). A requirement on a label of the type karpnet does not know makes the
// answer no: karpnet reports only types it can show are admitted.
func typeAdmitted(reqs []snapshot.Requirement, t maxpods.PodENIType) bool {
	for _, r := range reqs {
		values, typeKey, known := typeLabel(t, r.Key)
		if !typeKey {
			continue
		}
		if !known || !valuesMeet(r, values) {
			return false
		}
	}
	return true
}

// valuesMeet reports whether a label with values meets one requirement.
func valuesMeet(r snapshot.Requirement, values []string) bool {
	has := len(values) > 0
	switch corev1.NodeSelectorOperator(r.Operator) {
	case corev1.NodeSelectorOpIn:
		return has && slices.ContainsFunc(values, func(v string) bool { return slices.Contains(r.Values, v) })
	case corev1.NodeSelectorOpNotIn:
		return !slices.ContainsFunc(values, func(v string) bool { return slices.Contains(r.Values, v) })
	case corev1.NodeSelectorOpExists:
		return has
	case corev1.NodeSelectorOpDoesNotExist:
		return !has
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !has || len(r.Values) != 1 {
			return false
		}
		v, err1 := strconv.Atoi(values[0])
		limit, err2 := strconv.Atoi(r.Values[0])
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == string(corev1.NodeSelectorOpGt) {
			return v > limit
		}
		return v < limit
	}
	return false
}
