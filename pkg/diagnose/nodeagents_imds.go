package diagnose

import (
	"fmt"
	"strings"

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
		"and needs IMDS: one of its containers runs the image of an AWS component that reads the node's credentials or " +
		"metadata (aws-load-balancer-controller, cloudwatch-agent, aws-for-fluent-bit, aws-otel-collector, the EBS CSI " +
		"driver's controller) or sets `AWS_REGION`/`AWS_DEFAULT_REGION` for an AWS SDK, and no container has IRSA " +
		"(`AWS_ROLE_ARN`, `AWS_WEB_IDENTITY_TOKEN_FILE`), EKS Pod Identity (`AWS_CONTAINER_CREDENTIALS_FULL_URI`) or " +
		"static, shared or configured credentials (`AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, `AWS_SHARED_CREDENTIALS_FILE`, " +
		"`AWS_CONFIG_FILE`) in its env, nor env from a Secret",
	NotOn: "pods on the host network; pods with IRSA or EKS Pod Identity credentials in their env (the webhooks write them " +
		"into the pod when it is created: karpnet reads neither service accounts nor Pod Identity associations, which are " +
		"in the EKS API, so a pod created before its service account was annotated or associated is judged as it runs); " +
		"a hop limit of 2 or more; `httpTokens: optional` (IMDSv1 answers without a token); the endpoint disabled; " +
		"EKS Auto Mode nodes; nodes whose instance says nothing of its metadata options; runs scoped to some nodes",
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
			pods  []string
			class *snapshot.EC2NodeClass
		}
		classes := map[string]*classPods{}
		for _, n := range x.Nodes {
			pods := byNode[n.Name()]
			if len(pods) == 0 || !n.EC2 || n.Instance == nil || n.AutoMode() || n.ClassName == "" || !imdsHopLimitOne(n.Instance.MetadataOptions) {
				continue
			}
			c := classes[n.ClassName]
			if c == nil {
				c = &classPods{class: n.Class}
				classes[n.ClassName] = c
			}
			c.nodes = append(c.nodes, n.Name())
			for _, p := range pods {
				c.pods = append(c.pods, fmt.Sprintf("%s/%s on %s (%s)", p.Namespace, p.Name, n.Name(), p.Why))
			}
		}
		var out []Finding
		for _, name := range sortedKeys(classes) {
			c := classes[name]
			msg := fmt.Sprintf("%d %s of EC2NodeClass %s %s IMDSv2 with an httpPutResponseHopLimit of 1 (%s), so the "+
				"answer to a token request stops at the host; %d %s that %s IMDS %s there off the host network without IRSA or "+
				"EKS Pod Identity credentials in %s env: %s",
				len(c.nodes), plural(len(c.nodes), "node", "nodes"), name, plural(len(c.nodes), "requires", "require"),
				abbreviate(c.nodes, 3), len(c.pods), plural(len(c.pods), "pod", "pods"), plural(len(c.pods), "needs", "need"),
				plural(len(c.pods), "runs", "run"), plural(len(c.pods), "its", "their"), abbreviate(c.pods, 5))
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
