package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestDescribeWayOut(t *testing.T) {
	t.Run("nil without route tables", func(t *testing.T) {
		x := NewIndex(healthy())
		if got := Describe(x, x.Nodes[0]).WayOut; got != nil {
			t.Errorf("got %+v, want nil", got)
		}
	})
	t.Run("the node subnet's route, endpoints and ACL", func(t *testing.T) {
		s := edited(healthy(), edits(withoutDefaultRoute, withEndpoints, func(s *snapshot.Snapshot) {
			s.NetworkACLs[0].Entries = s.NetworkACLs[0].Entries[:2]
		}))
		x := NewIndex(s)
		want := &wayout.WayOut{SubnetID: subnetA, RouteTable: tableMain, MainTable: true, Verdict: wayout.WayOutEndpoints,
			Reason: "no default route; the VPC has an endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API " +
				"assumed reachable through the cluster's private endpoint)",
			Endpoints: []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"}, NetworkACL: aclA, NACLVerdict: wayout.NACLBlocks,
			NACLReason: "inbound TCP replies from the VPC endpoints in subnet-0aaa (10.0.1.0/24) to the Linux ephemeral " +
				"ports 32768-60999 denied on 32768-60999 by rule *"}
		if diff := cmp.Diff(want, Describe(x, x.Nodes[0]).WayOut, cmp.AllowUnexported(wayout.WayOut{})); diff != "" {
			t.Errorf("way out (-want +got):\n%s", diff)
		}
	})
}
