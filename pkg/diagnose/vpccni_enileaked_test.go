package diagnose

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	const deleteIt = "delete it once nothing needs it (karpnet never does; the command)"
	del := []Command{{Argv: []string{"aws", "ec2", "delete-network-interface", "--network-interface-id", "eni-0leak"},
		Changes: "eni/eni-0leak"}}
	const holds = "; it holds 2 addresses and 1 /28 prefix of " + subnetA + " and pins security group " + sgNodes +
		", which cannot be deleted while it exists"
	const ipamdFailed = ` and did not (look for "Failed to clean up leaked ENI eni-0leak" in the aws-node logs)`
	const noRCOwner = "it has no eks:eni:owner tag (the VPC CNI writes one only with CLUSTER_NAME set, from v1.20.0), " +
		"which the VPC resource controller's cleanup looks for"
	leaked := func(why, remedy string) []Finding {
		return []Finding{{ID: "eni-leaked", Severity: Warning, Resource: "eni/eni-0leak",
			Message: "eni-0leak is available, attached to nothing: " + why + holds, Remedy: deleteIt + remedy, Commands: del}}
	}
	terminated := func(ago time.Duration) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.Instances[0].State = "terminated"
			s.Instances[0].StateTransitionReason = "User initiated (" + taken.Add(-ago).Format(time.DateTime) + " GMT)"
		}
	}
	owned := func(s *snapshot.Snapshot) {
		tags := s.Interfaces[len(s.Interfaces)-1].Tags
		tags[snapshot.TagENIOwner], tags[snapshot.TagCNIClusterName] = "amazon-vpc-cni", "prod"
	}
	cleanupOff := cniEnv(snapshot.EnvDisableLeakedENICleanup, "true")
	owner := func(id, state string, ago time.Duration) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			o := snapshot.InterfaceOwner{ID: id, State: state}
			if ago > 0 {
				o.StateTransitionReason = "User initiated (" + taken.Add(-ago).Format(time.DateTime) + " GMT)"
			}
			s.InterfaceOwners = append(s.InterfaceOwners, o)
		}
	}
	heartbeat := func(ago time.Duration) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.Instances = nil
			s.Nodes[0].Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				LastHeartbeatTime: metav1.NewTime(taken.Add(-ago))}}
		}
	}
	branch := func(tags map[string]string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			tags[snapshot.TagENIOwner] = snapshot.OwnerVPCResourceControl
			s.Interfaces = append(s.Interfaces, snapshot.InterfaceRecord{ID: "eni-0leak", SubnetID: subnetA,
				Status: snapshot.InterfaceAvailable, InterfaceType: "branch", Description: "aws-k8s-branch-eni",
				PrivateIPs: []string{"10.0.1.30", "10.0.1.31"}, IPv4Prefixes: []string{"10.0.1.48/28"},
				SecurityGroups: []snapshot.GroupRef{{ID: sgNodes}}, Tags: tags})
		}
	}
	runCheckCases(t, eniLeaked, []checkCase{
		{name: "no available interface is silent", edit: read},
		{
			name: "a CNI ENI of an instance that no longer exists, past ipamd's hourly cleanup",
			edit: edits(read, cniENI("i-0gone", 72*time.Hour)),
			want: leaked("the VPC CNI created it for instance i-0gone, which no longer exists; created 3 days ago",
				"; ipamd's hourly cleanup (aws-node) should have deleted it by 2026-08-18 13:10 UTC"+ipamdFailed),
		},
		{name: "the ENI of a node terminated ten minutes ago is the cleaners' to take",
			edit: edits(read, cniENI(instanceA, 72*time.Hour), terminated(10*time.Minute))},
		{
			name: "the ENI of a node terminated three hours ago outlived them",
			edit: edits(read, cniENI(instanceA, 72*time.Hour), terminated(3*time.Hour)),
			want: leaked("the VPC CNI created it for instance "+instanceA+", which is terminated; EC2 says it was terminated "+
				"3 hours ago (2026-08-21 09:00 UTC)", "; ipamd's hourly cleanup (aws-node) should have deleted it by "+
				"2026-08-21 10:05 UTC"+ipamdFailed),
		},
		{name: "an ENI whose instance, terminated ten minutes ago, was read on its own",
			edit: edits(read, cniENI("i-0gone", 72*time.Hour), owner("i-0gone", "terminated", 10*time.Minute))},
		{
			name: "an ENI whose instance, read on its own, was terminated three hours ago",
			edit: edits(read, cniENI("i-0gone", 72*time.Hour), owner("i-0gone", "terminated", 3*time.Hour)),
			want: leaked("the VPC CNI created it for instance i-0gone, which is terminated; EC2 says it was terminated "+
				"3 hours ago (2026-08-21 09:00 UTC)", "; ipamd's hourly cleanup (aws-node) should have deleted it by "+
				"2026-08-21 10:05 UTC"+ipamdFailed),
		},
		{
			name: "EC2 no longer has the instance, without the cluster search",
			edit: edits(read, cniENI("i-0gone", 72*time.Hour), owner("i-0gone", "", 0), func(s *snapshot.Snapshot) { s.ClusterName = "" }),
			want: leaked("the VPC CNI created it for instance i-0gone, which no longer exists; created 3 days ago",
				"; ipamd's hourly cleanup (aws-node) should have deleted it by 2026-08-18 13:10 UTC"+ipamdFailed),
		},
		{name: "a node last seen twenty minutes ago: its ENI is the cleaners' to take",
			edit: edits(read, cniENI(instanceA, 72*time.Hour), heartbeat(20*time.Minute))},
		{
			name: "a node last seen three hours ago",
			edit: edits(read, cniENI(instanceA, 72*time.Hour), heartbeat(3*time.Hour)),
			want: leaked("the VPC CNI created it for instance "+instanceA+", which no longer exists; its node "+nodeA+
				" last reported its Ready condition 3 hours ago", "; ipamd's hourly cleanup (aws-node) should have deleted it by "+
				"2026-08-21 10:05 UTC"+ipamdFailed),
		},
		{name: "a terminated instance's ENI nothing dates, which ipamd will tag and take",
			edit: edits(read, cniENI(instanceA, 0), func(s *snapshot.Snapshot) { s.Instances[0].State = "terminated" })},
		{
			name: "nothing dates it and nothing takes it",
			edit: edits(read, cniENI(instanceA, 0), cleanupOff, func(s *snapshot.Snapshot) { s.Instances[0].State = "terminated" }),
			want: leaked("the VPC CNI created it for instance "+instanceA+", which is terminated",
				"; no cleanup takes it: aws-node sets DISABLE_LEAKED_ENI_CLEANUP=true, which turns ipamd's hourly cleanup off; "+noRCOwner),
		},
		{
			name: "aws-node turning the cleanup off: past the cooldown",
			edit: edits(read, cniENI("i-0gone", 10*time.Minute), cleanupOff),
			want: leaked("the VPC CNI created it for instance i-0gone, which no longer exists; created 10 minutes ago",
				"; no cleanup takes it: aws-node sets DISABLE_LEAKED_ENI_CLEANUP=true, which turns ipamd's hourly cleanup off; "+noRCOwner),
		},
		{
			name: "no aws-node any more",
			edit: edits(read, cniENI("i-0gone", 10*time.Minute), func(s *snapshot.Snapshot) { s.AWSNode = nil }),
			want: leaked("the VPC CNI created it for instance i-0gone, which no longer exists; created 10 minutes ago",
				"; no cleanup takes it: no aws-node DaemonSet runs in the cluster any more, so no ipamd runs the VPC CNI's cleanup; "+noRCOwner),
		},
		{
			name: "aws-node's CLUSTER_NAME filters out an ENI without the cluster tag",
			edit: edits(read, cniENI("i-0gone", 10*time.Minute), cniEnv(snapshot.EnvClusterName, "prod")),
			want: leaked("the VPC CNI created it for instance i-0gone, which no longer exists; created 10 minutes ago",
				"; no cleanup takes it: it lacks the cluster.k8s.amazonaws.com/name=prod tag ipamd's cleanup looks for "+
					"(aws-node sets CLUSTER_NAME=prod); "+noRCOwner),
		},
		{name: "the resource controller takes an owned CNI ENI within its two runs",
			edit: edits(read, cniENI(instanceA, 72*time.Hour), owned, cleanupOff, terminated(40*time.Minute))},
		{
			name: "past the resource controller's two runs",
			edit: edits(read, cniENI(instanceA, 72*time.Hour), owned, cleanupOff, terminated(90*time.Minute)),
			want: leaked("the VPC CNI created it for instance "+instanceA+", which is terminated; EC2 says it was terminated "+
				"90 minutes ago (2026-08-21 10:30 UTC)", "; the VPC resource controller's 30-minute cleanup should have deleted "+
				"it by 2026-08-21 11:30 UTC and did not; ipamd's does not take it: aws-node sets DISABLE_LEAKED_ENI_CLEANUP=true, "+
				"which turns ipamd's hourly cleanup off"),
		},
		{name: "a CNI ENI seconds old is being attached", edit: edits(read, cniENI("i-0gone", 30*time.Second), cleanupOff)},
		{name: "a CNI ENI of a running instance, within ipamd's hourly cleanup", edit: edits(read, cniENI(instanceA, time.Hour))},
		{
			name: "a CNI ENI of a running instance left available for days",
			edit: edits(read, cniENI(instanceA, 72*time.Hour)),
			want: leaked("the VPC CNI created it for instance "+instanceA+", which is running; created 3 days ago",
				"; ipamd's hourly cleanup (aws-node) should have deleted it by 2026-08-18 13:10 UTC"+ipamdFailed),
		},
		{name: "an ENI tagged for another cluster is left alone", edit: edits(read, cniENI("i-0gone", 72*time.Hour),
			func(s *snapshot.Snapshot) { s.Interfaces[0].Tags[snapshot.TagCNIClusterName] = "staging" })},
		{name: "available interfaces not read: silent", edit: edits(cniENI("i-0gone", 72*time.Hour), func(s *snapshot.Snapshot) { s.ClusterName = "prod" })},
		{name: "in use is not leaked", edit: edits(read, cniENI("i-0gone", 72*time.Hour),
			func(s *snapshot.Snapshot) { s.Interfaces[0].Status = snapshot.InterfaceInUse })},
		{
			name: "another service's available interface is not the CNI's",
			edit: edits(read, func(s *snapshot.Snapshot) {
				s.Interfaces = append(s.Interfaces, snapshot.InterfaceRecord{ID: "eni-0efs", SubnetID: subnetA,
					Status: snapshot.InterfaceAvailable, Description: "EFS mount target for fs-0abc", PrivateIPs: []string{"10.0.1.99"}})
			}),
		},
		{
			name: "a branch ENI whose trunk no instance has, without the cluster tag",
			edit: edits(read, branch(map[string]string{snapshot.TagBranchTrunk: "eni-0trunk"})),
			want: leaked("the VPC resource controller created it as a branch of trunk ENI eni-0trunk, which no instance has",
				"; no cleanup takes it: it lacks the cluster tag (cluster.k8s.amazonaws.com/name or kubernetes.io/cluster/NAME=owned) "+
					"the VPC resource controller's cleanup looks for"),
		},
		{name: "a branch ENI of a deleted trunk nothing dates is the resource controller's to take",
			edit: edits(read, branch(map[string]string{snapshot.TagBranchTrunk: "eni-0trunk", "kubernetes.io/cluster/prod": "owned"}))},
		{
			name: "a branch ENI of an instance terminated two hours ago",
			edit: edits(read, terminated(2*time.Hour), branch(map[string]string{snapshot.TagBranchTrunk: "eni-0trunk",
				snapshot.TagCNIInstanceID: instanceA, "kubernetes.io/cluster/prod": "owned"})),
			want: leaked("the VPC resource controller created it for instance "+instanceA+", which is terminated; EC2 says "+
				"it was terminated 2 hours ago (2026-08-21 10:00 UTC)", "; the VPC resource controller's 30-minute cleanup "+
				"should have deleted it by 2026-08-21 11:00 UTC and did not"),
		},
		{name: "a branch ENI of a running instance is in its cooldown",
			edit: edits(read, branch(map[string]string{snapshot.TagCNIInstanceID: instanceA}))},
	})
}

func TestENILeakedSubjects(t *testing.T) {
	s := healthy()
	s.AvailableVPCs, s.ClusterName = []string{"vpc-0abc"}, "prod"
	s.Interfaces = []snapshot.InterfaceRecord{{ID: "eni-0leak", SubnetID: subnetA, Status: snapshot.InterfaceAvailable,
		Description: "aws-K8S-i-0gone", Tags: map[string]string{snapshot.TagCNIInstanceID: "i-0gone",
			snapshot.TagCNICreatedAt: s.Taken.Add(-72 * time.Hour).Format(time.RFC3339)}}}
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

// TestTransitionTime reads the time EC2 writes in a terminated instance's
// stateTransitionReason, and nothing from text without one.
func TestTransitionTime(t *testing.T) {
	at := time.Date(2026, 12, 7, 15, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		reason string
		want   time.Time
	}{
		{"User initiated (2026-12-07 15:04:05 GMT)", at},
		{"Service initiated (2026-12-07 15:04:05 UTC)", at},
		{"(2026-12-07 15:04:05 GMT)", at},
		{"", time.Time{}},
		{"User initiated", time.Time{}},
		{"User initiated (2026-12-07 15:04:05)", time.Time{}},
		{"User initiated (2026-13-07 15:04:05 GMT)", time.Time{}},
		{") (", time.Time{}},
		{"Server.SpotInstanceTermination: Spot instance termination", time.Time{}},
	} {
		got, ok := transitionTime(c.reason)
		if ok != !c.want.IsZero() || !got.Equal(c.want) {
			t.Errorf("transitionTime(%q) = %v, %t; want %v", c.reason, got, ok, c.want)
		}
	}
}

// FuzzTransitionTime: any text is read without panicking, and a time read is in UTC.
func FuzzTransitionTime(f *testing.F) {
	for _, s := range []string{"User initiated (2026-12-07 15:04:05 GMT)", "", "(", ")(", "( GMT)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reason string) {
		if got, ok := transitionTime(reason); ok && got.Location() != time.UTC {
			t.Errorf("transitionTime(%q) = %v, not in UTC", reason, got)
		}
	})
}
