package collect

import (
	"context"
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubePolicyNames is how many names of each kind of policy a snapshot keeps: their existence
// and count are what matters.
const kubePolicyNames = 10

// kubeCalicoNamespaces are where calico-node runs: the Tigera operator's namespace, then the
// manifest install's.
var kubeCalicoNamespaces = [...]string{"calico-system", "kube-system"}

// The VPC CNI's policy kinds (networking.k8s.aws/v1alpha1), listed where served.
var (
	kubeClusterNetworkPoliciesGVR     = schema.GroupVersionResource{Group: "networking.k8s.aws", Version: "v1alpha1", Resource: "clusternetworkpolicies"}
	kubeApplicationNetworkPoliciesGVR = schema.GroupVersionResource{Group: "networking.k8s.aws", Version: "v1alpha1", Resource: "applicationnetworkpolicies"}
)

// kubePolicies reads what decides whether network policies are enforced, where that is in
// doubt: when EKS Auto Mode nodes run or aws-node's network policy agent is on, the
// amazon-vpc-cni ConfigMap's enable-network-policy-controller, which switches the network
// policy controller (the EKS control plane's, on standard clusters too) that writes the
// PolicyEndpoints the agent enforces; then, when Cilium does not run and the VPC CNI's policy
// agent is off or absent (or the controller is off, or a node reports NPANotRunning), one page
// of each kind of policy and, when some exist, the calico-node DaemonSet that may enforce them
// instead. A cluster whose agent and controller enforce policies costs one request.
func (c *Collector) kubePolicies(ctx context.Context, s *snapshot.Snapshot) error {
	s.NetworkPolicies, s.VPCCNIConfig, s.VPCCNIConfigState, s.Calico = nil, nil, "", ""
	auto := false
	for i := range s.Nodes {
		if kubeIsAutoNode(&s.Nodes[i]) {
			auto = true
			break
		}
	}
	if auto || kubePolicyAgentOn(s) {
		cm, err := c.Kube.CoreV1().ConfigMaps(kubeAWSNodeNamespace).Get(ctx, snapshot.VPCCNIConfigMap, metav1.GetOptions{})
		switch {
		case err == nil:
			s.VPCCNIConfigState = snapshot.ConfigMapFound
			if v, ok := cm.Data[snapshot.VPCCNIKeyPolicyEnable]; ok {
				s.VPCCNIConfig = map[string]string{snapshot.VPCCNIKeyPolicyEnable: v}
			}
		case apierrors.IsNotFound(err):
			s.VPCCNIConfigState = snapshot.ConfigMapNotFound
		default:
			if err := c.kubeFail(s, snapshot.SourceVPCCNIConfig, "get", "configmaps in kube-system", err); err != nil {
				return err
			}
		}
	}
	if !kubePolicyInDoubt(s, auto) {
		return nil
	}
	opts := metav1.ListOptions{Limit: c.kubePageSize(), ResourceVersion: "0"} // one page, from the watch cache
	list, err := c.Kube.NetworkingV1().NetworkPolicies("").List(ctx, opts)
	if apierrors.IsNotFound(err) {
		return nil // a list answered NotFound: the API server does not serve the kind, so it has none
	}
	if err != nil {
		return c.kubeFail(s, snapshot.SourceNetworkPolicies, "list", snapshot.SourceNetworkPolicies, err)
	}
	count := snapshot.PolicyCount{Kind: snapshot.KindNetworkPolicy}
	for i := range list.Items[:min(len(list.Items), kubePolicyNames)] {
		count.Names = append(count.Names, list.Items[i].Namespace+"/"+list.Items[i].Name)
	}
	kubeCountRest(s, snapshot.SourceNetworkPolicies, &count, len(list.Items), list.RemainingItemCount, list.Continue)
	if count.Count > 0 {
		s.NetworkPolicies = append(s.NetworkPolicies, count)
	} else {
		// The VPC CNI's own kinds matter only without a NetworkPolicy: one is enough to tell.
		for _, k := range []struct {
			kind, source string
			gvr          schema.GroupVersionResource
		}{
			{snapshot.KindClusterNetworkPolicy, snapshot.SourceClusterNetworkPolicies, kubeClusterNetworkPoliciesGVR},
			{snapshot.KindApplicationNetworkPolicy, snapshot.SourceApplicationNetworkPolicies, kubeApplicationNetworkPoliciesGVR},
		} {
			l, err := c.Dynamic.Resource(k.gvr).List(ctx, opts)
			if apierrors.IsNotFound(err) {
				continue // a list answered NotFound: the controller's CRD is not installed, so there are none
			}
			if err != nil {
				// Forbidden, a server error, a timeout: whether such policies exist is unknown, a gap.
				if err := c.kubeFail(s, k.source, "list", k.source, err); err != nil {
					return err
				}
				continue
			}
			count := snapshot.PolicyCount{Kind: k.kind}
			for _, it := range l.Items[:min(len(l.Items), kubePolicyNames)] {
				count.Names = append(count.Names, strings.TrimPrefix(it.GetNamespace()+"/"+it.GetName(), "/"))
			}
			kubeCountRest(s, k.source, &count, len(l.Items), l.GetRemainingItemCount(), l.GetContinue())
			if count.Count > 0 {
				s.NetworkPolicies = append(s.NetworkPolicies, count)
			}
		}
	}
	if len(s.NetworkPolicies) == 0 {
		return nil
	}
	for _, ns := range kubeCalicoNamespaces {
		_, err := c.Kube.AppsV1().DaemonSets(ns).Get(ctx, snapshot.CalicoDaemonSet, metav1.GetOptions{})
		switch {
		case err == nil:
			s.Calico = ns
			return nil
		case !apierrors.IsNotFound(err):
			return c.kubeFail(s, snapshot.SourceCalico, "get", "daemonsets.apps in "+ns, err)
		}
	}
	return nil
}

// kubeCountRest completes a count of one page of n items of source with the API server's
// remainingItemCount, or marks that more exist when it gives only a continue token (a page
// read from etcd rather than the watch cache). A remainingItemCount below zero, or one that
// would take the count past what an int32 holds, is no count the API server gives: the items
// received are counted, more are marked when a continue token came, and s gets a note.
func kubeCountRest(s *snapshot.Snapshot, source string, count *snapshot.PolicyCount, n int, remaining *int64, next string) {
	count.Count = n
	if remaining != nil && (*remaining < 0 || *remaining > math.MaxInt32-int64(n)) {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: the API server answered a page of %d with remainingItemCount %d, "+
			"which is no count; the %d received are counted", source, n, *remaining, n))
		remaining = nil
	}
	switch {
	case remaining != nil:
		count.Count += int(*remaining)
	case next != "":
		count.More = true
	}
}

// kubePolicyAgentOn reports whether aws-node runs the VPC CNI's network policy agent with
// --enable-network-policy=true.
func kubePolicyAgentOn(s *snapshot.Snapshot) bool {
	return s.AWSNode != nil && s.AWSNode.NodeAgent != nil && s.AWSNode.NodeAgent.NetworkPolicy
}

// kubePolicyInDoubt reports whether nothing may enforce network policies: Cilium does not run
// (it enforces them) and the VPC CNI's agent is off or absent in aws-node, or the network
// policy controller is off (the amazon-vpc-cni ConfigMap read and not enabling it) on EKS Auto
// Mode or beside an agent that is on, or a node reports NPANotRunning.
func kubePolicyInDoubt(s *snapshot.Snapshot, auto bool) bool {
	if s.Cilium != nil || s.Unavailable(snapshot.SourceCilium) {
		return false
	}
	if a := s.AWSNode; a != nil && (a.NodeAgent == nil || !a.NodeAgent.NetworkPolicy) {
		return true
	}
	if (auto || kubePolicyAgentOn(s)) && s.VPCCNIConfigState != "" && !s.Unavailable(snapshot.SourceVPCCNIConfig) &&
		s.VPCCNIConfig[snapshot.VPCCNIKeyPolicyEnable] != snapshot.VPCCNIPolicyEnabled {
		return true
	}
	for i := range s.Nodes {
		for _, c := range s.Nodes[i].Status.Conditions {
			if c.Type == snapshot.ConditionNetworkingReady && c.Status == corev1.ConditionFalse && c.Reason == snapshot.ReasonNPANotRunning {
				return true
			}
		}
	}
	return false
}
