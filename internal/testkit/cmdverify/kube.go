package cmdverify

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// resources are the API resources of the kinds a remedy targets.
var resources = map[string]schema.GroupVersionResource{
	"Node":           {Version: "v1", Resource: "nodes"},
	"Pod":            {Version: "v1", Resource: "pods"},
	"ServiceAccount": {Version: "v1", Resource: "serviceaccounts"},
	"ConfigMap":      {Version: "v1", Resource: "configmaps"},
	"DaemonSet":      {Group: "apps", Version: "v1", Resource: "daemonsets"},
	"Deployment":     {Group: "apps", Version: "v1", Resource: "deployments"},
	"NodePool":       {Group: "karpenter.sh", Version: "v1", Resource: "nodepools"},
	"NodeClaim":      {Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"},
	"EC2NodeClass":   {Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"},
	"NodeClass":      {Group: "eks.amazonaws.com", Version: "v1", Resource: "nodeclasses"},
	"ENIConfig":      {Group: "crd.k8s.amazonaws.com", Version: "v1alpha1", Resource: "eniconfigs"},
}

// Cluster puts the objects of a command in an API server, and reads them back.
type Cluster struct {
	Dynamic dynamic.Interface
}

func (c Cluster) resource(kind, namespace string) (dynamic.ResourceInterface, error) {
	gvr, ok := resources[kind]
	if !ok {
		return nil, fmt.Errorf("no API resource known for kind %s", kind)
	}
	if namespace != "" {
		return c.Dynamic.Resource(gvr).Namespace(namespace), nil
	}
	return c.Dynamic.Resource(gvr), nil
}

// Put replaces each object of objs in the API server by the manifest: an object of the same
// name is deleted first (its finalizers removed), so that a command of one test case never
// runs against another case's object.
func (c Cluster) Put(ctx context.Context, objs []map[string]any) error {
	for _, m := range objs {
		u := &unstructured.Unstructured{Object: m}
		r, err := c.resource(u.GetKind(), u.GetNamespace())
		if err != nil {
			return err
		}
		if err := c.remove(ctx, r, u.GetName()); err != nil {
			return err
		}
		if _, err := r.Create(ctx, u.DeepCopy(), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

// Clear deletes the objects refs name, for a command that creates them.
func (c Cluster) Clear(ctx context.Context, refs []Ref) error {
	for _, ref := range refs {
		r, err := c.resource(ref.Kind, ref.Namespace)
		if err != nil {
			return err
		}
		if err := c.remove(ctx, r, ref.Name); err != nil {
			return err
		}
	}
	return nil
}

// remove deletes an object at once, whatever finalizers it has; absent is fine.
func (c Cluster) remove(ctx context.Context, r dynamic.ResourceInterface, name string) error {
	if _, err := r.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("clearing the finalizers of %s: %w", name, err)
	}
	zero := int64(0)
	if err := r.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s: %w", name, err)
	}
	// The delete is immediate for the kinds above (no finalizer left, no kubelet to wait for);
	// a create that still finds the object fails with AlreadyExists and says so.
	return nil
}

// Get returns the object r names as the API server holds it, without its managed fields,
// for `kubectl patch --local -f`.
func (c Cluster) Get(ctx context.Context, ref Ref) (map[string]any, error) {
	r, err := c.resource(ref.Kind, ref.Namespace)
	if err != nil {
		return nil, err
	}
	u, err := r.Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("getting %s: %w", ref, err)
	}
	u.SetManagedFields(nil)
	return u.Object, nil
}

// ObjectOf returns the manifest of ref among objs.
func ObjectOf(objs []map[string]any, ref Ref) (map[string]any, error) {
	for _, m := range objs {
		u := unstructured.Unstructured{Object: m}
		if u.GetKind() == ref.Kind && u.GetName() == ref.Name && (u.GetNamespace() == ref.Namespace || !namespaced(ref.Kind)) {
			return m, nil
		}
	}
	var have []string
	for _, m := range objs {
		u := unstructured.Unstructured{Object: m}
		have = append(have, u.GetKind()+" "+u.GetName())
	}
	return nil, fmt.Errorf("no %s among the command's objects [%s]", ref, strings.Join(have, ", "))
}
