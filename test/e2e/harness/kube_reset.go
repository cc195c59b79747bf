package harness

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// kubeResetTimeout bounds the wait for deleted objects to be gone.
const kubeResetTimeout = 30 * time.Second

// Resources that Reset empties besides Karpenter's.
var (
	kubeNodesGVR           = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	kubeEventsGVR          = schema.GroupVersionResource{Version: "v1", Resource: "events"}
	kubeDaemonSetsGVR      = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	kubeDeploymentsGVR     = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	kubeENIConfigsGVR      = schema.GroupVersionResource{Group: "crd.k8s.amazonaws.com", Version: "v1alpha1", Resource: "eniconfigs"}
	kubeCNINodesGVR        = schema.GroupVersionResource{Group: "vpcresources.k8s.aws", Version: "v1alpha1", Resource: "cninodes"}
	kubeCiliumNodesGVR     = schema.GroupVersionResource{Group: "cilium.io", Version: "v2", Resource: "ciliumnodes"}
	kubeSGPsGVR            = schema.GroupVersionResource{Group: "vpcresources.k8s.aws", Version: "v1beta1", Resource: "securitygrouppolicies"}
	kubeConfigMapsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	kubeNetworkPoliciesGVR = schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"}
	kubePodsGVR            = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// Reset deletes every Node, NodeClaim, NodePool, EC2NodeClass (at whichever version is
// served), EKS Auto Mode NodeClass (when its CRD is installed), ENIConfig, CNINode, SecurityGroupPolicy, CiliumNode,
// the DaemonSets of every namespace (karpnet lists them all in Cilium's ENI mode), the
// kube-system/cilium-operator Deployment, the ConfigMaps cilium-config and
// amazon-vpc-cni, the NetworkPolicies, the Pods (at once: no kubelet confirms a graceful
// deletion here) and the Events of all namespaces, clearing finalizers
// first, and waits until they are gone. The CRDs stay.
func (k *Kube) Reset(ctx context.Context) error {
	for _, gr := range kubeKarpenterResources() {
		for _, v := range kubeKarpenterVersions() {
			done, err := k.deleteAll(ctx, gr.WithVersion(v), "", "")
			if err != nil {
				return err
			}
			if done { // every served version reads the same objects
				break
			}
		}
	}
	for _, t := range []struct {
		gvr       schema.GroupVersionResource
		namespace string
		selector  string
	}{
		{kubeNodesGVR, "", ""},
		{kubeENIConfigsGVR, "", ""},
		{kubeCNINodesGVR, "", ""},
		{kubeSGPsGVR, metav1.NamespaceAll, ""},
		{kubeCiliumNodesGVR, "", ""},
		{kubeDaemonSetsGVR, metav1.NamespaceAll, ""},
		{kubeDeploymentsGVR, metav1.NamespaceSystem, "metadata.name=cilium-operator"},
		{kubeConfigMapsGVR, metav1.NamespaceSystem, "metadata.name=cilium-config"},
		{kubeConfigMapsGVR, metav1.NamespaceSystem, "metadata.name=amazon-vpc-cni"},
		{kubeNetworkPoliciesGVR, metav1.NamespaceAll, ""},
		{kubePodsGVR, metav1.NamespaceAll, ""},
		{kubeEventsGVR, metav1.NamespaceAll, ""},
	} {
		if _, err := k.deleteAll(ctx, t.gvr, t.namespace, t.selector); err != nil {
			return err
		}
	}
	return nil
}

// deleteAll deletes the objects of gvr in namespace (all namespaces, or cluster scope, when
// empty) that match the field selector, and waits until none is left. It reports false,
// without error, when gvr is not served.
func (k *Kube) deleteAll(ctx context.Context, gvr schema.GroupVersionResource, namespace, selector string) (bool, error) {
	opts := metav1.ListOptions{FieldSelector: selector}
	list, err := k.dynamic.Resource(gvr).Namespace(namespace).List(ctx, opts)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("listing %s: %w", gvr.Resource, err)
	}
	if len(list.Items) == 0 {
		return true, nil
	}
	if err := k.clearFinalizers(ctx, gvr, namespace, selector); err != nil {
		return true, err
	}
	var namespaces []string
	for _, item := range list.Items {
		if !slices.Contains(namespaces, item.GetNamespace()) {
			namespaces = append(namespaces, item.GetNamespace())
		}
	}
	background := metav1.DeletePropagationBackground
	del := metav1.DeleteOptions{PropagationPolicy: &background}
	if gvr == kubePodsGVR {
		now := int64(0)
		del.GracePeriodSeconds = &now // a pod bound to a node waits for its kubelet otherwise
	}
	for _, ns := range namespaces {
		err := k.dynamic.Resource(gvr).Namespace(ns).DeleteCollection(ctx, del, opts)
		if err != nil {
			return true, fmt.Errorf("deleting %s in %q: %w", gvr.Resource, ns, err)
		}
	}
	return true, kubePoll(ctx, kubeResetTimeout, func(ctx context.Context) error {
		left, err := k.dynamic.Resource(gvr).Namespace(namespace).List(ctx, opts)
		if err != nil {
			return err
		}
		if n := len(left.Items); n > 0 {
			return fmt.Errorf("%d left, first %s/%s", n, left.Items[0].GetNamespace(), left.Items[0].GetName())
		}
		return nil
	}, "waiting for "+gvr.Resource+" to be deleted")
}

// clearFinalizers removes the finalizers of every object of gvr in namespace matching the
// field selector. An unserved resource or an object deleted meanwhile is not an error.
func (k *Kube) clearFinalizers(ctx context.Context, gvr schema.GroupVersionResource, namespace, selector string) error {
	list, err := k.dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{FieldSelector: selector})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("listing %s: %w", gvr.Resource, err)
	}
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	for _, item := range list.Items {
		if len(item.GetFinalizers()) == 0 {
			continue
		}
		_, err := k.dynamic.Resource(gvr).Namespace(item.GetNamespace()).Patch(ctx, item.GetName(),
			types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("clearing the finalizers of %s %s: %w", gvr.Resource, item.GetName(), err)
		}
	}
	return nil
}
