package diagnose

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// imdsHopLimitSafe is the IMDSv2 token's hop limit that reaches a pod behind the node's
// network namespace: one hop to the host, one more to the container.
const imdsHopLimitSafe = 2

var specIMDSHopLimitBlocksPods = &Spec{
	ID:       "imds-hop-limit-blocks-pods",
	Severity: Warning,
	Family:   FamilyNodeAgents,
	Examines: []string{SubjectNodeClass},
	Title:    "pods that need the instance metadata service run off the host network on nodes whose IMDSv2 hop limit is 1",
	FiresWhen: "an EC2NodeClass's nodes' instances (DescribeInstances metadataOptions) require IMDSv2 (`httpTokens: required`) " +
		"with `httpPutResponseHopLimit: 1`, Karpenter v1's default, and a pod bound to one of them runs off the host network " +
		"and needs IMDS, or the class's own `spec.metadataOptions` say so and such a pod runs elsewhere (a managed node " +
		"group) while a NodePool of the class admits it (its tolerations cover the pool's taints, and each label its " +
		"nodeSelector or required affinity asks for is one the pool's nodes carry or a well-known label Karpenter sets). " +
		"A pod needs IMDS when one of its containers runs the image of an AWS component that reads the node's credentials or " +
		"metadata (aws-load-balancer-controller, cloudwatch-agent, aws-for-fluent-bit, aws-otel-collector, the EBS CSI " +
		"driver's controller) or sets `AWS_REGION`/`AWS_DEFAULT_REGION` for an AWS SDK, and no container has IRSA " +
		"(`AWS_ROLE_ARN`, `AWS_WEB_IDENTITY_TOKEN_FILE`), EKS Pod Identity (`AWS_CONTAINER_CREDENTIALS_FULL_URI`) or " +
		"static, shared or configured credentials (`AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, `AWS_SHARED_CREDENTIALS_FILE`, " +
		"`AWS_CONFIG_FILE`) in its env, nor env from a Secret",
	NotOn: "pods on the host network; pods with IRSA or EKS Pod Identity credentials in their env (the webhooks write them " +
		"into the pod when it is created: karpnet reads neither service accounts nor Pod Identity associations, which are " +
		"in the EKS API, so a pod created before its service account was annotated or associated is judged as it runs); " +
		"a hop limit of 2 or more; `httpTokens: optional` (IMDSv1 answers without a token); the endpoint disabled; " +
		"EKS Auto Mode nodes; nodes whose instance says nothing of its metadata options; pods elsewhere that ask for a label " +
		"the pool's nodes do not carry (a node group's), or that run on Fargate; runs scoped to some nodes",
	Why: "a pod off the host network is one network hop behind the node: with a hop limit of 1 the answer to its IMDSv2 " +
		"token request never reaches it, and with IMDSv1 off the AWS SDK finds no credentials and no Region, so " +
		"controllers that worked on managed node groups (whose launch templates often set 2) fail on Karpenter's nodes",
	Remedy: "give the workloads IRSA or EKS Pod Identity credentials and recreate their pods, or set the EC2NodeClass's " +
		"`spec.metadataOptions.httpPutResponseHopLimit` to 2",
	Scope: "the hop limit set on the EC2NodeClass as a merge patch of spec.metadataOptions.httpPutResponseHopLimit alone " +
		"(the CRD defaults the other fields); metadataOptions is part of the class's hash, so every node of the class " +
		"drifts and is replaced, which the Affects counts. IRSA or Pod Identity for the named workloads reaches only them " +
		"and keeps other pods off the node's role, which is why the remedy names it first",
	Needs: []string{snapshot.SourceIMDSPods, snapshot.SourceDescribeInstances},
	Sources: []string{
		"aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go (MetadataOptions), pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml",
		"aws/karpenter-provider-aws#7200, aws/karpenter-provider-aws#7548, kubernetes-sigs/karpenter#1769, eksctl-io/eksctl#7665",
		"https://docs.aws.amazon.com/eks/latest/userguide/specify-service-account-role.html (IRSA: the webhook sets the credentials when the pod is created)",
		"https://docs.aws.amazon.com/eks/latest/userguide/pod-id-how-it-works.html (EKS Pod Identity: the container credential provider)",
		"https://docs.aws.amazon.com/eks/latest/userguide/pod-id-agent-setup.html (the agent at 169.254.170.23)",
		"kubernetes/kubernetes pkg/apis/core/v1/conversion.go, pkg/registry/core/pod/strategy.go (spec.hostNetwork is a pod field selector)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/apis/v1/ec2nodeclass.go (EC2NodeClassSpec.MetadataOptions, MetadataOptions)",
			"metadataOptions defaults to httpEndpoint enabled, httpProtocolIPv6 disabled, httpPutResponseHopLimit 1 and httpTokens required; each field has its own default when the object is given"},
		{UpstreamKarpenter, "pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (spec.metadataOptions)",
			"the CRD's default for metadataOptions is {httpEndpoint: enabled, httpProtocolIPv6: disabled, httpPutResponseHopLimit: 1, httpTokens: required}"},
		{UpstreamKarpenter, "pkg/apis/v1/ec2nodeclass.go (EC2NodeClass.Hash), pkg/apis/v1/ec2nodeclass_hash_test.go",
			"the hash covers the whole spec but fields tagged hash:\"ignore\"; MetadataOptions is not ignored, and the hash tests change it by HTTPPutResponseHopLimit: changing it drifts the class's NodeClaims"},
		{UpstreamEC2API, "types/types.go (Instance.MetadataOptions, InstanceMetadataOptionsResponse)",
			"DescribeInstances gives each instance's metadataOptions: HttpEndpoint, HttpPutResponseHopLimit (the hops the metadata token may travel), HttpTokens (required: IMDSv1 is off)"},
		{UpstreamEC2API, "deserializers.go (awsEc2query_deserializeDocumentInstanceMetadataOptionsResponse)",
			"the XML elements are metadataOptions/httpEndpoint, httpPutResponseHopLimit, httpTokens"},
		{UpstreamKubernetes, "pkg/apis/core/v1/conversion.go (the Pod field label conversion), pkg/registry/core/pod/strategy.go (ToSelectableFields)",
			"spec.hostNetwork is a field selector pods support, its value the pod's hostNetwork as true or false"},
		{UpstreamAWSDocs, "eks/latest/userguide/specify-service-account-role.html",
			"a service account is annotated eks.amazonaws.com/role-arn; the mutating webhook applies the credential variables only to pods created after, not to running ones"},
		{UpstreamAWSDocs, "eks/latest/userguide/pod-id-how-it-works.html, pod-id-agent-setup.html",
			"EKS Pod Identity credentials come through the SDKs' container credential provider, from the agent at 169.254.170.23 on each node"},
	},
}

// imdsHopLimitBlocksPods finds, per EC2NodeClass, the pods that need IMDS from off the host
// network on its nodes whose instances require IMDSv2 with a hop limit of 1: the token's answer
// stops at the host, and the pod gets neither credentials nor its Region.
var imdsHopLimitBlocksPods = Check{
	Spec: specIMDSHopLimitBlocksPods,
	Run: func(x *Index) []Finding {
		if len(x.Snapshot.IMDSPods) == 0 {
			return nil
		}
		byNode := map[string][]*snapshot.IMDSPod{}
		for i := range x.Snapshot.IMDSPods {
			p := &x.Snapshot.IMDSPods[i]
			byNode[p.Node] = append(byNode[p.Node], p)
		}
		type classPods struct {
			nodes []string
			pods  []string // running there
			can   []string // running elsewhere, which the class's pools admit
			class *snapshot.EC2NodeClass
		}
		classes := map[string]*classPods{}
		of := func(name string, class *snapshot.EC2NodeClass) *classPods {
			c := classes[name]
			if c == nil {
				c = &classPods{class: class}
				classes[name] = c
			}
			return c
		}
		placed := map[*snapshot.IMDSPod]bool{}
		for _, n := range x.Nodes {
			pods := byNode[n.Name()]
			if !n.EC2 { // Fargate's pods are scheduled by Fargate's own scheduler, never onto a pool
				for _, p := range pods {
					placed[p] = true
				}
				continue
			}
			if len(pods) == 0 || !n.EC2 || n.Instance == nil || n.AutoMode() || n.ClassName == "" || !imdsHopLimitOne(n.Instance.MetadataOptions) {
				continue
			}
			c := of(n.ClassName, n.Class)
			c.nodes = append(c.nodes, n.Name())
			for _, p := range pods {
				placed[p] = true
				c.pods = append(c.pods, fmt.Sprintf("%s/%s on %s (%s)", p.Namespace, p.Name, n.Name(), p.Why))
			}
		}
		// The pods that run elsewhere now and may be scheduled onto a pool whose class launches
		// nodes that stop the token at the host: what breaks once a managed node group is gone.
		for _, name := range sortedKeys(x.NodePools) {
			pool := x.NodePools[name]
			class := x.NodeClass(snapshot.KindEC2NodeClass, pool.NodeClassRef.Name)
			if class == nil || class.AutoMode() || class.MetadataOptions == nil || !imdsHopLimitOne(*class.MetadataOptions) ||
				poolKnownLabels(pool)[corev1.LabelOSStable] == OSWindows {
				continue
			}
			for i := range x.Snapshot.IMDSPods {
				p := &x.Snapshot.IMDSPods[i]
				if placed[p] || p.Scheduling == nil || !podAdmitsPool(p.Scheduling, pool) {
					continue
				}
				placed[p] = true
				c := of(class.Name, class)
				c.can = append(c.can, fmt.Sprintf("%s/%s on %s now (%s; NodePool %s admits it)", p.Namespace, p.Name, p.Node, p.Why, pool.Name))
			}
		}
		var out []Finding
		for _, name := range sortedKeys(classes) {
			c := classes[name]
			msg := imdsMessage(name, c.nodes, c.pods, c.can)
			remedy := "give these workloads IRSA (annotate their service account with eks.amazonaws.com/role-arn) or an EKS " +
				"Pod Identity association and recreate their pods"
			var cmds []Command
			switch hop := classHopLimit(c.class); {
			case hop >= imdsHopLimitSafe:
				msg += fmt.Sprintf("; the class sets %d now, and these nodes were launched before", hop)
				remedy += fmt.Sprintf(", or let Karpenter replace the drifted nodes, which launch with the class's hop limit %d", hop)
			case c.class != nil && !c.class.AutoMode():
				remedy += fmt.Sprintf(", or set spec.metadataOptions.httpPutResponseHopLimit to %d on EC2NodeClass %s", imdsHopLimitSafe, name)
				cmds = append(cmds, classHopLimitPatch(x, name))
			}
			out = append(out, Finding{
				Resource: "ec2nodeclass/" + name,
				Message:  msg,
				Remedy:   remedy,
				Commands: cmds,
			})
		}
		return out
	},
}

// imdsMessage says which of the class's nodes stop the token at the host and which pods that
// need IMDS run there (pods) or may be scheduled there (can).
func imdsMessage(class string, nodes, pods, can []string) string {
	var parts []string
	if len(nodes) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s of EC2NodeClass %s %s IMDSv2 with an httpPutResponseHopLimit of 1 (%s), so the "+
			"answer to a token request stops at the host; %d %s that %s IMDS %s there off the host network without IRSA or "+
			"EKS Pod Identity credentials in %s env: %s",
			len(nodes), plural(len(nodes), "node", "nodes"), class, plural(len(nodes), "requires", "require"),
			abbreviate(nodes, 3), len(pods), plural(len(pods), "pod", "pods"), plural(len(pods), "needs", "need"),
			plural(len(pods), "runs", "run"), plural(len(pods), "its", "their"), abbreviate(pods, 5)))
	} else {
		parts = append(parts, fmt.Sprintf("EC2NodeClass %s launches nodes that require IMDSv2 with an httpPutResponseHopLimit "+
			"of 1 (spec.metadataOptions), so the answer to a token request stops at the host", class))
	}
	if len(can) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s that %s IMDS off the host network without IRSA or EKS Pod Identity credentials "+
			"%s elsewhere now and may be scheduled onto its nodes, where %s would get no token: %s", len(can),
			plural(len(can), "pod", "pods"), plural(len(can), "needs", "need"), plural(len(can), "runs", "run"),
			plural(len(can), "it", "they"), abbreviate(can, 5)))
	}
	return strings.Join(parts, "; ")
}

// podAdmitsPool reports whether a pod whose scheduling is sched may be scheduled onto the
// pool's nodes, judged strictly: it tolerates the pool's taints, and each label its
// nodeSelector, or a term of its required node affinity, asks for is one the pool's nodes carry
// (a template label or a requirement, the pool's name) or a well-known label Karpenter sets on
// every node; a label the pool's nodes never carry (a managed node group's) rules them out.
func podAdmitsPool(sched *snapshot.Scheduling, pool *snapshot.NodePool) bool {
	if len(untoleratedPoolTaints(sched, pool)) > 0 {
		return false
	}
	may := func(r corev1.NodeSelectorRequirement) bool {
		if r.Key == snapshot.LabelNodePool { // every node of the pool carries the pool's name
			switch r.Operator {
			case corev1.NodeSelectorOpIn:
				return slices.Contains(r.Values, pool.Name)
			case corev1.NodeSelectorOpNotIn:
				return !slices.Contains(r.Values, pool.Name)
			}
			return r.Operator == corev1.NodeSelectorOpExists
		}
		if poolContradicts(pool, r) {
			return false
		}
		switch r.Operator {
		case corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpDoesNotExist:
			return true
		}
		_, set, _ := poolAllowed(pool, r.Key)
		return set || karpenterLabel(r.Key)
	}
	for k, v := range sched.NodeSelector {
		if !may(corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{v}}) {
			return false
		}
	}
	aff := sched.Affinity
	if aff == nil || aff.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(aff.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		return true
	}
	for _, term := range aff.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if len(term.MatchFields) == 0 && !slices.ContainsFunc(term.MatchExpressions, func(r corev1.NodeSelectorRequirement) bool { return !may(r) }) {
			return true
		}
	}
	return false
}

// karpenterLabel reports whether Karpenter puts the label on every node it launches (the
// well-known labels of the node's OS, architecture, zone, Region, instance type and capacity
// type, and karpenter.k8s.aws/ instance labels), whatever the pool says.
func karpenterLabel(key string) bool {
	switch key {
	case corev1.LabelOSStable, corev1.LabelArchStable, corev1.LabelTopologyZone, corev1.LabelTopologyRegion,
		corev1.LabelInstanceTypeStable, corev1.LabelHostname, "karpenter.sh/capacity-type":
		return true
	}
	return strings.HasPrefix(key, "karpenter.k8s.aws/")
}

// imdsHopLimitOne reports whether an instance's metadata options stop an IMDSv2 token at the
// host: the endpoint on (or not said), tokens required, hop limit 1.
func imdsHopLimitOne(m snapshot.MetadataOptions) bool {
	return m.HTTPPutResponseHopLimit == 1 && strings.EqualFold(m.HTTPTokens, "required") && !strings.EqualFold(m.HTTPEndpoint, "disabled")
}

// classHopLimit is the class's spec.metadataOptions.httpPutResponseHopLimit; 0 when unknown.
func classHopLimit(c *snapshot.EC2NodeClass) int32 {
	if c == nil || c.MetadataOptions == nil {
		return 0
	}
	return c.MetadataOptions.HTTPPutResponseHopLimit
}

// classHopLimitPatch is the kubectl merge patch that sets the EC2NodeClass's
// spec.metadataOptions.httpPutResponseHopLimit to 2, leaving its other metadata options as
// they are. metadataOptions is part of the class's hash, so every node of the class drifts and
// Karpenter replaces it.
func classHopLimitPatch(x *Index, class string) Command {
	patch := map[string]any{"spec": map[string]any{"metadataOptions": map[string]any{"httpPutResponseHopLimit": imdsHopLimitSafe}}}
	return Command{
		Argv:    []string{"kubectl", "patch", "ec2nodeclass", class, "--type", "merge", "-p", jsonArg(patch)},
		Changes: "ec2nodeclass/" + class,
		Affects: fmt.Sprintf("every node of EC2NodeClass %s drifts (metadataOptions is part of its hash) and Karpenter "+
			"replaces it: %s", class, nodesAffected(x, "ec2nodeclass/"+class, func(m *NodeInfo) bool {
			return m.ClassName == class && m.ClassKind != snapshot.KindNodeClass
		})),
	}
}
