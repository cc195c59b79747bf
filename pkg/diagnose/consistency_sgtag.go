package diagnose

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// tagClusterPrefix starts the tag that marks a security group as a cluster's: the AWS Load
// Balancer Controller looks for exactly one group with kubernetes.io/cluster/<cluster-name> on
// each target's ENI.
const tagClusterPrefix = "kubernetes.io/cluster/"

var specSecurityGroupClusterTagConflict = &Spec{
	ID:       "security-group-cluster-tag-conflict",
	Severity: Warning,
	Family:   FamilyConsistency,
	Examines: []string{SubjectNode},
	Title:    "an ENI of the node has more than one security group tagged kubernetes.io/cluster/<cluster>",
	FiresWhen: "an ENI of the node carries more than one security group tagged `kubernetes.io/cluster/<cluster>` " +
		"(the cluster from aws-node's `CLUSTER_NAME` or the instances' `eks:eks-cluster-name` tag)",
	NotOn: "groups of another cluster, groups karpnet could not read, one tagged group next to untagged ones",
	Why: "the AWS Load Balancer Controller expects exactly one such group per ENI (\"expected exactly one " +
		"securityGroup tagged with kubernetes.io/cluster/...\") and registers no targets on the node; it " +
		"happens when a class selects both the EKS cluster group and terraform-aws-eks's node group, " +
		"which both carry the tag",
	Remedy: "remove the tag from one group (terraform-aws-eks: `node_security_group_tags` with the tag set to " +
		"null), or select groups by ID or another tag",
	Sources: []string{
		"aws/karpenter-provider-aws website/content/en/docs/concepts/nodeclasses.md (note on `kubernetes.io/cluster/<name>`)",
		"terraform-aws-modules/terraform-aws-eks node_groups.tf",
		"terraform-aws-modules/terraform-aws-eks examples/karpenter",
		"https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html (EKS tags the cluster group)",
	},
	Verified: []Verified{
		{UpstreamAWSDocs, "View Amazon EKS security group requirements for clusters (Default cluster security group)",
			"EKS tags the cluster security group kubernetes.io/cluster/CLUSTER=owned and aws:eks:cluster-name=CLUSTER, and puts the tags back at each cluster update."},
		{UpstreamKarpenter, "website/content/en/docs/concepts/nodeclasses.md (spec.securityGroupSelectorTerms)",
			"Karpenter launches with every group the selector matches; the AWS Load Balancer Controller supports only one security group with the kubernetes.io/cluster/CLUSTER tag key."},
	},
}

// securityGroupClusterTagConflict finds nodes with an ENI that carries more than one security
// group tagged kubernetes.io/cluster/<cluster-name>. The AWS Load Balancer Controller then
// refuses to register the node's targets ("expected exactly one securityGroup tagged with
// kubernetes.io/cluster/<name>"), so Services and Ingresses of type LoadBalancer lose the
// node. It happens when an EC2NodeClass selects groups by that tag (the Karpenter docs warn
// about it) and both the EKS cluster group and a node group carry it. Groups of another
// cluster, and groups karpnet could not read, are left out.
var securityGroupClusterTagConflict = Check{
	Spec: specSecurityGroupClusterTagConflict,
	Run: func(x *Index) []Finding {
		cluster := x.clusterName()
		var out []Finding
		for _, n := range x.checkedNodes() {
			if n.Instance == nil {
				continue
			}
			if f, ok := clusterTagFinding(x, n, cluster); ok {
				out = append(out, f)
			}
		}
		return out
	},
}

// clusterTagFinding reports the node's ENIs that carry two or more groups tagged for one
// cluster (cluster when it is known, any cluster otherwise).
func clusterTagFinding(x *Index, n *NodeInfo, cluster string) (Finding, bool) {
	var bad []string
	var name string
	for _, e := range n.Instance.ENIs {
		groups := e.SecurityGroups
		if e.NetworkCardIndex == 0 && e.DeviceIndex == 0 && len(groups) == 0 {
			groups = n.Instance.SecurityGroups
		}
		tagged := map[string][]string{}
		for _, g := range groups {
			sg := x.SecurityGroups[g.ID]
			if sg == nil {
				continue
			}
			for k := range sg.Tags {
				if c, ok := strings.CutPrefix(k, tagClusterPrefix); ok && c != "" && (cluster == "" || c == cluster) {
					tagged[c] = append(tagged[c], g.ID)
				}
			}
		}
		for _, c := range sortedKeys(tagged) {
			if ids := sortedUnique(tagged[c]); len(ids) > 1 {
				name = c
				bad = append(bad, fmt.Sprintf("%s (%s)", e.ID, strings.Join(ids, ", ")))
				break
			}
		}
	}
	if len(bad) == 0 {
		return Finding{}, false
	}
	resource, where := nodeRef(n.Name()), "the node group's security groups"
	if n.ClassName != "" {
		resource, where = n.ClassRef(), "spec.securityGroupSelectorTerms of "+n.ClassLabel()
	}
	return Finding{
		Node: n.Name(), Resource: resource,
		Message: fmt.Sprintf("ENIs of instance %s carry more than one security group tagged %s%s: %s; the AWS Load "+
			"Balancer Controller expects exactly one and refuses to register the node's targets",
			n.Instance.ID, tagClusterPrefix, name, strings.Join(bad, "; ")),
		Remedy: fmt.Sprintf("keep the %s%s tag on one of those groups only (delete it from the others with the AWS CLI's "+
			"ec2 delete-tags; which group keeps it is yours to choose), or select the groups by ID or another tag in %s",
			tagClusterPrefix, name, where),
	}, true
}

// clusterName returns the EKS cluster's name as aws-node's CLUSTER_NAME or the instances'
// eks:eks-cluster-name tag say, or "" when neither does.
func (x *Index) clusterName() string {
	if c := x.Setting(snapshot.EnvClusterName, ""); c != "" {
		return c
	}
	for _, in := range x.Snapshot.Instances {
		if c := in.Tags["eks:eks-cluster-name"]; c != "" {
			return c
		}
	}
	return ""
}
