package collect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpnet/kubectl-karpnet/internal/kubestream"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeCRD describes a custom resource read through the dynamic client.
type kubeCRD struct {
	source   string           // the snapshot Gap source
	group    string           // API group
	resource string           // plural resource name
	versions []string         // versions to try, preferred first
	reads    kubestream.Shape // what of each object the visit reads, when a list is decoded by parts (nil: all of it)
	// take reads an object of a list straight from its JSON text, before the visit (see
	// kubestream.Items); set by a read that has such a reader, nil for none.
	take func(raw []byte, names *kubestream.Names) bool
}

// kubeNodeClaimsCRD, kubeNodePoolsCRD, kubeNodeClassesCRD and kubeENIConfigsCRD describe the
// custom resources karpnet reads.
func kubeNodeClaimsCRD() kubeCRD {
	return kubeCRD{source: snapshot.SourceNodeClaims, group: snapshot.KarpenterGroup, resource: "nodeclaims",
		versions: []string{"v1", "v1beta1"}, reads: kubestream.NodeClaimReads}
}

func kubeNodePoolsCRD() kubeCRD {
	return kubeCRD{source: snapshot.SourceNodePools, group: snapshot.KarpenterGroup, resource: "nodepools", versions: []string{"v1", "v1beta1"}}
}

func kubeNodeClassesCRD() kubeCRD {
	return kubeCRD{source: snapshot.SourceNodeClasses, group: snapshot.AWSGroup, resource: "ec2nodeclasses", versions: []string{"v1", "v1beta1"}}
}

func kubeENIConfigsCRD() kubeCRD {
	return kubeCRD{source: snapshot.SourceENIConfigs, group: "crd.k8s.amazonaws.com", resource: "eniconfigs", versions: []string{"v1alpha1"}}
}

func kubeCNINodesCRD() kubeCRD {
	return kubeCRD{source: snapshot.SourceCNINodes, group: "vpcresources.k8s.aws", resource: "cninodes", versions: []string{"v1alpha1"}}
}

// gvr returns the resource at version v.
func (r kubeCRD) gvr(v string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.group, Version: v, Resource: r.resource}
}

// qualified returns resource.group, as RBAC rules and kubectl name it.
func (r kubeCRD) qualified() string { return r.resource + "." + r.group }

// notInstalledGap returns the Gap for a CRD that serves none of the versions karpnet reads.
func (r kubeCRD) notInstalledGap(remedy string) snapshot.Gap {
	return snapshot.Gap{
		Source: r.source,
		Reason: fmt.Sprintf("CRD not installed (%s %s)", r.group, strings.Join(r.versions, "/")),
		Remedy: remedy,
	}
}

// errKubeNotServed says that no version of a custom resource is served: its CRD is absent.
var errKubeNotServed = errors.New("resource not served")

// kubeListCRD lists every object of r at the first served version, passing each to visit. A
// list answered NotFound means the version is not served; errKubeNotServed follows when none is.
func (c *Collector) kubeListCRD(ctx context.Context, r kubeCRD, visit func(*unstructured.Unstructured)) error {
	for _, v := range r.versions {
		err := c.kubeListCustom(ctx, r.gvr(v), kubestream.Items{Take: r.take, Reads: r.reads}, visit)
		if apierrors.IsNotFound(err) {
			continue
		}
		return err
	}
	return errKubeNotServed
}

// kubeListCustom lists every object of gvr, passing each to visit. The list is read from the API
// server's watch cache (resourceVersion "0"), which answers it in one response: custom
// resources are stored as JSON, and a consistent list decodes every object from etcd, which
// is several times slower at thousands of NodeClaims and loads etcd during an incident. The
// cache is at most moments behind. Should the server answer from etcd instead, the list is
// paged. With Collector.REST set the answer is decoded one object at a time (kubeStreamList),
// as items says.
func (c *Collector) kubeListCustom(ctx context.Context, gvr schema.GroupVersionResource, items kubestream.Items, visit func(*unstructured.Unstructured)) error {
	return kubePaginate(metav1.ListOptions{Limit: c.kubePageSize(), ResourceVersion: "0"}, func(opts metav1.ListOptions) (string, error) {
		if c.REST != nil {
			return c.kubeStreamList(ctx, gvr, opts, items, visit)
		}
		list, err := c.Dynamic.Resource(gvr).List(ctx, opts)
		if err != nil {
			return "", err
		}
		for i := range list.Items {
			visit(&list.Items[i])
		}
		return list.GetContinue(), nil
	})
}

// kubeGetCRD reads the named objects of r with one GET each, at the first served version, and
// passes each to visit. Because a GET answers NotFound both for a missing object and for a
// version that is not served, a NotFound is settled with a one-item list of that version.
// Missing objects are left out; errKubeNotServed follows when no version is served.
func (c *Collector) kubeGetCRD(ctx context.Context, r kubeCRD, names []string, visit func(*unstructured.Unstructured)) error {
	for _, v := range r.versions {
		items, served, err := c.kubeGetAt(ctx, r.gvr(v), names)
		if err != nil {
			return err
		}
		if served {
			for i := range items {
				visit(&items[i])
			}
			return nil
		}
	}
	return errKubeNotServed
}

// kubeGetAt reads names at one version; served is false when the version is not served.
func (c *Collector) kubeGetAt(ctx context.Context, gvr schema.GroupVersionResource, names []string) (items []unstructured.Unstructured, served bool, err error) {
	probed := false
	for _, name := range kubeUnique(names) {
		u, err := c.Dynamic.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			items = append(items, *u)
			continue
		}
		if !apierrors.IsNotFound(err) {
			return nil, false, err
		}
		if probed {
			continue
		}
		_, err = c.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
		if apierrors.IsNotFound(err) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		probed = true
	}
	return items, true, nil
}

// kubeReadCRD reads r by name when byName is set, else lists it, and passes each object to
// visit. It records a Gap (CRD not installed with notInstalled as remedy, forbidden, other API
// errors) instead of an error; the error is set only when collection must end.
func (c *Collector) kubeReadCRD(ctx context.Context, s *snapshot.Snapshot, r kubeCRD, byName bool, names []string, notInstalled string, visit func(*unstructured.Unstructured)) error {
	var err error
	verb := "list"
	if byName {
		if len(names) == 0 {
			return nil
		}
		verb = "get"
		err = c.kubeGetCRD(ctx, r, names, visit)
	} else {
		err = c.kubeListCRD(ctx, r, visit)
	}
	return c.kubeCRDRead(s, r, verb, err, notInstalled)
}

// kubeCRDRead turns what reading r with verb ended with into what kubeReadCRD returns: nil,
// a gap in s (notInstalled, when set, is the remedy of a CRD the API server does not serve;
// empty, such a CRD is no gap), or the error that ends the collection.
func (c *Collector) kubeCRDRead(s *snapshot.Snapshot, r kubeCRD, verb string, err error, notInstalled string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errKubeNotServed):
		if notInstalled != "" {
			s.Gaps = append(s.Gaps, r.notInstalledGap(notInstalled))
		}
		return nil
	default:
		return c.kubeFail(s, r.source, verb, r.qualified(), err)
	}
}

// kubeSortByName sorts items by the name key returns.
func kubeSortByName[T any](items []T, name func(*T) string) {
	slices.SortFunc(items, func(a, b T) int { return strings.Compare(name(&a), name(&b)) })
}
