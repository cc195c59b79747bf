package diagnose

import (
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestENILeaked: the healthy fixture's VPC read for available interfaces, its cluster's
// instances searched; each case adds one available interface.
func TestENILeaked(t *testing.T) {
	taken := healthy().Taken
	read := func(s *snapshot.Snapshot) {
		s.AvailableVPCs, s.ClusterName = []string{"vpc-0abc"}, "prod"
	}
	cniENI := func(instance string, age time.Duration) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			tags := map[string]string{snapshot.TagCNIInstanceID: instance}
			if age > 0 {
				tags[snapshot.TagCNICreatedAt] = taken.Add(-age).Format(time.RFC3339)
			}
			s.Interfaces = append(s.Interfaces, snapshot.InterfaceRecord{ID: "eni-0leak", VpcID: "vpc-0abc", SubnetID: subnetA,
				Status: snapshot.InterfaceAvailable, InterfaceType: "interface", Description: "aws-K8S-" + instance,
				PrivateIPs: []string{"10.0.1.30", "10.0.1.31"}, IPv4Prefixes: []string{"10.0.1.48/28"},
				SecurityGroups: []snapshot.GroupRef{{ID: sgNodes}}, Tags: tags})
		}
	}
	const deleteIt = "delete it once nothing needs it (karpnet never does): aws ec2 delete-network-interface --network-interface-id eni-0leak"
	const holds = "; it holds 2 addresses and 1 /28 prefix of " + subnetA + " and pins security group " + sgNodes +
		", which cannot be deleted while it exists"
	leakedFor := func(why string) []Finding {
		return []Finding{{ID: "eni-leaked", Severity: Warning, Resource: "eni/eni-0leak",
			Message: "eni-0leak is available, attached to nothing: " + why + holds, Remedy: deleteIt}}
	}
	runCheckCases(t, eniLeaked, []checkCase{
		{name: "no available interface is silent", edit: read},
		{
			name: "a CNI ENI of an instance that no longer exists",
			edit: edits(read, cniENI("i-0gone", 72*time.Hour)),
			want: leakedFor("the VPC CNI created it for instance i-0gone, which no longer exists; created 3 days ago"),
		},
		{
			name: "a CNI ENI of a terminated instance, without createdAt",
			edit: edits(read, cniENI(instanceA, 0), func(s *snapshot.Snapshot) { s.Instances[0].State = "terminated" }),
			want: leakedFor("the VPC CNI created it for instance " + instanceA + ", which is terminated"),
		},
		{
			name: "aws-node turning the cleanup off is in the remedy",
			edit: edits(read, cniENI("i-0gone", time.Hour), cniEnv(snapshot.EnvDisableLeakedENICleanup, "true")),
			want: []Finding{{ID: "eni-leaked", Severity: Warning, Resource: "eni/eni-0leak",
				Message: "eni-0leak is available, attached to nothing: the VPC CNI created it for instance i-0gone, which no " +
					"longer exists; created 60 minutes ago" + holds,
				Remedy: deleteIt + "; aws-node sets DISABLE_LEAKED_ENI_CLEANUP=true, so the VPC CNI does not delete the ENIs it leaks"}},
		},
		{name: "a CNI ENI seconds old is being attached", edit: edits(read, cniENI("i-0gone", 30*time.Second))},
		{name: "a CNI ENI of a running instance is not leaked", edit: edits(read, cniENI(instanceA, time.Hour))},
		{name: "without the cluster search an absent instance is unknown", edit: edits(read, cniENI("i-0gone", time.Hour),
			func(s *snapshot.Snapshot) { s.ClusterName = "" })},
		{name: "an ENI tagged for another cluster is left alone", edit: edits(read, cniENI("i-0gone", time.Hour),
			func(s *snapshot.Snapshot) { s.Interfaces[0].Tags[snapshot.TagCNIClusterName] = "staging" })},
		{name: "available interfaces not read: silent", edit: edits(cniENI("i-0gone", time.Hour), func(s *snapshot.Snapshot) { s.ClusterName = "prod" })},
		{name: "in use is not leaked", edit: edits(read, cniENI("i-0gone", time.Hour),
			func(s *snapshot.Snapshot) { s.Interfaces[0].Status = snapshot.InterfaceInUse })},
		{
			name: "another service's available interface is not the CNI's",
			edit: edits(read, func(s *snapshot.Snapshot) {
				s.Interfaces = append(s.Interfaces, snapshot.InterfaceRecord{ID: "eni-0efs", SubnetID: subnetA,
					Status: snapshot.InterfaceAvailable, Description: "EFS mount target for fs-0abc", PrivateIPs: []string{"10.0.1.99"}})
			}),
		},
		{
			name: "a branch ENI whose trunk no instance has",
			edit: edits(read, func(s *snapshot.Snapshot) {
				s.Interfaces = append(s.Interfaces, snapshot.InterfaceRecord{ID: "eni-0leak", SubnetID: subnetA,
					Status: snapshot.InterfaceAvailable, InterfaceType: "branch", Description: "aws-k8s-branch-eni",
					PrivateIPs: []string{"10.0.1.30"},
					Tags:       map[string]string{snapshot.TagENIOwner: snapshot.OwnerVPCResourceControl, snapshot.TagBranchTrunk: "eni-0trunk"}})
			}),
			want: []Finding{{ID: "eni-leaked", Severity: Warning, Resource: "eni/eni-0leak",
				Message: "eni-0leak is available, attached to nothing: the VPC resource controller created it as a branch of " +
					"trunk ENI eni-0trunk, which no instance has; it holds 1 address of " + subnetA, Remedy: deleteIt}},
		},
		{
			name: "a branch ENI of a running instance is in its cooldown",
			edit: edits(read, func(s *snapshot.Snapshot) {
				s.Interfaces = append(s.Interfaces, snapshot.InterfaceRecord{ID: "eni-0leak", SubnetID: subnetA,
					Status: snapshot.InterfaceAvailable, InterfaceType: "branch", Description: "aws-k8s-branch-eni",
					Tags: map[string]string{snapshot.TagENIOwner: snapshot.OwnerVPCResourceControl, snapshot.TagCNIInstanceID: instanceA}})
			}),
		},
	})
}

func TestENILeakedSubjects(t *testing.T) {
	s := healthy()
	s.AvailableVPCs, s.ClusterName = []string{"vpc-0abc"}, "prod"
	s.Interfaces = []snapshot.InterfaceRecord{{ID: "eni-0leak", SubnetID: subnetA, Status: snapshot.InterfaceAvailable,
		Description: "aws-K8S-i-0gone", Tags: map[string]string{snapshot.TagCNIInstanceID: "i-0gone"}}}
	r := Analyze(s, Options{})
	got := r.About("subnet/" + subnetA)
	found := false
	for _, f := range got {
		if f.ID == "eni-leaked" {
			found = f.Subject() == "eni/eni-0leak" && f.SubjectKind() == SubjectENI
		}
	}
	if !found {
		t.Errorf("the subnet's findings %+v lack eni-leaked on eni/eni-0leak", got)
	}
}
