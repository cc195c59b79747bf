package diagnose

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestIMDSHopLimitBlocksPods(t *testing.T) {
	// metadata sets the instance's metadata options and, when class > 0, the class's hop limit.
	metadata := func(hop int32, tokens string, class int32) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.Instances[0].MetadataOptions = snapshot.MetadataOptions{HTTPEndpoint: "enabled", HTTPTokens: tokens, HTTPPutResponseHopLimit: hop}
			if class > 0 {
				s.NodeClasses[0].MetadataOptions = &snapshot.MetadataOptions{HTTPEndpoint: "enabled", HTTPTokens: "required",
					HTTPPutResponseHopLimit: class}
			}
		}
	}
	pods := func(s *snapshot.Snapshot) {
		s.IMDSPodsRead = true
		s.IMDSPods = []snapshot.IMDSPod{
			{Namespace: "kube-system", Name: "aws-load-balancer-controller-7d9f-x2k", Node: nodeA, Why: "image aws-load-balancer-controller"},
			{Namespace: "shop", Name: "orders-5c8-abc", Node: nodeA, Why: "AWS_REGION set"},
			{Namespace: "shop", Name: "elsewhere", Node: "ip-10-0-9-9.us-west-2.compute.internal", Why: "AWS_REGION set"},
		}
	}
	const mngNode = "ip-10-0-9-9.us-west-2.compute.internal"
	// elsewhere puts a load balancer controller without credentials on a managed node group's
	// node (not in the snapshot's nodes), with the given nodeSelector and tolerations.
	elsewhere := func(selector map[string]string, tolerations []corev1.Toleration) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.IMDSPodsRead = true
			s.IMDSPods = append(s.IMDSPods, snapshot.IMDSPod{Namespace: "kube-system", Name: "aws-load-balancer-controller-mng",
				Node: mngNode, Why: "image aws-load-balancer-controller",
				Scheduling: &snapshot.Scheduling{NodeSelector: selector, Tolerations: tolerations}})
		}
	}
	const msg = "1 node of EC2NodeClass default requires IMDSv2 with an httpPutResponseHopLimit of 1 (" + nodeA + "), so the " +
		"answer to a token request stops at the host; 2 pods that need IMDS run there off the host network without IRSA or EKS " +
		"Pod Identity credentials in their env: kube-system/aws-load-balancer-controller-7d9f-x2k on " + nodeA +
		" (image aws-load-balancer-controller), shop/orders-5c8-abc on " + nodeA + " (AWS_REGION set)"
	const remedy = "give these workloads IRSA (annotate their service account with eks.amazonaws.com/role-arn) or an EKS Pod " +
		"Identity association and recreate their pods"
	patch := Command{
		Argv: []string{"kubectl", "patch", "ec2nodeclass", "default", "--type", "merge", "-p",
			`{"spec":{"metadataOptions":{"httpPutResponseHopLimit":2}}}`},
		Changes: "ec2nodeclass/default",
		Affects: "every node of EC2NodeClass default drifts (metadataOptions is part of its hash) and Karpenter replaces it: " + defaultPoolNodes,
	}
	runCheckCases(t, imdsHopLimitBlocksPods, []checkCase{
		{name: "no pod needs IMDS: silent", edit: metadata(1, "required", 1)},
		{name: "hop limit 1 and IMDSv2 required with pods that need IMDS fires, with the class patch",
			edit: edits(metadata(1, "required", 1), pods),
			want: []Finding{{ID: "imds-hop-limit-blocks-pods", Severity: Warning, Resource: "ec2nodeclass/default", Message: msg,
				Remedy:   remedy + ", or set spec.metadataOptions.httpPutResponseHopLimit to 2 on EC2NodeClass default",
				Commands: []Command{patch}}}},
		{name: "hop limit 2 is clean", edit: edits(metadata(2, "required", 2), pods)},
		{name: "IMDSv1 allowed is clean", edit: edits(metadata(1, "optional", 1), pods)},
		{name: "the endpoint disabled is another matter", edit: edits(metadata(1, "required", 1), pods, func(s *snapshot.Snapshot) {
			s.Instances[0].MetadataOptions.HTTPEndpoint = "disabled"
		})},
		{name: "an instance that says nothing of its metadata options is silent", edit: pods},
		{name: "a pod on a managed node group that the pool admits may land on hop limit 1",
			edit: edits(metadata(2, "required", 1), elsewhere(nil, nil)),
			want: []Finding{{ID: "imds-hop-limit-blocks-pods", Severity: Warning, Resource: "ec2nodeclass/default",
				Message: "EC2NodeClass default launches nodes that require IMDSv2 with an httpPutResponseHopLimit of 1 " +
					"(spec.metadataOptions), so the answer to a token request stops at the host; 1 pod that needs IMDS off the host " +
					"network without IRSA or EKS Pod Identity credentials runs elsewhere now and may be scheduled onto its nodes, " +
					"where it would get no token: kube-system/aws-load-balancer-controller-mng on " + mngNode +
					" now (image aws-load-balancer-controller; NodePool default admits it)",
				Remedy:   remedy + ", or set spec.metadataOptions.httpPutResponseHopLimit to 2 on EC2NodeClass default",
				Commands: []Command{patch}}}},
		{name: "a pod held to its node group by nodeSelector stays there",
			edit: edits(metadata(2, "required", 1), elsewhere(map[string]string{"eks.amazonaws.com/nodegroup": "ng-1"}, nil))},
		{name: "a pod that does not tolerate the pool's taint stays off it",
			edit: edits(metadata(2, "required", 1), elsewhere(nil, nil), func(s *snapshot.Snapshot) {
				s.NodePools[0].Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
			})},
		{name: "a pod asking for Linux may land",
			edit: edits(metadata(2, "required", 1), elsewhere(map[string]string{corev1.LabelOSStable: "linux"},
				[]corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}), func(s *snapshot.Snapshot) {
				s.NodePools[0].Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
			}),
			want: []Finding{{ID: "imds-hop-limit-blocks-pods", Severity: Warning, Resource: "ec2nodeclass/default",
				Message: "EC2NodeClass default launches nodes that require IMDSv2 with an httpPutResponseHopLimit of 1 " +
					"(spec.metadataOptions), so the answer to a token request stops at the host; 1 pod that needs IMDS off the host " +
					"network without IRSA or EKS Pod Identity credentials runs elsewhere now and may be scheduled onto its nodes, " +
					"where it would get no token: kube-system/aws-load-balancer-controller-mng on " + mngNode +
					" now (image aws-load-balancer-controller; NodePool default admits it)",
				Remedy:   remedy + ", or set spec.metadataOptions.httpPutResponseHopLimit to 2 on EC2NodeClass default",
				Commands: []Command{patch}}}},
		{name: "the class already at 2: the nodes predate it and drift, no patch",
			edit: edits(metadata(1, "required", 2), pods),
			want: []Finding{{ID: "imds-hop-limit-blocks-pods", Severity: Warning, Resource: "ec2nodeclass/default",
				Message: msg + "; the class sets 2 now, and these nodes were launched before",
				Remedy:  remedy + ", or let Karpenter replace the drifted nodes, which launch with the class's hop limit 2"}}},
	})
}
