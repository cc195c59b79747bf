package harness

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kubeAutoModeManifest is the EKS Auto Mode NodeClass CRD, which CRDsV1AutoMode adds.
const kubeAutoModeManifest = "crds/automode.yaml"

// kubeAutoNodeClassesGVR is the EKS Auto Mode NodeClass resource.
var kubeAutoNodeClassesGVR = schema.GroupVersionResource{Group: "eks.amazonaws.com", Version: "v1", Resource: "nodeclasses"}

// load decodes the CRDs of the set: its Karpenter manifest and, for CRDsV1AutoMode, the Auto
// Mode NodeClass CRD.
func (s CRDSet) load() ([]*unstructured.Unstructured, error) {
	file, err := s.manifest()
	if err != nil {
		return nil, err
	}
	crds, err := kubeLoadManifest(file)
	if err != nil || s != CRDsV1AutoMode {
		return crds, err
	}
	auto, err := kubeLoadManifest(kubeAutoModeManifest)
	if err != nil {
		return nil, err
	}
	return append(crds, auto...), nil
}
