package harness

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"regexp"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// kubeCRDFiles holds the CRD manifests: one file per Karpenter set, the ENIConfig, CNINode and
// CiliumNode CRDs and the EKS Auto Mode NodeClass CRD.
//
//go:embed crds/*.yaml
var kubeCRDFiles embed.FS

// CRDSet names a set of Karpenter CRDs that InstallCRDs installs.
type CRDSet string

// The Karpenter CRD sets.
const (
	// CRDsV1 is karpenter.sh/v1 NodePool and NodeClaim, and EC2NodeClass stored at
	// karpenter.k8s.aws/v1 and also served at v1beta1.
	CRDsV1 CRDSet = "v1"
	// CRDsV1beta1 is karpenter.sh/v1beta1 NodePool and NodeClaim, and EC2NodeClass at
	// karpenter.k8s.aws/v1beta1 only.
	CRDsV1beta1 CRDSet = "v1beta1"
	// CRDsV1AutoMode is CRDsV1 plus the EKS Auto Mode NodeClass at eks.amazonaws.com/v1: a
	// cluster with both self-managed Karpenter and Auto Mode.
	CRDsV1AutoMode CRDSet = "v1-automode"
	// CRDsNone is no Karpenter CRD at all.
	CRDsNone CRDSet = "none"
)

// kubeCRDSetLabel marks an installed CRD with the set it came from.
const kubeCRDSetLabel = "e2e.karpnet.io/crd-set"

// kubeCRDTimeout bounds each wait for CRDs to be deleted, established or served.
const kubeCRDTimeout = 60 * time.Second

// kubeCRDsGVR is the CustomResourceDefinition resource.
var kubeCRDsGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// kubeKarpenterGroups are the API groups whose CRDs InstallCRDs replaces: Karpenter's and
// EKS Auto Mode's.
func kubeKarpenterGroups() []string {
	return []string{"karpenter.sh", "karpenter.k8s.aws", "eks.amazonaws.com"}
}

// kubeKarpenterResources are the Karpenter resources of every set, by group.
func kubeKarpenterResources() []schema.GroupResource {
	return []schema.GroupResource{
		{Group: "karpenter.sh", Resource: "nodeclaims"},
		{Group: "karpenter.sh", Resource: "nodepools"},
		{Group: "karpenter.k8s.aws", Resource: "ec2nodeclasses"},
		{Group: "eks.amazonaws.com", Resource: "nodeclasses"},
	}
}

// kubeKarpenterVersions are the versions a Karpenter resource may be served at.
func kubeKarpenterVersions() []string { return []string{"v1", "v1beta1"} }

// manifest returns the embedded Karpenter file of the set, "" for CRDsNone; load adds the Auto
// Mode CRD of CRDsV1AutoMode.
func (s CRDSet) manifest() (string, error) {
	switch s {
	case CRDsV1, CRDsV1AutoMode:
		return "crds/v1.yaml", nil
	case CRDsV1beta1:
		return "crds/v1beta1.yaml", nil
	case CRDsNone:
		return "", nil
	default:
		return "", fmt.Errorf("unknown CRD set %q: use CRDsV1, CRDsV1beta1, CRDsV1AutoMode or CRDsNone", string(s))
	}
}

// kubeDocSeparator splits a multi-document YAML file.
var kubeDocSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// kubeLoadManifest decodes every object of an embedded multi-document YAML file.
func kubeLoadManifest(name string) ([]*unstructured.Unstructured, error) {
	if name == "" {
		return nil, nil
	}
	data, err := kubeCRDFiles.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	var objs []*unstructured.Unstructured
	for i, doc := range kubeDocSeparator.Split(string(data), -1) {
		if len(bytes.TrimSpace([]byte(doc))) == 0 {
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			return nil, fmt.Errorf("decoding document %d of %s: %w", i, name, err)
		}
		if m == nil { // only comments
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
	return objs, nil
}

// installVPCCRDs creates the CRDs every EKS cluster with the VPC CNI has, ENIConfig,
// CNINode and SecurityGroupPolicy, and Cilium's CiliumNode, and waits until they are served.
func (k *Kube) installVPCCRDs(ctx context.Context) error {
	for _, c := range []struct {
		file string
		gvr  schema.GroupVersionResource
	}{{"crds/eniconfig.yaml", kubeENIConfigsGVR}, {"crds/cninode.yaml", kubeCNINodesGVR}, {"crds/securitygrouppolicy.yaml", kubeSGPsGVR},
		{"crds/ciliumnode.yaml", kubeCiliumNodesGVR}} {
		crds, err := kubeLoadManifest(c.file)
		if err != nil {
			return err
		}
		if err := k.createCRDs(ctx, crds); err != nil {
			return err
		}
		if err := kubePoll(ctx, kubeCRDTimeout, func(ctx context.Context) error {
			_, err := k.dynamic.Resource(c.gvr).List(ctx, metav1.ListOptions{Limit: 1})
			return err
		}, "waiting for "+c.gvr.Resource+" to be served"); err != nil {
			return err
		}
	}
	return nil
}

// InstallCRDs replaces the Karpenter CRDs with set and waits until they are established and
// every version is served (and the versions outside the set are not). Deleting a CRD deletes
// its objects, finalizers or not. When set is already installed its CRDs are kept, and so
// are their objects: Reset deletes those.
func (k *Kube) InstallCRDs(ctx context.Context, set CRDSet) error {
	crds, err := set.load()
	if err != nil {
		return err
	}
	for _, crd := range crds {
		crd.SetLabels(map[string]string{kubeCRDSetLabel: string(set)})
	}
	installed, err := k.karpenterCRDs(ctx)
	if err != nil {
		return err
	}
	if kubeSameCRDs(installed, crds, set) {
		return k.waitServed(ctx, crds)
	}
	if err := k.deleteCRDs(ctx, installed); err != nil {
		return err
	}
	if err := k.createCRDs(ctx, crds); err != nil {
		return err
	}
	return k.waitServed(ctx, crds)
}

// karpenterCRDs lists the installed CRDs of Karpenter's API groups.
func (k *Kube) karpenterCRDs(ctx context.Context) ([]unstructured.Unstructured, error) {
	list, err := k.dynamic.Resource(kubeCRDsGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing CRDs: %w", err)
	}
	var out []unstructured.Unstructured
	for _, crd := range list.Items {
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		if slices.Contains(kubeKarpenterGroups(), group) {
			out = append(out, crd)
		}
	}
	return out, nil
}

// kubeSameCRDs reports whether installed are exactly the CRDs of set.
func kubeSameCRDs(installed []unstructured.Unstructured, want []*unstructured.Unstructured, set CRDSet) bool {
	if len(installed) != len(want) {
		return false
	}
	for _, crd := range installed {
		if crd.GetLabels()[kubeCRDSetLabel] != string(set) || crd.GetDeletionTimestamp() != nil {
			return false
		}
	}
	return true
}
