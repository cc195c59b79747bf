package collect

import (
	"context"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The VPC CNI DaemonSet, its container and the setting that turns on custom networking.
const (
	kubeAWSNodeNamespace = "kube-system"
	kubeAWSNodeName      = "aws-node"
	kubeCustomNetworkEnv = snapshot.EnvCustomNetwork
	kubePodENIEnv        = snapshot.EnvPodENI
)

// kubeAWSNode reads the image and literal env of the aws-node container. A missing DaemonSet
// (another CNI, or EKS Auto Mode) leaves s.AWSNode nil without a Gap.
func (c *Collector) kubeAWSNode(ctx context.Context, s *snapshot.Snapshot, _ Scope) error {
	ds, err := c.Kube.AppsV1().DaemonSets(kubeAWSNodeNamespace).Get(ctx, kubeAWSNodeName, metav1.GetOptions{})
	switch {
	case err == nil:
		s.AWSNode = kubeDecodeAWSNode(ds)
		return nil
	case apierrors.IsNotFound(err):
		s.AWSNode = nil
		return nil
	default:
		return c.kubeFail(s, snapshot.SourceAWSNode, "get", "daemonsets.apps in kube-system", err)
	}
}

// kubeDecodeAWSNode keeps the aws-node container's image and the env values set literally of
// the settings karpnet reads (snapshot.KeptEnv; values taken from a ConfigMap, Secret or field
// reference, and every other variable, are skipped), the pod template's
// node selector, node affinity and tolerations, and status.desiredNumberScheduled when the
// DaemonSet controller has observed the current spec.
func kubeDecodeAWSNode(ds *appsv1.DaemonSet) *snapshot.AWSNode {
	pod := &ds.Spec.Template.Spec
	out := &snapshot.AWSNode{Scheduling: &snapshot.Scheduling{NodeSelector: pod.NodeSelector, Tolerations: pod.Tolerations}}
	if pod.Affinity != nil && pod.Affinity.NodeAffinity != nil {
		out.Scheduling.Affinity = pod.Affinity.NodeAffinity
	}
	if ds.Status.ObservedGeneration > 0 && ds.Status.ObservedGeneration >= ds.Generation {
		n := ds.Status.DesiredNumberScheduled
		out.DesiredNumberScheduled = &n
	}
	containers := pod.Containers
	for i := range containers {
		ct := &containers[i]
		if ct.Name == snapshot.NodeAgentContainer {
			out.NodeAgent = &snapshot.NodeAgent{Image: ct.Image, NetworkPolicy: kubeFlagOn(ct.Args, "enable-network-policy")}
		}
		if ct.Name != kubeAWSNodeName {
			continue
		}
		out.Image = ct.Image
		kept := snapshot.KeptEnv()
		for _, e := range ct.Env {
			if _, ok := slices.BinarySearch(kept, e.Name); e.ValueFrom != nil || !ok {
				continue // only literal values of the settings karpnet reads: others may be secrets
			}
			if out.Env == nil {
				out.Env = make(map[string]string)
			}
			out.Env[e.Name] = e.Value
		}
	}
	return out
}

// kubeENIConfigs lists the ENIConfigs. Their CRD being absent is a Gap only when aws-node has
// custom networking on, since ENIConfigs are then required.
func (c *Collector) kubeENIConfigs(ctx context.Context, s *snapshot.Snapshot, _ Scope) error {
	remedy := ""
	if strings.EqualFold(s.AWSNode.Setting(kubeCustomNetworkEnv, "false"), "true") {
		remedy = "install the ENIConfig CRD that ships with the VPC CNI, or set " +
			kubeCustomNetworkEnv + "=false on the aws-node DaemonSet"
	}
	s.ENIConfigs = nil
	err := c.kubeReadCRD(ctx, s, kubeENIConfigsCRD(), false, nil, remedy,
		func(u *unstructured.Unstructured) { s.ENIConfigs = append(s.ENIConfigs, kubeobj.DecodeENIConfig(u)) })
	kubeSortByName(s.ENIConfigs, func(v *snapshot.ENIConfig) string { return v.Name })
	return err
}

// kubeCNINodes lists the CNINodes when aws-node has security groups for pods on (ipamd asks
// the VPC resource controller for a trunk ENI through them since VPC CNI 1.15); otherwise
// nothing is read. A missing CRD or a forbidden list is a Gap, never an error.
func (c *Collector) kubeCNINodes(ctx context.Context, s *snapshot.Snapshot, _ Scope) error {
	s.CNINodes = nil
	if !strings.EqualFold(strings.TrimSpace(s.AWSNode.Setting(kubePodENIEnv, "false")), "true") {
		return nil
	}
	err := c.kubeReadCRD(ctx, s, kubeCNINodesCRD(), false, nil,
		"install the VPC resource controller's CNINode CRD (EKS has it from Kubernetes 1.25), or ignore this when "+
			"security groups for pods are not used", func(u *unstructured.Unstructured) {
			s.CNINodes = append(s.CNINodes, kubeDecodeCNINode(u))
		})
	kubeSortByName(s.CNINodes, func(v *snapshot.CNINode) string { return v.Name })
	return err
}

// kubeDecodeCNINode keeps a CNINode's name and spec.features.
func kubeDecodeCNINode(u *unstructured.Unstructured) snapshot.CNINode {
	out := snapshot.CNINode{Name: u.GetName()}
	items, _, _ := unstructured.NestedSlice(u.Object, "spec", "features")
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		name, _ := m["name"].(string)
		value, _ := m["value"].(string)
		if name != "" {
			out.Features = append(out.Features, snapshot.CNINodeFeature{Name: name, Value: value})
		}
	}
	return out
}

// kubeFlagOn reads a boolean Go flag from a container's args: --name or -name alone is true,
// --name=VALUE is VALUE; the last one given wins, and absent is false.
func kubeFlagOn(args []string, name string) bool {
	on := false
	for _, a := range args {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		flag, value, hasValue := strings.Cut(a, "=")
		if flag != name {
			continue
		}
		on = true
		if hasValue {
			on, _ = strconv.ParseBool(value)
		}
	}
	return on
}

// kubeSecurityGroupPoliciesGVR is the VPC resource controller's SecurityGroupPolicy
// (vpcresources.k8s.aws/v1beta1, config/crd/bases/vpcresources.k8s.aws_securitygrouppolicies.yaml).
var kubeSecurityGroupPoliciesGVR = schema.GroupVersionResource{Group: "vpcresources.k8s.aws", Version: "v1beta1", Resource: "securitygrouppolicies"}

// kubeSecurityGroupPolicies counts the SecurityGroupPolicies, one page from the watch cache
// with the first names, when aws-node turns on security groups for pods and the run reads every
// node (they concern NodePools, not the nodes a scoped run asks about); otherwise nothing is
// read. A list answered NotFound (the CRD is not installed) means there are none; Forbidden or
// a server error is a Gap.
func (c *Collector) kubeSecurityGroupPolicies(ctx context.Context, s *snapshot.Snapshot, scope Scope) error {
	s.SecurityGroupPolicies = nil
	if scope.narrowed() || !strings.EqualFold(strings.TrimSpace(s.AWSNode.Setting(kubePodENIEnv, "false")), "true") {
		return nil
	}
	opts := metav1.ListOptions{Limit: c.kubePageSize(), ResourceVersion: "0"}
	l, err := c.Dynamic.Resource(kubeSecurityGroupPoliciesGVR).List(ctx, opts)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return c.kubeFail(s, snapshot.SourceSecurityGroupPolicies, "list", snapshot.SourceSecurityGroupPolicies, err)
	}
	count := snapshot.PolicyCount{Kind: snapshot.KindSecurityGroupPolicy}
	for _, it := range l.Items[:min(len(l.Items), kubePolicyNames)] {
		count.Names = append(count.Names, it.GetNamespace()+"/"+it.GetName())
	}
	kubeCountRest(s, snapshot.SourceSecurityGroupPolicies, &count, len(l.Items), l.GetRemainingItemCount(), l.GetContinue())
	if count.Count > 0 {
		s.SecurityGroupPolicies = []snapshot.PolicyCount{count}
	}
	return nil
}
