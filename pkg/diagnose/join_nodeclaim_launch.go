package diagnose

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specNodeClaimLaunchFailed = &Spec{
	ID:       "nodeclaim-launch-failed",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyJoin,
	Needs:    []string{snapshot.SourceNodes, snapshot.SourceNodeClaims},
	Examines: []string{SubjectNodeClaim},
	Title:    "a NodeClaim without a Node failed to launch its instance",
	FiresWhen: "a NodeClaim with no Node has `Launched=False`, or `Launched=Unknown` with a reason other than " +
		"`AwaitingReconciliation` (Karpenter v1 keeps Unknown with the EC2 error as reason and message); " +
		"InsufficientFreeAddressesInSubnet, InvalidParameterCombination (public IP with several network " +
		"interfaces), SecurityGroupSubnetVPCMismatch, missing security groups or subnets and Unauthorized map to " +
		"their networking cause; warning for RequestLimitExceeded and InternalError, which Karpenter retries",
	NotOn: "claims still launching (`Launched=Unknown` without an error reason); claims being deleted; claims " +
		"with a Node; NodeClaims or Nodes not readable",
	Why: "the pods that asked for the node stay Pending; Karpenter retries and deletes the claim after 5 minutes, " +
		"and a claim whose errors were all capacity errors is deleted at once, leaving only its event",
	Remedy: "the cause's field: more subnets or free addresses, `associatePublicIPAddress`, selector terms, the " +
		"controller role's EC2 permissions; otherwise Karpenter's log",
	Sources: []string{
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/launch.go (Launched=Unknown with the CreateError reason)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go (5-minute launch timeout)",
		"aws/karpenter-provider-aws pkg/errors/errors.go (ToReasonMessage, capacity error codes)",
		"aws/karpenter-provider-aws pkg/providers/instance/instance.go (combineFleetErrors, SubnetResolutionFailed)",
		"awslabs/operatorpkg status/condition_set.go (initial reason AwaitingReconciliation)",
		"https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html",
	},
	Verified: []Verified{
		{UpstreamKarpenterCore, "pkg/controllers/nodeclaim/lifecycle/launch.go (launch)",
			"a CreateError sets Launched=Unknown with its ConditionReason and ConditionMessage, any other error Launched=Unknown reason LaunchFailed; an InsufficientCapacity or NodeClassNotReady error deletes the NodeClaim at once"},
		{UpstreamKarpenterCore, "pkg/controllers/nodeclaim/lifecycle/liveness.go (LaunchTimeout)",
			"a NodeClaim not Launched 5 minutes after its Launched transition is deleted (launch_timeout)"},
		{UpstreamKarpenter, "pkg/errors/errors.go (ToReasonMessage, unfulfillableCapacityErrorCodes)",
			"reasons Unauthorized, SecurityGroupSubnetVPCMismatch, RequestLimitExceeded, InternalError and the others come from ToReasonMessage; InsufficientFreeAddressesInSubnet is an unfulfillable-capacity code"},
		{UpstreamKarpenter, "pkg/providers/instance/instance.go (combineFleetErrors)",
			"fleet errors that are all unfulfillable capacity become an InsufficientCapacityError, else a CreateError with ToReasonMessage's reason"},
	},
}

// nodeClaimLaunchFailed finds NodeClaims whose launch failed. Karpenter v1 does not write
// Launched=False: when CreateFleet fails with anything but a capacity error it keeps
// Launched=Unknown with the error's reason and message (kubernetes-sigs/karpenter
// lifecycle/launch.go), retries, and deletes the claim five minutes later. The pods that
// asked for the node stay Pending meanwhile, so the cause is worth naming while it is there.
var nodeClaimLaunchFailed = Check{
	Spec: specNodeClaimLaunchFailed,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, c := range x.Claims {
			if c.Status != ClaimLaunchFailed {
				continue
			}
			l := c.Condition(condLaunched)
			cause := launchCause(x, c.Class, l.Reason, l.Message, c.Events)
			msg := fmt.Sprintf("%s has not launched%s: Launched=%s, reason %s: %q; %s", c.Label(), claimAgeText(c),
				l.Status, l.Reason, clipText(l.Message), cause.text)
			if e := c.LastEvent(); e != nil {
				msg += "; " + eventText(e)
			}
			if !l.LastTransitionTime.IsZero() {
				msg += "; " + timeoutText(x.Snapshot.Taken, l.LastTransitionTime.Add(launchTTL), "5-minute launch timeout")
			}
			f := Finding{Resource: c.Ref(), Message: msg, Remedy: cause.remedy, Commands: cause.commands}
			if cause.transient {
				f.Severity = Warning
			}
			out = append(out, f)
		}
		return out
	},
}

// launchCauseInfo is what a launch error means and what to do about it.
type launchCauseInfo struct {
	text, remedy string
	// commands are the remedy's commands, where karpnet knows what they name.
	commands []Command
	// transient is true for throttling and EC2 internal errors, which Karpenter retries.
	transient bool
}

// Patterns of EC2 and Karpenter launch errors, matched against the Launched condition's reason
// and message and the claim's events. Karpenter v1.2+ maps CreateFleet errors to reasons
// (aws/karpenter-provider-aws pkg/errors/errors.go ToReasonMessage); older versions put the
// raw error in the message with reason LaunchFailed.
var (
	subnetIDPattern = regexp.MustCompile(`subnet-[0-9a-f]{8,17}`)
	errSubnetFull   = []string{"InsufficientFreeAddressesInSubnet"}
	errPublicIPENIs = []string{"InvalidParameterCombination", "associatePublicIPAddress", "multiple network interfaces"}
	errVPCMismatch  = []string{"SecurityGroupSubnetVPCMismatch", "belong to different networks"}
	errSGNotFound   = []string{"InvalidGroup.NotFound", "SecurityGroupsNotFound"}
	errSubnetLookup = []string{"InvalidSubnetID.NotFound", "SubnetResolutionFailed", "SubnetsNotFound"}
	errUnauthorized = []string{"Unauthorized", "AccessDenied", "AuthFailure"}
	errTransient    = []string{"RequestLimitExceeded", "InternalError"}
)

// launchCause maps a launch error to its networking cause and remedy where it is one, and
// passes any other error through with the way to read Karpenter's account of it.
func launchCause(x *Index, class *snapshot.EC2NodeClass, reason, message string, events []snapshot.KubeEvent) launchCauseInfo {
	text := reason + " " + message
	for _, e := range events {
		text += " " + e.Reason + " " + e.Message
	}
	has := func(words []string) bool {
		for _, w := range words {
			if strings.Contains(text, w) {
				return true
			}
		}
		return false
	}
	name := "the NodeClaim's EC2NodeClass"
	if class != nil {
		name = classLabel(class)
	}
	switch {
	case has(errSubnetFull):
		return launchCauseInfo{
			text: "the subnets are out of addresses: " + classSubnetsText(x, class, subnetIDPattern.FindAllString(message, -1)),
			remedy: fmt.Sprintf("add subnets with free addresses to %s spec.subnetSelectorTerms (Karpenter launches into "+
				"the roomiest subnet of each zone), or free addresses in the full ones (see instance-orphaned for "+
				"instances that hold addresses without a NodeClaim)", name),
		}
	case has(errPublicIPENIs):
		return launchCauseInfo{
			text: "EC2 refuses a public IPv4 address on an instance launched with several network interfaces",
			remedy: fmt.Sprintf("remove %s from %s (or set it to false) and give the nodes outbound access "+
				"through a NAT gateway", classField(class, "spec.associatePublicIPAddress"), name),
		}
	case has(errVPCMismatch):
		return launchCauseInfo{
			text: "the security groups and subnets are in different VPCs" + classVPCsText(x, class),
			remedy: fmt.Sprintf("make %s spec.subnetSelectorTerms and spec.securityGroupSelectorTerms select the "+
				"cluster's VPC only", name),
		}
	case has(errSGNotFound):
		info := launchCauseInfo{
			text: "a security group the launch uses does not exist",
			remedy: fmt.Sprintf("fix %s spec.securityGroupSelectorTerms so they match existing groups "+
				"(status.securityGroups, condition SecurityGroupsReady)", name),
		}
		if class != nil {
			info.remedy += "; the command shows them"
			info.commands = []Command{{Argv: []string{"kubectl", "get", strings.ToLower(class.KindName()), class.Name,
				"-o", "yaml"}, ReadOnly: true}}
		}
		return info
	case has(errSubnetLookup):
		return launchCauseInfo{
			text: "Karpenter could not find a subnet to launch into",
			remedy: fmt.Sprintf("fix %s spec.subnetSelectorTerms so they match existing subnets in the cluster's "+
				"VPC (status.subnets, condition SubnetsReady)", name),
		}
	case has(errUnauthorized):
		return launchCauseInfo{
			text: "the launch was not authorized (the message says whether a policy, a permission boundary or a " +
				"service control policy denies it)",
			remedy: "allow the Karpenter controller role ec2:CreateFleet, ec2:RunInstances, ec2:CreateTags and " +
				"ec2:CreateLaunchTemplate, and iam:PassRole on the node role; check service control policies and " +
				"permission boundaries",
		}
	case has(errTransient):
		return launchCauseInfo{
			text:      "EC2 throttled the request or failed internally; Karpenter retries",
			remedy:    "nothing if it clears; if it persists, read " + karpenterLogText,
			commands:  karpenterLogCommands(),
			transient: true,
		}
	}
	info := launchCauseInfo{
		text:     "the error is not a networking one karpnet knows",
		remedy:   "read the full EC2 error in " + karpenterLogText,
		commands: karpenterLogCommands(),
	}
	if class != nil && class.AssociatePublicIPAddress != nil && *class.AssociatePublicIPAddress && len(class.NetworkInterfaces) > 1 {
		info.text = fmt.Sprintf("%s sets %s: true with %d network interfaces, which EC2 refuses "+
			"(InvalidParameterCombination) and Karpenter reports only as LaunchFailed", name,
			strings.TrimPrefix(classField(class, "spec.associatePublicIPAddress"), "spec."), len(class.NetworkInterfaces))
		info.remedy = fmt.Sprintf("remove %s from %s, or %s", classField(class, "spec.associatePublicIPAddress"), name, info.remedy)
	}
	return info
}

// karpenterLogText names the commands of karpenterLogCommands in a remedy.
const karpenterLogText = "Karpenter's log (the commands: one for each namespace Karpenter is installed in, kube-system or karpenter)"

// karpenterLogCommands read Karpenter's log in the namespaces its Helm chart is installed in,
// kube-system or karpenter; its pods carry the chart's app.kubernetes.io/name=karpenter label.
func karpenterLogCommands() []Command {
	return []Command{
		{Argv: []string{"kubectl", "logs", "-n", "kube-system", "-l", "app.kubernetes.io/name=karpenter", "--tail=500"}, ReadOnly: true},
		{Argv: []string{"kubectl", "logs", "-n", "karpenter", "-l", "app.kubernetes.io/name=karpenter", "--tail=500"}, ReadOnly: true},
	}
}

// classSubnetsText lists the subnets the class resolved, with their free addresses, and the
// subnets the error names.
func classSubnetsText(x *Index, class *snapshot.EC2NodeClass, named []string) string {
	var parts []string
	if class != nil {
		for _, st := range class.StatusSubnets {
			if s := x.Subnets[st.ID]; s != nil {
				parts = append(parts, subnetText(s))
			} else {
				parts = append(parts, st.ID+" (not read)")
			}
		}
	}
	var text string
	switch {
	case class == nil:
		text = "the class is unknown"
	case len(parts) == 0:
		text = classLabel(class) + " resolves no subnets (status.subnets is empty)"
	default:
		text = classLabel(class) + " selects " + strings.Join(parts, ", ")
	}
	if named = sortedUnique(named); len(named) > 0 {
		text += "; the error names " + strings.Join(named, ", ")
	}
	return text
}

// classVPCsText names the VPCs of the class's subnets and security groups, when known.
func classVPCsText(x *Index, class *snapshot.EC2NodeClass) string {
	if class == nil {
		return ""
	}
	var subnets, groups []string
	for _, st := range class.StatusSubnets {
		if s := x.Subnets[st.ID]; s != nil && s.VpcID != "" {
			subnets = append(subnets, s.ID+" in "+s.VpcID)
		}
	}
	for _, sg := range class.StatusSecurityGroups {
		if g := x.SecurityGroups[sg.ID]; g != nil && g.VpcID != "" {
			groups = append(groups, g.ID+" in "+g.VpcID)
		}
	}
	if len(subnets) == 0 && len(groups) == 0 {
		return ""
	}
	return fmt.Sprintf(" (subnets %s; security groups %s)", orNone(subnets), orNone(groups))
}

func orNone(items []string) string {
	if len(items) == 0 {
		return "unknown"
	}
	return strings.Join(items, ", ")
}

// claimAgeText says how old the claim is: " 3m after its creation", or "" when unknown.
func claimAgeText(c *ClaimInfo) string {
	if c.Claim.Created.IsZero() {
		return ""
	}
	return " " + ago(c.Age) + " after its creation"
}

// eventText renders an event for messages: `last event InsufficientCapacityError (x3, 2m ago
// ...)`.
func eventText(e *snapshot.KubeEvent) string {
	t := "last event " + e.Reason
	if e.Count > 1 {
		t += fmt.Sprintf(" (x%d)", e.Count)
	}
	if e.Message != "" {
		t += fmt.Sprintf(": %q", clipText(e.Message))
	}
	return t
}

// timeoutText says when Karpenter deletes the claim for the named timeout.
func timeoutText(now, deadline time.Time, what string) string {
	if left := deadline.Sub(now); left > 0 {
		return fmt.Sprintf("Karpenter deletes it and tries again in about %s (%s)", ago(left), what)
	}
	return fmt.Sprintf("its %s passed %s ago and Karpenter has not deleted it: check that Karpenter runs", what, ago(now.Sub(deadline)))
}

// maxShownText is how much of a condition or event message a finding quotes: Karpenter itself
// truncates launch errors to 300 bytes (lifecycle/launch.go truncateMessage).
const maxShownText = 300

// clipText shortens s to maxShownText bytes, on a rune boundary, marking the cut with "...".
func clipText(s string) string {
	if len(s) <= maxShownText {
		return s
	}
	cut := maxShownText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
