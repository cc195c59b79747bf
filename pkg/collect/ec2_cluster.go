package collect

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Tags Karpenter puts on the instances it launches (every version puts
// kubernetes.io/cluster/NAME=owned; v1 adds eks:eks-cluster-name, before v0.32 the NodePool
// key was karpenter.sh/provisioner-name).
const (
	ec2TagClusterPrefix  = "kubernetes.io/cluster/"
	ec2TagEKSClusterName = "eks:eks-cluster-name"
	ec2TagNodePool       = "karpenter.sh/nodepool"
	ec2TagProvisioner    = "karpenter.sh/provisioner-name"
)

// ec2ClusterOfInstance returns the cluster an instance's tags name: eks:eks-cluster-name,
// else the NAME of its one kubernetes.io/cluster/NAME tag valued owned or shared; "" when
// none or several.
func ec2ClusterOfInstance(tags map[string]string) string {
	if v := tags[ec2TagEKSClusterName]; v != "" {
		return v
	}
	name := ""
	for k, v := range tags {
		n, ok := strings.CutPrefix(k, ec2TagClusterPrefix)
		if !ok || n == "" || (v != "owned" && v != "shared") {
			continue
		}
		if name != "" && name != n {
			return ""
		}
		name = n
	}
	return name
}

// ec2ClusterName decides the cluster's name: flag (--cluster-name) when given; else the one
// name the instances' cluster tags agree on; else the kubeconfig's (fromKubeconfig). With no
// name, or several on the instances, it returns "" and a note saying what was not looked for.
func ec2ClusterName(flag string, instances []snapshot.Instance, fromKubeconfig string) (name, note string) {
	if flag != "" {
		return flag, ""
	}
	names := ec2IDSet{}
	for i := range instances {
		names.add(ec2ClusterOfInstance(instances[i].Tags))
	}
	switch all := names.sorted(); {
	case len(all) == 1:
		return all[0], ""
	case len(all) > 1:
		shown := all[:min(len(all), 5)]
		return "", fmt.Sprintf("the nodes' instances are tagged for %d clusters (%s): instances launched for the cluster "+
			"that no NodeClaim names were not looked for; pass --cluster-name NAME", len(all), strings.Join(shown, ", "))
	}
	if fromKubeconfig != "" {
		return fromKubeconfig, ""
	}
	return "", "the EKS cluster's name is not known (no cluster tag on the nodes' instances, none in the kubeconfig): " +
		"instances launched for the cluster that no NodeClaim names were not looked for; pass --cluster-name NAME"
}

// ClusterNameFromExec returns the cluster name a kubeconfig's exec credential plugin names:
// `aws eks get-token --cluster-name NAME` (or --cluster-id), `aws-iam-authenticator token -i
// NAME` (or --cluster-id); "" for any other plugin.
func ClusterNameFromExec(command string, args []string) string {
	var flags []string
	switch filepath.Base(command) {
	case "aws", "aws.exe":
		if !slices.Contains(args, "get-token") {
			return ""
		}
		flags = []string{"--cluster-name", "--cluster-id"}
	case "aws-iam-authenticator", "aws-iam-authenticator.exe":
		flags = []string{"-i", "--cluster-id"}
	default:
		return ""
	}
	for i, a := range args {
		for _, f := range flags {
			if v, ok := strings.CutPrefix(a, f+"="); ok && v != "" {
				return v
			}
			if a == f && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				return args[i+1]
			}
		}
	}
	return ""
}

// clusterInstances describes the pending and running instances Karpenter launched for the
// cluster: tagged kubernetes.io/cluster/NAME=owned and with a NodePool (or, before v0.32,
// Provisioner) tag, one filtered DescribeInstances paged by 1,000. It returns, converted and
// sorted by ID, those not in known; the others (most of them: the nodes' own instances, read
// already) are dropped page by page, so a large cluster's answer is never held whole.
// Instances the answer holds that do not carry the tags are left out.
func (c ec2Call) clusterInstances(ctx context.Context, cluster string, known map[string]bool) ([]snapshot.Instance, error) {
	tag := ec2TagClusterPrefix + cluster
	filters := []types.Filter{
		{Name: aws.String("tag:" + tag), Values: []string{"owned"}},
		{Name: aws.String("tag-key"), Values: []string{ec2TagNodePool, ec2TagProvisioner}},
		{Name: aws.String("instance-state-name"), Values: []string{"pending", "running"}},
	}
	seen := map[string]bool{}
	var out []snapshot.Instance
	// The instances read by ID before are not decoded again (known is not written meanwhile).
	ctx = withReadBefore(ctx, func(id string) bool { return known[id] })
	err := c.instancePages(ctx, filters, ec2MaxPages, func(v snapshot.Instance) {
		if known[v.ID] || seen[v.ID] || !ec2LaunchedFor(v.Tags, tag) {
			return
		}
		seen[v.ID] = true
		out = append(out, v)
	})
	slices.SortFunc(out, func(a, b snapshot.Instance) int { return strings.Compare(a.ID, b.ID) })
	return out, err
}

// ec2LaunchedFor reports whether tags hold tag=owned and a NodePool or Provisioner key.
func ec2LaunchedFor(tags map[string]string, tag string) bool {
	_, pool := tags[ec2TagNodePool]
	_, provisioner := tags[ec2TagProvisioner]
	return tags[tag] == "owned" && (pool || provisioner)
}

// describeCluster looks for the instances launched for the cluster and returns those not
// in known; a failure is a gap on SourceClusterInstances.
func (r *ec2Result) describeCluster(ctx context.Context, call ec2Call, cluster string, known map[string]bool) []snapshot.Instance {
	found, err := call.clusterInstances(ctx, cluster, known)
	if err != nil {
		r.fail(snapshot.SourceClusterInstances, call.region, err)
		return nil
	}
	return found
}

// ec2UsesKarpenter reports whether the cluster has Karpenter objects or nodes, so that a
// cluster without Karpenter is not told how to find the instances Karpenter leaked.
func ec2UsesKarpenter(s *snapshot.Snapshot) bool {
	return len(s.NodeClaims) > 0 || len(s.NodePools) > 0 ||
		kubeAnyNode(s.Nodes, kubeIsKarpenterNode)
}

// ec2InstanceIDs returns the set of the instances' IDs.
func ec2InstanceIDs(instances []snapshot.Instance) map[string]bool {
	ids := make(map[string]bool, len(instances))
	for i := range instances {
		ids[instances[i].ID] = true
	}
	return ids
}

// ec2Unread returns the instances whose ID is not in read, in order.
func ec2Unread(instances []snapshot.Instance, read map[string]bool) []snapshot.Instance {
	var out []snapshot.Instance
	for _, in := range instances {
		if !read[in.ID] {
			out = append(out, in)
		}
	}
	return out
}

// ExecAWS is the AWS configuration a kubeconfig's exec credential plugin uses to get its
// token: the profile and Region it passes, which are those of the cluster's account.
type ExecAWS struct {
	Profile string
	Region  string
}

// AWSFromExec returns the profile and Region a kubeconfig's exec credential plugin names, as
// `aws eks update-kubeconfig --profile P --region R` writes them: the --profile and --region
// arguments of `aws eks get-token`, else the AWS_PROFILE (or AWS_DEFAULT_PROFILE) and
// AWS_REGION (or AWS_DEFAULT_REGION) entries of the plugin's env, which any plugin
// (aws-iam-authenticator too) honours. Empty fields mean the default chain.
func AWSFromExec(command string, args []string, env map[string]string) ExecAWS {
	var out ExecAWS
	if base := filepath.Base(command); (base == "aws" || base == "aws.exe") && slices.Contains(args, "get-token") {
		out.Profile = execArg(args, "--profile")
		out.Region = execArg(args, "--region")
	}
	if out.Profile == "" {
		out.Profile = cmp.Or(env["AWS_PROFILE"], env["AWS_DEFAULT_PROFILE"])
	}
	if out.Region == "" {
		out.Region = cmp.Or(env["AWS_REGION"], env["AWS_DEFAULT_REGION"])
	}
	return out
}

// execArg returns the value of flag in args (--flag VALUE or --flag=VALUE), or "".
func execArg(args []string, flag string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
		if a == flag && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			return args[i+1]
		}
	}
	return ""
}
