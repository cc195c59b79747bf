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

// eniLeakGrace is how old a VPC CNI ENI left available must be before ipamd's cleanup takes it:
// its cooldown from the createdAt tag (eniDeleteCooldownTime, 5 minutes, in amazon-vpc-cni-k8s
// pkg/awsutils/awsutils.go), which covers an ENI created and not yet attached. With no cleaner
// at all, karpnet waits as long from when the ENI was left available.
const eniLeakGrace = 5 * time.Minute

var specENILeaked = &Spec{
	ID:       "eni-leaked",
	Severity: Warning,
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceDescribeInstances, snapshot.SourceAvailableInterfaces},
	Examines: []string{SubjectENI},
	// A node or controller that leaks leaks on every launch: hundreds of findings, one per ENI.
	Grouped: true,
	Title:   "an ENI the VPC CNI or the VPC resource controller created is left available past what their cleanups take",
	FiresWhen: "an interface of the cluster's VPCs with status `available` that the VPC CNI created (description " +
		"`aws-K8S-i-...` and tag `node.k8s.amazonaws.com/instance_id`, whatever its instance's state), or the VPC " +
		"resource controller created (tag `eks:eni:owner=eks-vpc-resource-controller`) for an instance or trunk that is " +
		"gone, once it has outlived the cleanups that take it: ipamd's (hourly plus up to 300 s, after the 5-minute " +
		"cooldown from `node.k8s.amazonaws.com/createdAt`) and the VPC resource controller's (two 30-minute runs), " +
		"counted from the instance's termination where EC2 still shows it (karpnet reads the instances the available " +
		"interfaces name by ID, in any state), else from when its node was last seen, else from createdAt; with no " +
		"cleanup taking it, 5 minutes",
	NotOn: "available interfaces of other services (no CNI or controller tags); the ENIs of a node terminated less than " +
		"the cleanups' time ago; an ENI nothing dates while a cleanup takes it; interfaces tagged for another " +
		"cluster; runs that did not read the available interfaces (a run scoped to some nodes)",
	Why: "a leaked ENI holds subnet addresses that new nodes and pods then lack, and pins its security groups, " +
		"which cannot be deleted while it exists",
	Remedy: "delete it (`aws ec2 delete-network-interface`), and turn back on the cleanup that should have taken it: " +
		"ipamd's unless `DISABLE_LEAKED_ENI_CLEANUP` (or IPv6, `DISABLE_NETWORK_RESOURCE_PROVISIONING`, " +
		"`ENABLE_IMDS_ONLY_MODE`) turns it off or no aws-node runs any more; the VPC resource controller's for the ENIs " +
		"owned and tagged for the cluster",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s pkg/awsutils/awsutils.go (createENITags, cleanUpLeakedENIs, getLeakedENIs, eniDeleteCooldownTime)",
		"aws/amazon-vpc-cni-k8s pkg/ipamd/ipamd.go (disableLeakedENICleanup)",
		"aws/amazon-vpc-cni-k8s README.md (DISABLE_LEAKED_ENI_CLEANUP)",
		"aws/amazon-vpc-resource-controller-k8s pkg/aws/ec2/api/cleanup/eni_cleanup.go, node_cleanup.go",
		"aws-sdk-go-v2 service/ec2 api_op_TerminateInstances.go (terminated instances stay visible about an hour)",
		"aws/karpenter-provider-aws#5582",
		"aws/amazon-vpc-cni-k8s#608",
		"aws/amazon-vpc-cni-k8s#1223",
	},
	Verified: []Verified{
		{UpstreamVPCCNI, "pkg/awsutils/awsutils.go (New, cleanUpLeakedENIs)", "ipamd runs the cleanup at start and " +
			"then an hour after each run (wait.Forever, time.Hour), each run first sleeping a random 0-300 s " +
			"(eniCleanupStartupDelayMax)"},
		{UpstreamVPCCNI, "pkg/awsutils/awsutils.go (getLeakedENIs)", "it takes the available ENIs of its VPC with the " +
			"node.k8s.amazonaws.com/instance_id tag (and the cluster tag when CLUSTER_NAME is set) whose description " +
			"begins aws-K8S-, without looking at their instance; one whose createdAt is under 5 minutes old " +
			"(eniDeleteCooldownTime) is skipped, one without createdAt is tagged and skipped"},
		{UpstreamVPCCNI, "pkg/awsutils/awsutils.go (createENI, createENITags, buildENITags)", "the ENIs ipamd creates carry the " +
			"description aws-K8S-INSTANCE, the instance_id and createdAt tags, and with CLUSTER_NAME the cluster tag " +
			"and eks:eni:owner=amazon-vpc-cni"},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (disableLeakedENICleanup)", "the cleanup is off with ENABLE_IPv6, " +
			"DISABLE_NETWORK_RESOURCE_PROVISIONING, ENABLE_IMDS_ONLY_MODE or DISABLE_LEAKED_ENI_CLEANUP true"},
		{UpstreamVPCCNI, "README.md (DISABLE_LEAKED_ENI_CLEANUP)", "v1.13.0+, default false; with it true the " +
			"user must clean up leaked ENIs by hand"},
		{UpstreamResourceCtrl, "pkg/aws/ec2/api/cleanup/eni_cleanup.go (ClusterENICleaner), pkg/config/type.go (ENICleanUpInterval)", "every 30 minutes " +
			"(config.ENICleanUpInterval) it lists the available ENIs of the VPC owned (eks:eni:owner) by itself or " +
			"amazon-vpc-cni and tagged cluster.k8s.amazonaws.com/name=CLUSTER or kubernetes.io/cluster/CLUSTER=owned, " +
			"and deletes those it saw on its previous run"},
		{UpstreamResourceCtrl, "pkg/aws/ec2/api/cleanup/node_cleanup.go (NodeTerminationCleaner), " +
			"controllers/crds/cninode_controller.go (Reconcile)", "when a Linux node and its CNINode are deleted it " +
			"deletes at once the node's available owned ENIs tagged with its instance_id"},
		{UpstreamResourceCtrl, "pkg/aws/ec2/api/helper.go (CreateNetworkInterface), pkg/provider/branch/trunk/trunk.go",
			"every ENI it creates carries eks:eni:owner=eks-vpc-resource-controller and kubernetes.io/cluster/CLUSTER=owned; " +
				"trunk and branch ENIs the node's instance_id, branch ENIs their trunk's ID"},
		{UpstreamEC2API, "api_op_TerminateInstances.go (TerminateInstances)", "terminated instances remain visible " +
			"for approximately one hour"},
		{UpstreamEC2API, "types/types.go (Instance.StateTransitionReason)", "the reason for the most recent state " +
			"transition, possibly empty; the time EC2 writes in it, \"User initiated (YYYY-MM-DD HH:MM:SS GMT)\", is " +
			"not in the model, so karpnet reads it only when it parses"},
	},
}

// eniLeaked finds the ENIs the VPC CNI or the VPC resource controller created that are left
// available longer than the cleanups that take them would leave them. They hold subnet
// addresses and pin security groups; karpnet names each, the cleanup that should have taken it
// and why it did not, and the command that deletes it, and never runs it.
var eniLeaked = Check{
	Spec: specENILeaked,
	Run: func(x *Index) []Finding {
		s := x.Snapshot
		if len(s.AvailableVPCs) == 0 {
			return nil
		}
		var out []Finding
		owners := x.interfaceOwners()
		for i := range s.Interfaces {
			e := &s.Interfaces[i]
			if l, ok := x.leakOf(e, owners); ok {
				out = append(out, leakedFinding(x, e, l))
			}
		}
		return out
	},
}

// leak is what karpnet knows of a leaked ENI: who created it for what, when it was left
// available, and the cleaners that take it.
type leak struct {
	owner    string
	since    leakedSince
	cleaners eniCleaners
}

// leakOf says whether an interface is a leaked VPC CNI or VPC resource controller ENI: left
// available longer than the cleaners that take it would leave it.
func (x *Index) leakOf(e *snapshot.InterfaceRecord, owners map[string]snapshot.InterfaceOwner) (leak, bool) {
	if !strings.EqualFold(e.Status, snapshot.InterfaceAvailable) || otherCluster(x, e) {
		return leak{}, false
	}
	instance := e.Tags[snapshot.TagCNIInstanceID]
	var l leak
	gone := false
	switch {
	case strings.HasPrefix(e.Description, cniENIDescription) && instance != "":
		l.owner = "the VPC CNI created it for instance " + instance
		if state, ok := instanceGone(x, owners, instance); ok {
			l.owner += ", which " + state
			gone = true
		} else if o, ok := owners[instance]; ok && o.State != "" {
			l.owner += ", which is " + o.State
		}
	case e.Tags[snapshot.TagENIOwner] == snapshot.OwnerVPCResourceControl && instance != "":
		state, ok := instanceGone(x, owners, instance)
		if !ok {
			return leak{}, false
		}
		l.owner, gone = "the VPC resource controller created it for instance "+instance+", which "+state, true
	case e.Tags[snapshot.TagENIOwner] == snapshot.OwnerVPCResourceControl && e.Tags[snapshot.TagBranchTrunk] != "" &&
		!trunkKnown(x, e.Tags[snapshot.TagBranchTrunk]):
		l.owner, gone = "the VPC resource controller created it as a branch of trunk ENI "+e.Tags[snapshot.TagBranchTrunk]+
			", which no instance has", true
	default:
		return leak{}, false
	}
	owner := owners[instance]
	owner.ID = instance
	l.since = x.sinceOf(e, owner, gone)
	l.cleaners = x.cleanersOf(e)
	taken := x.Snapshot.Taken
	switch {
	case !l.since.ok:
		// Nothing dates it: only an ENI of a gone instance that no cleaner takes is surely leaked.
		return l, gone && !l.cleaners.anyTakes()
	case l.cleaners.anyTakes():
		return l, taken.After(l.cleaners.cleanedBy(e, l.since.at))
	}
	return l, taken.Sub(l.since.at) >= eniLeakGrace
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

// interfaceOwners returns the state of every instance karpnet read that an interface may name:
// the snapshot's instances, and the owners of interfaces left available read on their own.
func (x *Index) interfaceOwners() map[string]snapshot.InterfaceOwner {
	out := make(map[string]snapshot.InterfaceOwner, len(x.Snapshot.Instances)+len(x.Snapshot.InterfaceOwners))
	for _, o := range x.Snapshot.InterfaceOwners {
		out[o.ID] = o
	}
	for _, in := range x.Snapshot.Instances {
		out[in.ID] = snapshot.InterfaceOwner{ID: in.ID, State: in.State, StateTransitionReason: in.StateTransitionReason}
	}
	return out
}

// instanceGone says whether an instance is terminated, or no longer exists: EC2 did not find it
// when asked by ID, or a snapshot that searched the cluster's instances does not hold it; ok is
// false when neither is known.
func instanceGone(x *Index, owners map[string]snapshot.InterfaceOwner, id string) (string, bool) {
	if o, ok := owners[id]; ok {
		switch o.State {
		case "":
			return "no longer exists", true
		case "terminated", "shutting-down":
			return "is " + o.State, true
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

// leakedFinding is the eni-leaked finding of a leaked interface: what it holds and pins, the
// cleanup that should have taken it and why it did not, and the command that deletes it.
func leakedFinding(x *Index, e *snapshot.InterfaceRecord, l leak) Finding {
	holds := countText(len(e.PrivateIPs), "address", "addresses")
	if k := len(e.IPv4Prefixes); k > 0 {
		holds += " and " + countText(k, "/28 prefix", "/28 prefixes")
	}
	why := l.owner
	if l.since.ok {
		why += "; " + l.since.how
	}
	msg := fmt.Sprintf("%s is available, attached to nothing: %s; it holds %s of %s", e.ID, why, holds, e.SubnetID)
	if len(e.SecurityGroups) > 0 {
		msg += " and pins " + plural(len(e.SecurityGroups), "security group ", "security groups ") +
			strings.Join(groupIDs(e.SecurityGroups), ", ") + ", which cannot be deleted while it exists"
	}
	remedy := "delete it once nothing needs it (karpnet never does; the command)"
	del := []Command{{Argv: []string{"aws", "ec2", "delete-network-interface", "--network-interface-id", e.ID},
		Changes: eniRef(e.ID)}}
	c := l.cleaners
	if c.anyTakes() {
		remedy += "; " + c.cleanerText() + " should have deleted it by " +
			c.cleanedBy(e, l.since.at).UTC().Format("2006-01-02 15:04 MST") + " and did not"
		if c.ipamd {
			remedy += ` (look for "Failed to clean up leaked ENI ` + e.ID + `" in the aws-node logs)`
		} else if c.ipamdOff != "" {
			remedy += "; ipamd's does not take it: " + c.ipamdOff
		}
		return Finding{Resource: eniRef(e.ID), Message: msg, Remedy: remedy, Commands: del}
	}
	var off []string
	for _, o := range []string{c.ipamdOff, c.rcOff} {
		if o != "" {
			off = append(off, o)
		}
	}
	remedy += "; no cleanup takes it"
	if len(off) > 0 {
		remedy += ": " + strings.Join(off, "; ")
	}
	return Finding{Resource: eniRef(e.ID), Message: msg, Remedy: remedy, Commands: del}
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
