package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// deleteCRDs deletes crds, first clearing the finalizers of their objects so that the API
// server can remove them, and waits until the CRDs are gone.
func (k *Kube) deleteCRDs(ctx context.Context, crds []unstructured.Unstructured) error {
	for _, crd := range crds {
		for _, gvr := range kubeServedGVRs(&crd) {
			if err := k.clearFinalizers(ctx, gvr, "", ""); err != nil {
				return err
			}
		}
		err := k.dynamic.Resource(kubeCRDsGVR).Delete(ctx, crd.GetName(), metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting CRD %s: %w", crd.GetName(), err)
		}
	}
	for _, crd := range crds {
		err := kubePoll(ctx, kubeCRDTimeout, func(ctx context.Context) error {
			_, err := k.dynamic.Resource(kubeCRDsGVR).Get(ctx, crd.GetName(), metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err == nil {
				return errors.New("still present")
			}
			return err
		}, "waiting for CRD "+crd.GetName()+" to be deleted")
		if err != nil {
			return err
		}
	}
	return nil
}

// kubeCRDCreateDelay is how long after a CRD is established the API server delays creates
// of its objects (by this much, once).
const kubeCRDCreateDelay = 2 * time.Second

// createCRDs creates crds, waits until each is established, and then until the API server
// no longer delays the first create of their objects, so that tests do not pay that delay
// once per CRD.
func (k *Kube) createCRDs(ctx context.Context, crds []*unstructured.Unstructured) error {
	for _, crd := range crds {
		if _, err := k.dynamic.Resource(kubeCRDsGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating CRD %s: %w", crd.GetName(), err)
		}
	}
	var latest time.Time
	for _, crd := range crds {
		err := kubePoll(ctx, kubeCRDTimeout, func(ctx context.Context) error {
			got, err := k.dynamic.Resource(kubeCRDsGVR).Get(ctx, crd.GetName(), metav1.GetOptions{})
			if err != nil {
				return err
			}
			since, err := kubeEstablished(got)
			if since.After(latest) {
				latest = since
			}
			return err
		}, "waiting for CRD "+crd.GetName()+" to be established")
		if err != nil {
			return err
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Until(latest.Add(kubeCRDCreateDelay))):
		return nil
	}
}

// kubeEstablished returns when the CRD became established, or an error while it is not.
func kubeEstablished(crd *unstructured.Unstructured) (time.Time, error) {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != "Established" {
			continue
		}
		if m["status"] != "True" {
			return time.Time{}, fmt.Errorf("established is %v: %v", m["status"], m["message"])
		}
		since, err := time.Parse(time.RFC3339, fmt.Sprint(m["lastTransitionTime"]))
		if err != nil {
			return time.Time{}, fmt.Errorf("reading when CRD %s was established: %w", crd.GetName(), err)
		}
		return since, nil
	}
	return time.Time{}, errors.New("no Established condition yet")
}

// kubeServedGVRs returns the resources a CRD serves, one per served version.
func kubeServedGVRs(crd *unstructured.Unstructured) []schema.GroupVersionResource {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	var out []schema.GroupVersionResource
	for _, v := range versions {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		if served, _ := m["served"].(bool); served && name != "" {
			out = append(out, schema.GroupVersionResource{Group: group, Version: name, Resource: plural})
		}
	}
	return out
}

// waitServed waits until a list answers for every version that crds serve, and NotFound for
// every other version of a Karpenter resource.
func (k *Kube) waitServed(ctx context.Context, crds []*unstructured.Unstructured) error {
	served := map[schema.GroupVersionResource]bool{}
	for _, crd := range crds {
		for _, gvr := range kubeServedGVRs(crd) {
			served[gvr] = true
		}
	}
	for _, gr := range kubeKarpenterResources() {
		for _, v := range kubeKarpenterVersions() {
			gvr := gr.WithVersion(v)
			want := served[gvr]
			err := kubePoll(ctx, kubeCRDTimeout, func(ctx context.Context) error {
				_, err := k.dynamic.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
				switch {
				case want && err == nil, !want && apierrors.IsNotFound(err):
					return nil
				case err == nil:
					return errors.New("still served")
				default:
					return err
				}
			}, fmt.Sprintf("waiting for %s (served: %t)", gvr, want))
			if err != nil {
				return err
			}
		}
	}
	return nil
}
