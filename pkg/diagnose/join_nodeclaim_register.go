package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specNodeClaimNotRegistered = &Spec{
	ID:       "nodeclaim-not-registered",
	Severity: Critical,
	Lower:    []Severity{Info},
	Family:   FamilyJoin,
	Needs:    []string{snapshot.SourceNodes, snapshot.SourceNodeClaims},
	Examines: []string{SubjectNodeClaim},
	Title:    "a NodeClaim's instance launched but never became a Node",
	FiresWhen: "a NodeClaim with no Node has `Launched=True` for at least 5 minutes (its Launched transition, else " +
		"its creation) and `Registered` is not True; info when its instance is already `shutting-down` or " +
		"`terminated`. The message names the cause it can see: the subnet's way out (no route or endpoints; a NAT " +
		"gateway it routes to whose route table, its subnet's or a regional gateway's own, has no internet gateway " +
		"route; a private NAT gateway routed to an internet gateway, which drops its traffic; a regional one without " +
		"an address in the subnet's zone; a NAT subnet's network ACL that drops either side), the subnet's network " +
		"ACL, the security groups' egress",
	NotOn: "claims launched under 5 minutes ago (a node registers 1-3 minutes after launch); claims being deleted; " +
		"registered claims; NodeClaims or Nodes not readable",
	Why: "the instance runs and bills but never joins, most often because the node subnet has no way out to the EKS " +
		"endpoint, ECR or STS; Karpenter deletes the claim at its 15-minute registration TTL and launches another " +
		"that fails the same way",
	Remedy: "fix the subnet's way out (route, VPC endpoints, security-group egress, network ACL) or the node " +
		"role's access entry; read the instance console output",
	Sources: []string{
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go (15-minute registration TTL)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration.go (Registered=Unknown NodeNotFound)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/garbagecollection/controller.go (only registered claims are collected)",
		"kubernetes-sigs/karpenter designs/noderegistrationhealthy-status-condition.md (missing outbound rule)",
		"aws/karpenter-provider-aws website/content/en/docs/troubleshooting.md (Node NotReady; Node terminates before ready on failed encrypted EBS volume)",
	},
	Verified: []Verified{
		{UpstreamKarpenterCore, "pkg/controllers/nodeclaim/lifecycle/liveness.go (registrationTimeout)",
			"a NodeClaim not Registered 15 minutes after its Registered transition is deleted (registration_timeout)"},
		{UpstreamKarpenterCore, "pkg/controllers/nodeclaim/lifecycle/registration.go (Reconcile)",
			"with no Node for the NodeClaim, Registered is Unknown with reason NodeNotFound, message \"Node not registered with cluster\""},
		{UpstreamEC2API, "types/types.go (NatGateway: AvailabilityMode, RouteTableId, SubnetId, ConnectivityType)",
			"the cause it names follows the NAT gateway as subnet-no-egress-route does: a regional gateway has a route table and no subnet"},
		{UpstreamAWSDocs, "https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html (Restricting cluster traffic)",
			"nodes need outbound TCP 443 and internet access for the EKS APIs and node registration at launch"},
	},
}

// nodeClaimNotRegistered finds NodeClaims whose instance launched at least registrationGrace
// ago and never became a Node. On EKS that is most often the node subnet's way out: the new
// node cannot reach the EKS endpoint, ECR or STS (no route, no VPC endpoints, security-group
// egress, network ACL), or its role has no access entry. Karpenter deletes the claim at its
// 15-minute registration TTL and launches another, so the pods stay Pending and the cycle
// repeats until the cause is fixed. A claim whose instance already ended is info: nothing can
// join any more and Karpenter removes the claim at the TTL, but why the instance ended is the
// clue.
var nodeClaimNotRegistered = Check{
	Spec: specNodeClaimNotRegistered,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, c := range x.Claims {
			if c.Status != ClaimNotRegistered {
				continue
			}
			out = append(out, notRegisteredFinding(x, c))
		}
		return out
	},
}

// notRegisteredFinding describes one claim that launched and never registered.
func notRegisteredFinding(x *Index, c *ClaimInfo) Finding {
	msg := c.Label() + " launched"
	if since := x.sinceLaunch(c); !launchedAt(c).IsZero() {
		msg += " " + ago(since) + " ago"
	}
	msg += " and no Node registered"
	if r := c.Condition(condRegistered); r != nil {
		msg += fmt.Sprintf(" (Registered=%s", r.Status)
		if r.Reason != "" {
			msg += ", " + r.Reason
		}
		if r.Message != "" {
			msg += fmt.Sprintf(": %q", clipText(r.Message))
		}
		msg += ")"
	}
	msg += "; " + claimInstanceText(x, c)
	if cause := notRegisteredCause(x, c); cause != "" {
		msg += "; " + cause
	}
	if e := c.LastEvent(); e != nil {
		msg += "; " + eventText(e)
	}
	if d := registrationDeadline(c); !d.IsZero() {
		msg += "; " + timeoutText(x.Snapshot.Taken, d, "15-minute registration TTL")
	}
	if instanceEnded(c) {
		return Finding{
			Severity: Info,
			Resource: c.Ref(),
			Message:  msg,
			Remedy: fmt.Sprintf("find why the instance ended in its state reason (the command; Client.InternalError at boot "+
				"is often an encrypted EBS volume whose KMS key the launching role cannot use); %s removes the NodeClaim itself",
				c.launcher()),
			Commands: []Command{{Argv: []string{"aws", "ec2", "describe-instances", "--instance-ids", c.Instance.ID, "--query",
				"Reservations[].Instances[].StateReason"}, ReadOnly: true}},
		}
	}
	remedy := "check that a new node in the subnet can reach the EKS API endpoint, ECR and STS on 443 (a route to a NAT " +
		"or internet gateway, or the VPC endpoints of a private cluster; security-group egress; the subnet's network " +
		"ACL) and that the node role has an EKS access entry"
	f := Finding{Resource: c.Ref(), Message: msg, Remedy: remedy}
	if c.Instance != nil {
		f.Remedy += "; the instance's console shows where it stopped (the command)"
		f.Commands = []Command{{Argv: []string{"aws", "ec2", "get-console-output", "--instance-id", c.Instance.ID, "--latest"},
			ReadOnly: true}}
	}
	return f
}

// claimInstanceText describes the claim's instance: its ID, state, subnet and address.
func claimInstanceText(x *Index, c *ClaimInfo) string {
	switch {
	case c.Instance != nil:
		in := c.Instance
		t := fmt.Sprintf("instance %s is %s", in.ID, orUnknown(in.State))
		if in.SubnetID != "" {
			t += " in " + in.SubnetID
			if c.Subnet != nil {
				t += " (" + c.Subnet.CIDR + ")"
			}
		}
		if in.PrivateIP != "" {
			t += " at " + in.PrivateIP
		}
		return t
	case c.ProviderErr != nil:
		return "the NodeClaim names no instance (status.providerID " + orUnknown(c.Claim.ProviderID) + ")"
	case x.Unavailable(snapshot.SourceDescribeInstances):
		return "instance " + c.Provider.InstanceID + " (DescribeInstances not readable)"
	case c.Unread != nil:
		return "instance " + c.Provider.InstanceID + " (" + unreadText(c.Unread) + ")"
	}
	return "instance " + c.Provider.InstanceID + " (not returned by DescribeInstances)"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// notRegisteredCause says which part of the way out of the claim's subnet is missing, or ""
// when nothing is known to be: the subnet's routes and VPC endpoints, its network ACL, and
// the outbound rules of the instance's security groups, as the join_egress checks decide
// them (they report each on the subnet or the claim as well).
func notRegisteredCause(x *Index, c *ClaimInfo) string {
	if c.Subnet == nil || c.Instance == nil {
		return ""
	}
	var causes []string
	w := x.net.Decide(c.Subnet, wayout.InstancePublicIP(c.Instance), c.windows())
	switch cause := x.net.NATCause(w); {
	case w.Verdict != wayout.WayOutNone:
	case cause != "":
		causes = append(causes, fmt.Sprintf("%s, and no VPC endpoints stand in for it (missing: %s)", cause,
			strings.Join(w.MissingEndpoints, ", ")))
	default:
		causes = append(causes, fmt.Sprintf("subnet %s has no way out: %s", c.Subnet.ID, w.Reason))
	}
	if _, verdict, reason := x.net.NACL(c.Subnet, c.windows(), &w); verdict == wayout.NACLBlocks {
		causes = append(causes, "its network ACL blocks "+reason)
	}
	if groups := groupIDs(c.Instance.SecurityGroups); len(groups) > 0 && !x.Unavailable(snapshot.SourceDescribeSecurityGroups) {
		known, admits := true, false
		for _, id := range groups {
			g := x.SecurityGroups[id]
			if g == nil || len(g.Inbound) == 0 && len(g.Outbound) == 0 {
				known = false
				break
			}
			admits = admits || slices.ContainsFunc(g.Outbound, admits443)
		}
		if known && !admits {
			causes = append(causes, "no outbound rule of its security groups "+strings.Join(groups, ", ")+" admits TCP 443")
		}
	}
	return strings.Join(causes, "; ")
}
