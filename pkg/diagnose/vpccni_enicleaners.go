package diagnose

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The two cleaners of leaked ENIs on EKS and how long each takes.
//
// ipamd (aws-node) runs its cleanup at start-up and then an hour after each run ends
// (wait.Forever(cleanUpLeakedENIs, time.Hour)), each run first sleeping a random 0 to 300 s
// (eniCleanupStartupDelayMax); it takes the available ENIs of its VPC with the instance_id tag
// (and, with CLUSTER_NAME set, the cluster tag) whose description begins aws-K8S-, whatever
// their instance's state, once their createdAt tag is 5 minutes old (eniDeleteCooldownTime);
// one without createdAt it tags and takes on its next run (amazon-vpc-cni-k8s
// pkg/awsutils/awsutils.go, getLeakedENIs). ipamd runs none with DISABLE_LEAKED_ENI_CLEANUP,
// ENABLE_IPv6, DISABLE_NETWORK_RESOURCE_PROVISIONING or ENABLE_IMDS_ONLY_MODE true
// (pkg/ipamd/ipamd.go, disableLeakedENICleanup).
//
// The VPC resource controller lists, every 30 minutes (config.ENICleanUpInterval), the available
// ENIs of the cluster's VPC owned (eks:eni:owner) by itself or the VPC CNI and tagged with the
// cluster (cluster.k8s.amazonaws.com/name, or kubernetes.io/cluster/NAME=owned), and deletes
// those it saw on its previous run; when a node and its CNINode go, it deletes the node's
// available owned ENIs at once (amazon-vpc-resource-controller-k8s
// pkg/aws/ec2/api/cleanup/eni_cleanup.go, node_cleanup.go).
const (
	ipamdCleanupCycle = time.Hour + 300*time.Second
	rcCleanupCycle    = 30 * time.Minute
	// rcCleanupTakes is how long an ENI left available stays before the resource controller's
	// second sighting deletes it: two of its cycles.
	rcCleanupTakes = 2 * rcCleanupCycle
)

// eniCleaners is what karpnet knows of the cleaners of one leaked ENI: whether ipamd's and the
// resource controller's cleanups take it, and if not, why.
type eniCleaners struct {
	ipamd, rc       bool
	ipamdOff, rcOff string
}

// anyTakes reports whether a cleaner takes the ENI.
func (c eniCleaners) anyTakes() bool { return c.ipamd || c.rc }

// cleanersOf decides which cleaners take an available ENI.
func (x *Index) cleanersOf(e *snapshot.InterfaceRecord) eniCleaners {
	var c eniCleaners
	if strings.HasPrefix(e.Description, cniENIDescription) {
		c.ipamdOff = x.ipamdCleanupOff()
		if name := x.Setting(snapshot.EnvClusterName, ""); c.ipamdOff == "" && name != "" && e.Tags[snapshot.TagCNIClusterName] != name {
			c.ipamdOff = fmt.Sprintf("it lacks the %s=%s tag ipamd's cleanup looks for (aws-node sets %s=%s)",
				snapshot.TagCNIClusterName, name, snapshot.EnvClusterName, name)
		}
		c.ipamd = c.ipamdOff == ""
	}
	switch owner := e.Tags[snapshot.TagENIOwner]; {
	case owner != snapshot.OwnerVPCCNI && owner != snapshot.OwnerVPCResourceControl:
		c.rcOff = "it has no " + snapshot.TagENIOwner + " tag"
		if strings.HasPrefix(e.Description, cniENIDescription) {
			c.rcOff += " (the VPC CNI writes one only with CLUSTER_NAME set, from v1.20.0)"
		}
		c.rcOff += ", which the VPC resource controller's cleanup looks for"
	case !x.taggedForCluster(e):
		c.rcOff = "it lacks the cluster tag (" + snapshot.TagCNIClusterName + " or " + snapshot.TagClusterPrefix +
			"NAME=owned) the VPC resource controller's cleanup looks for"
	default:
		c.rc = true
	}
	return c
}

// taggedForCluster reports whether an interface carries the cluster tag the resource
// controller's cleanup filters on; when karpnet does not know the cluster's name, any.
func (x *Index) taggedForCluster(e *snapshot.InterfaceRecord) bool {
	name := x.clusterName()
	if c := e.Tags[snapshot.TagCNIClusterName]; c != "" && (name == "" || c == name) {
		return true
	}
	for k, v := range e.Tags {
		if c, ok := strings.CutPrefix(k, snapshot.TagClusterPrefix); ok && v == "owned" && (name == "" || c == name) {
			return true
		}
	}
	return false
}

// ipamdCleanupOff says why no ipamd of the cluster runs the leaked-ENI cleanup, or "" when one
// does (or aws-node could not be read).
func (x *Index) ipamdCleanupOff() string {
	a := x.Snapshot.AWSNode
	switch {
	case x.Unavailable(snapshot.SourceAWSNode):
		return ""
	case a == nil:
		return "no aws-node DaemonSet runs in the cluster any more, so no ipamd runs the VPC CNI's cleanup"
	case a.DesiredNumberScheduled != nil && *a.DesiredNumberScheduled == 0 || x.awsNodeRunsNowhere():
		return "aws-node runs on no node, so no ipamd runs the VPC CNI's cleanup"
	}
	for _, env := range []string{snapshot.EnvDisableLeakedENICleanup, snapshot.EnvIPv6,
		snapshot.EnvDisableENIProvisioning, snapshot.EnvIMDSOnlyMode} {
		if x.cniSettingOn(env) {
			return fmt.Sprintf("aws-node sets %s=true, which turns ipamd's hourly cleanup off", env)
		}
	}
	return ""
}

// leakedSince is when an ENI was left available, as far as karpnet can tell: at, an upper
// bound when its instance's termination time is known, else the latest time it is known to
// have been attached or created; how says which; ok is false when nothing tells.
type leakedSince struct {
	at  time.Time
	how string
	ok  bool
}

// sinceOf finds when an ENI of an instance was left available: the instance's termination where
// EC2 still shows it, else, when the instance is gone, the last time its node was seen, else
// the ENI's createdAt tag. The ENI of a running instance was detached at some unknown time
// after it was created: only createdAt dates it.
func (x *Index) sinceOf(e *snapshot.InterfaceRecord, owner snapshot.InterfaceOwner, gone bool) leakedSince {
	taken := x.Snapshot.Taken
	if owner.State == "terminated" || owner.State == "shutting-down" {
		if t, ok := transitionTime(owner.StateTransitionReason); ok && !t.After(taken) {
			return leakedSince{t, fmt.Sprintf("EC2 says it was terminated %s ago (%s)", ageText(taken.Sub(t)),
				t.Format("2006-01-02 15:04 MST")), true}
		}
	}
	if t, node := x.lastSeen(owner.ID); gone && !t.IsZero() && !t.After(taken) {
		return leakedSince{t, fmt.Sprintf("%s %s ago", node, ageText(taken.Sub(t))), true}
	}
	if t, ok := ENICreated(e); ok && !t.After(taken) {
		return leakedSince{t, "created " + ageText(taken.Sub(t)) + " ago", true}
	}
	return leakedSince{}
}

// lastSeen returns the latest time the cluster knew the instance's node to be there (its Ready
// condition's heartbeat, or the start of its Node's or NodeClaim's deletion), and what says so.
func (x *Index) lastSeen(instance string) (time.Time, string) {
	if instance == "" {
		return time.Time{}, ""
	}
	var at time.Time
	var name string
	later := func(t time.Time, n string) {
		if t.After(at) {
			at, name = t, n
		}
	}
	for _, n := range x.Nodes {
		if n.Provider.InstanceID != instance {
			continue
		}
		for _, c := range n.Node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				later(c.LastHeartbeatTime.UTC(), "its node "+n.Name()+" last reported its Ready condition")
			}
		}
		if d := n.Node.DeletionTimestamp; d != nil {
			later(d.UTC(), "its node "+n.Name()+" began deleting")
		}
	}
	for i := range x.Snapshot.NodeClaims {
		c := &x.Snapshot.NodeClaims[i]
		if p, ok := snapshot.ParseProviderIDLeniently(c.ProviderID); ok && p.InstanceID == instance && !c.Deleting.IsZero() {
			later(c.Deleting.UTC(), "its NodeClaim "+c.Name+" began deleting")
		}
	}
	return at, name
}

// transitionTime reads the time in an instance's stateTransitionReason, "User initiated
// (2026-12-07 15:04:05 GMT)".
func transitionTime(reason string) (time.Time, bool) {
	open, end := strings.LastIndexByte(reason, '('), strings.LastIndexByte(reason, ')')
	if open < 0 || end < open {
		return time.Time{}, false
	}
	s := strings.TrimSpace(reason[open+1 : end])
	for _, zone := range []string{" GMT", " UTC"} {
		if v, ok := strings.CutSuffix(s, zone); ok {
			t, err := time.ParseInLocation(time.DateTime, v, time.UTC)
			return t, err == nil
		}
	}
	return time.Time{}, false
}

// cleanedBy returns when the cleaners that take an ENI would have deleted it at the latest,
// had it been left available at since: the later of the two, as either may be the one running.
// ipamd waits for createdAt's cooldown, and takes an ENI without createdAt a run later.
func (c eniCleaners) cleanedBy(e *snapshot.InterfaceRecord, since time.Time) time.Time {
	var by time.Time
	if c.ipamd {
		start := since
		if t, ok := ENICreated(e); ok {
			if cool := t.Add(eniLeakGrace); cool.After(start) {
				start = cool
			}
			by = start.Add(ipamdCleanupCycle)
		} else {
			by = start.Add(2 * ipamdCleanupCycle)
		}
	}
	if c.rc {
		if t := since.Add(rcCleanupTakes); t.After(by) {
			by = t
		}
	}
	return by
}

// cleanerText names the cleaners that should have taken an ENI.
func (c eniCleaners) cleanerText() string {
	var parts []string
	if c.ipamd {
		parts = append(parts, "ipamd's hourly cleanup (aws-node)")
	}
	if c.rc {
		parts = append(parts, "the VPC resource controller's 30-minute cleanup")
	}
	return strings.Join(parts, " and ")
}
