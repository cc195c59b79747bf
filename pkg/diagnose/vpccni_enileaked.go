package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// cniENIDescription begins the description of every ENI the VPC CNI creates ("aws-K8S-" and
// the instance ID; the VPC resource controller's own begin with a lower-case "aws-k8s-").
const cniENIDescription = "aws-K8S-"

// eniLeakGrace is how old a VPC CNI ENI left available must be before it counts as leaked: the
// cooldown the VPC CNI's own cleanup waits for (eniDeleteCooldownTime, 5 minutes, in
// amazon-vpc-cni-k8s pkg/awsutils/awsutils.go), which covers an ENI created and not yet
// attached.
const eniLeakGrace = 5 * time.Minute

var specENILeaked = &Spec{
	ID:       "eni-leaked",
	Severity: Warning,
	Family:   FamilyVPCCNI,
	Examines: []string{SubjectENI},
	Title:    "an ENI the VPC CNI or the VPC resource controller created is left available, attached to nothing",
	FiresWhen: "an interface of the cluster's VPCs with status `available` that the VPC CNI created (description " +
		"`aws-K8S-i-...` and tag `node.k8s.amazonaws.com/instance_id`), created at least 5 minutes ago by its " +
		"`node.k8s.amazonaws.com/createdAt` tag, or the VPC resource controller created (tag " +
		"`eks:eni:owner=eks-vpc-resource-controller`), whose instance (its instance tag, or the instance of its " +
		"trunk ENI) is terminated or no longer exists",
	NotOn: "available interfaces of other services (no CNI or controller tags), a CNI ENI younger than 5 minutes " +
		"(being attached) or of a running instance, interfaces tagged for another cluster, runs that did not read " +
		"the available interfaces (a run scoped to some nodes)",
	Why: "a leaked ENI holds subnet addresses that new nodes and pods then lack, and pins its security groups, " +
		"which cannot be deleted while it exists",
	Remedy: "delete it (`aws ec2 delete-network-interface`); the VPC CNI deletes its own leaked ENIs hourly unless " +
		"`DISABLE_LEAKED_ENI_CLEANUP` is true",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s pkg/awsutils/awsutils.go (createENITags, cleanUpLeakedENIs, eniDeleteCooldownTime)",
		"aws/amazon-vpc-cni-k8s README.md (DISABLE_LEAKED_ENI_CLEANUP)",
		"aws/amazon-vpc-resource-controller-k8s pkg/aws/ec2/api/cleanup/eni_cleanup.go",
		"aws/karpenter-provider-aws#5582",
		"aws/amazon-vpc-cni-k8s#608",
		"aws/amazon-vpc-cni-k8s#1223",
	},
}

// eniLeaked finds the ENIs the VPC CNI or the VPC resource controller created that are left
// available after their instance is gone. They hold subnet addresses and pin security groups;
// karpnet names each and the command that deletes it, and never runs it.
var eniLeaked = Check{
	Spec: specENILeaked,
	Run: func(x *Index) []Finding {
		s := x.Snapshot
		if len(s.AvailableVPCs) == 0 || x.Unavailable(snapshot.SourceAvailableInterfaces) ||
			x.Unavailable(snapshot.SourceDescribeInstances) {
			return nil
		}
		var out []Finding
		for i := range s.Interfaces {
			e := &s.Interfaces[i]
			if why, ok := leakedWhy(x, e); ok {
				out = append(out, leakedFinding(x, e, why))
			}
		}
		return out
	},
}

// leakedWhy says whether an interface is a leaked VPC CNI or VPC resource controller ENI, and
// why.
func leakedWhy(x *Index, e *snapshot.InterfaceRecord) (string, bool) {
	if !strings.EqualFold(e.Status, snapshot.InterfaceAvailable) || otherCluster(x, e) {
		return "", false
	}
	instance := e.Tags[snapshot.TagCNIInstanceID]
	switch {
	case strings.HasPrefix(e.Description, cniENIDescription) && instance != "":
		created, err := time.Parse(time.RFC3339, e.Tags[snapshot.TagCNICreatedAt])
		if err == nil && x.Snapshot.Taken.Sub(created) < eniLeakGrace {
			return "", false
		}
		gone, ok := instanceGone(x, instance)
		if !ok {
			return "", false
		}
		why := "the VPC CNI created it for instance " + instance + ", which " + gone
		if err == nil {
			why += "; created " + ageText(x.Snapshot.Taken.Sub(created)) + " ago"
		}
		return why, true
	case e.Tags[snapshot.TagENIOwner] == snapshot.OwnerVPCResourceControl:
		if instance != "" {
			if gone, ok := instanceGone(x, instance); ok {
				return "the VPC resource controller created it for instance " + instance + ", which " + gone, true
			}
			return "", false
		}
		if trunk := e.Tags[snapshot.TagBranchTrunk]; trunk != "" && !trunkKnown(x, trunk) {
			return "the VPC resource controller created it as a branch of trunk ENI " + trunk + ", which no instance has", true
		}
	}
	return "", false
}

// otherCluster reports whether an interface's tags name a cluster other than the snapshot's.
func otherCluster(x *Index, e *snapshot.InterfaceRecord) bool {
	name := x.Snapshot.ClusterName
	if name == "" {
		name = x.Setting(snapshot.EnvClusterName, "")
	}
	if name == "" {
		return false
	}
	if c := e.Tags[snapshot.TagCNIClusterName]; c != "" && c != name {
		return true
	}
	for k := range e.Tags {
		if c, ok := strings.CutPrefix(k, snapshot.TagClusterPrefix); ok && c != name {
			return true
		}
	}
	return false
}

// instanceGone says whether an instance is terminated, or absent from a snapshot that read the
// cluster's instances; ok is false when neither is known.
func instanceGone(x *Index, id string) (string, bool) {
	if in := x.Instances[id]; in != nil {
		if in.State == "terminated" || in.State == "shutting-down" {
			return "is " + in.State, true
		}
		return "", false
	}
	if x.Snapshot.ClusterName != "" && !x.Unavailable(snapshot.SourceClusterInstances) {
		return "no longer exists", true
	}
	return "", false
}

// trunkKnown reports whether an instance read has the trunk ENI.
func trunkKnown(x *Index, id string) bool {
	for i := range x.Snapshot.Instances {
		if slices.ContainsFunc(x.Snapshot.Instances[i].ENIs, func(e snapshot.ENI) bool { return e.ID == id }) {
			return true
		}
	}
	return false
}

// leakedFinding is the eni-leaked finding of a leaked interface: what it holds and pins, and
// the command that deletes it.
func leakedFinding(x *Index, e *snapshot.InterfaceRecord, why string) Finding {
	holds := countText(len(e.PrivateIPs), "address", "addresses")
	if k := len(e.IPv4Prefixes); k > 0 {
		holds += " and " + countText(k, "/28 prefix", "/28 prefixes")
	}
	msg := fmt.Sprintf("%s is available, attached to nothing: %s; it holds %s of %s", e.ID, why, holds, e.SubnetID)
	if len(e.SecurityGroups) > 0 {
		msg += " and pins " + plural(len(e.SecurityGroups), "security group ", "security groups ") +
			strings.Join(groupIDs(e.SecurityGroups), ", ") + ", which cannot be deleted while it exists"
	}
	remedy := "delete it once nothing needs it (karpnet never does): aws ec2 delete-network-interface --network-interface-id " + e.ID
	if x.cniSettingOn(snapshot.EnvDisableLeakedENICleanup) && strings.HasPrefix(e.Description, cniENIDescription) {
		remedy += fmt.Sprintf("; aws-node sets %s=true, so the VPC CNI does not delete the ENIs it leaks", snapshot.EnvDisableLeakedENICleanup)
	}
	return Finding{Resource: eniRef(e.ID), Message: msg, Remedy: remedy}
}

// eniRef returns the resource name of an interface, eni/ID.
func eniRef(id string) string { return SubjectENI + "/" + id }

// ageText renders a duration in its largest whole unit: "3 days", "5 hours", "12 minutes".
func ageText(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return countText(int64(d/(24*time.Hour)), "day", "days")
	case d >= 2*time.Hour:
		return countText(int64(d/time.Hour), "hour", "hours")
	}
	return countText(int64(d/time.Minute), "minute", "minutes")
}

// Interface returns the interface read on its own with the ID, or nil.
func (x *Index) Interface(id string) *snapshot.InterfaceRecord {
	x.interfacesOnce.Do(func() {
		x.interfaces = make(map[string]*snapshot.InterfaceRecord, len(x.Snapshot.Interfaces))
		for i := range x.Snapshot.Interfaces {
			x.interfaces[x.Snapshot.Interfaces[i].ID] = &x.Snapshot.Interfaces[i]
		}
	})
	return x.interfaces[id]
}

// ENICreator names what created an interface read on its own, from its description and
// tags: the VPC CNI, the VPC resource controller, or an AWS service by its interface type;
// "" when nothing tells.
func ENICreator(e *snapshot.InterfaceRecord) string {
	switch owner := e.Tags[snapshot.TagENIOwner]; {
	case strings.HasPrefix(e.Description, cniENIDescription) || owner == snapshot.OwnerVPCCNI:
		return "the VPC CNI (aws-node)"
	case owner == snapshot.OwnerVPCResourceControl:
		return "the VPC resource controller (security groups for pods)"
	case e.RequesterManaged || e.InterfaceType != "" && e.InterfaceType != "interface":
		return "an AWS service (" + cmp.Or(e.InterfaceType, "requester-managed") + ")"
	}
	return ""
}

// ENICreated returns when the VPC CNI created an interface, from its createdAt tag.
func ENICreated(e *snapshot.InterfaceRecord) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, e.Tags[snapshot.TagCNICreatedAt])
	return t, err == nil
}

// ENIAge renders how long ago the VPC CNI created an interface; "" when its tag does not say.
func ENIAge(e *snapshot.InterfaceRecord, taken time.Time) string {
	if t, ok := ENICreated(e); ok && !taken.Before(t) {
		return ageText(taken.Sub(t))
	}
	return ""
}
