package collect

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeIMDSPods lists the pods off the host network of every namespace (field selector
// spec.hostNetwork=false, paged, from the API server's watch cache) and keeps those bound to a
// node that need the instance metadata service (kubeIMDSNeed). At most kubePodPages pages are
// read: past them a gap says so and none is kept. A run scoped to some nodes reads none.
func (c *Collector) kubeIMDSPods(ctx context.Context, s *snapshot.Snapshot, scope Scope) error {
	if kubeScoped(scope) {
		return nil
	}
	var out []snapshot.IMDSPod
	opts := metav1.ListOptions{Limit: c.kubePageSize(), FieldSelector: "spec.hostNetwork=false", ResourceVersion: "0"}
	err := c.kubePodPaginate(opts, func(opts metav1.ListOptions) (string, error) {
		list, err := c.Kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, opts)
		if err != nil {
			return "", err
		}
		for i := range list.Items {
			p := &list.Items[i]
			if p.Spec.HostNetwork || p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
				continue
			}
			if why, ok := kubeIMDSNeed(&p.Spec); ok {
				out = append(out, snapshot.IMDSPod{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName, Why: why,
					Scheduling: kubeScheduling(p.Spec)})
			}
		}
		return list.Continue, nil
	})
	if errors.Is(err, errKubeTooManyPods) {
		s.Notes = append(s.Notes, kubeTooManyPodsNote("imds-hop-limit-blocks-pods", "pods off the host network",
			"judge by hand the workloads that call AWS APIs off the host network: whether their pods' env has IRSA or EKS "+
				"Pod Identity variables, and whether their nodes' EC2NodeClass sets spec.metadataOptions.httpPutResponseHopLimit 2"))
		return nil
	}
	if err != nil {
		return c.kubeFail(s, snapshot.SourceIMDSPods, "list", "pods in all namespaces", err)
	}
	slices.SortFunc(out, func(a, b snapshot.IMDSPod) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	s.IMDSPods, s.IMDSPodsRead = out, true
	return nil
}

// kubeIMDSImages are the image repositories (the last path element) of AWS components that read
// the node's credentials or instance metadata from IMDS when they are given no other
// credentials: the AWS Load Balancer Controller, the CloudWatch agent, AWS for Fluent Bit and
// the AWS Distro for OpenTelemetry collector. The EBS CSI driver's controller (its container's
// first argument "controller") is matched apart: its node plugin falls back to Kubernetes for
// what IMDS does not answer.
var kubeIMDSImages = []string{"aws-for-fluent-bit", "aws-load-balancer-controller", "aws-otel-collector", "cloudwatch-agent"}

// kubeCredentialEnv are the variables that give an AWS SDK credentials before it falls back
// to IMDS: IRSA's (the EKS Pod Identity Webhook writes AWS_ROLE_ARN and
// AWS_WEB_IDENTITY_TOKEN_FILE), EKS Pod Identity's (AWS_CONTAINER_CREDENTIALS_FULL_URI, the
// agent at 169.254.170.23), and static, shared or configured credentials. Sorted: looked up by
// binary search.
var kubeCredentialEnv = []string{"AWS_ACCESS_KEY_ID", "AWS_CONFIG_FILE", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
	"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_PROFILE", "AWS_ROLE_ARN",
	"AWS_SHARED_CREDENTIALS_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE"}

// kubeIMDSNeed decides, conservatively, whether a pod needs IMDS, and says why: one of its
// containers runs an image of kubeIMDSImages (or the EBS CSI controller), or sets AWS_REGION or
// AWS_DEFAULT_REGION (an AWS SDK user), and no container has a variable of kubeCredentialEnv or
// takes its env from a Secret (which may hold keys). The webhooks of IRSA and EKS Pod
// Identity write their variables into the pod when it is created, so the pod's own spec tells;
// karpnet reads no service account and no Pod Identity association.
func kubeIMDSNeed(pod *corev1.PodSpec) (string, bool) {
	why := ""
	for _, ct := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		for _, e := range ct.EnvFrom {
			if e.SecretRef != nil {
				return "", false
			}
		}
		for _, e := range ct.Env {
			if _, ok := slices.BinarySearch(kubeCredentialEnv, e.Name); ok {
				return "", false
			}
			if why == "" && (e.Name == "AWS_REGION" || e.Name == "AWS_DEFAULT_REGION") {
				why = e.Name + " set"
			}
		}
		name, _, _ := strings.Cut(ct.Image, "@")
		name, _, _ = strings.Cut(name[strings.LastIndex(name, "/")+1:], ":")
		switch {
		case slices.Contains(kubeIMDSImages, name):
			why = "image " + name
		case name == "aws-ebs-csi-driver" && len(ct.Args) > 0 && ct.Args[0] == "controller":
			why = "image " + name + " (controller)"
		}
	}
	return why, why != ""
}
