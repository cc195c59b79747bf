package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestSecurityGroupClusterTagConflict(t *testing.T) {
	const sgCluster = "sg-0cluster"
	// The EKS cluster group, tagged for the cluster as EKS does, beside the node group.
	clusterGroup := func(s *snapshot.Snapshot) {
		s.SecurityGroups = append(s.SecurityGroups, snapshot.SecurityGroup{ID: sgCluster, Name: "eks-cluster-sg-demo",
			Tags: map[string]string{"kubernetes.io/cluster/demo": "owned"}})
		in := &s.Instances[0]
		in.SecurityGroups = append(in.SecurityGroups, snapshot.GroupRef{ID: sgCluster})
		in.ENIs[0].SecurityGroups = append(in.ENIs[0].SecurityGroups, snapshot.GroupRef{ID: sgCluster})
		s.AWSNode.Env["CLUSTER_NAME"] = "demo"
	}
	tagNodes := func(cluster string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.SecurityGroups[0].Tags = map[string]string{"kubernetes.io/cluster/" + cluster: "owned"}
		}
	}
	runCheckCases(t, securityGroupClusterTagConflict, []checkCase{
		{name: "no tagged group is silent"},
		{name: "one tagged group per ENI is silent", edit: clusterGroup},
		{
			name: "two groups tagged for the cluster fire",
			edit: edits(clusterGroup, tagNodes("demo")),
			want: []Finding{{ID: "security-group-cluster-tag-conflict", Severity: Warning, Node: nodeA, Resource: "ec2nodeclass/default",
				Message: "ENIs of instance " + instanceA + " carry more than one security group tagged kubernetes.io/cluster/demo: " +
					"eni-0primarydef0 (sg-0cluster, sg-0nodes); the AWS Load Balancer Controller expects exactly one and refuses " +
					"to register the node's targets",
				Remedy: "keep the kubernetes.io/cluster/demo tag on one of those groups only (delete it from the others with " +
					"the AWS CLI's ec2 delete-tags; which group keeps it is yours to choose), or select the groups by ID or " +
					"another tag in spec.securityGroupSelectorTerms of EC2NodeClass default"}},
		},
		{name: "a group tagged for another cluster is silent", edit: edits(clusterGroup, tagNodes("other"))},
		{name: "an unread group is silent", edit: edits(clusterGroup, tagNodes("demo"), func(s *snapshot.Snapshot) {
			s.SecurityGroups = s.SecurityGroups[:1]
		})},
	})
}
