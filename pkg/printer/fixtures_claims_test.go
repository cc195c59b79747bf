package printer

import (
	"cmp"
	"slices"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

const (
	failedClaim    = "gpu-9fz2q"
	unregClaim     = "general-h4k8s"
	launchingClaim = "general-m2p7x"
	privateSubnet  = "subnet-0f0e0d0c0b0a09080"
)

// failedClaimReport is a NodeClaim whose launch failed for want of capacity.
func failedClaimReport() diagnose.NodeClaimReport {
	at := takenAt().Add(-4 * time.Minute)
	msg := "creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: " +
		"We currently do not have sufficient p4d.24xlarge capacity in the Availability Zone you requested (eu-west-1a)."
	return diagnose.NodeClaimReport{
		Name: failedClaim, NodePool: "gpu", NodeClass: "gpu", Created: at, AgeSeconds: 240,
		Status: diagnose.ClaimLaunchFailed,
		Conditions: []snapshot.Condition{
			{Type: "Launched", Status: "Unknown", Reason: "InsufficientCapacityError", Message: msg, LastTransitionTime: at},
			{Type: "Ready", Status: "Unknown", Reason: "AwaitingReconciliation", Message: "object is awaiting reconciliation"},
		},
		Events: []snapshot.KubeEvent{{Kind: "NodeClaim", Name: failedClaim, Type: "Warning",
			Reason: "InsufficientCapacityError", Message: "NodeClaim " + failedClaim + " event: " + msg, Count: 3, Last: at}},
		Findings: []diagnose.Finding{{
			ID: "nodeclaim-launch-failed", Severity: diagnose.Critical, Resource: "nodeclaim/" + failedClaim,
			Message: "NodeClaim " + failedClaim + " (NodePool gpu) could not launch an instance 4m ago: " +
				"InsufficientCapacityError: insufficient p4d.24xlarge capacity in eu-west-1a",
			Remedy: "allow more instance types or zones in NodePool gpu spec.template.spec.requirements",
		}},
	}
}

// unregClaimReport is a NodeClaim whose instance runs in a private subnet with no way out and
// never registered.
func unregClaimReport() diagnose.NodeClaimReport {
	launched := takenAt().Add(-9 * time.Minute)
	return diagnose.NodeClaimReport{
		Name: unregClaim, NodePool: "general", NodeClass: "default", Created: launched.Add(-20 * time.Second),
		AgeSeconds: 560, Status: diagnose.ClaimNotRegistered,
		ProviderID: "aws:///eu-west-1b/i-0123abcd4567ef890",
		Instance: &diagnose.ClaimInstance{ID: "i-0123abcd4567ef890", State: "running", Type: "m6i.large",
			Zone: "eu-west-1b", SubnetID: privateSubnet, PrivateIP: "10.0.130.12", LaunchTime: launched},
		Conditions: []snapshot.Condition{
			{Type: "Launched", Status: "True", LastTransitionTime: launched},
			{Type: "Registered", Status: "Unknown", Reason: "AwaitingReconciliation", Message: "object is awaiting reconciliation"},
		},
		Events: unregEvents(launched),
		WayOut: blockedWayOut(),
		Findings: []diagnose.Finding{{
			ID: "nodeclaim-not-registered", Severity: diagnose.Critical, Resource: "nodeclaim/" + unregClaim,
			Message: "NodeClaim " + unregClaim + " launched i-0123abcd4567ef890 9m ago and has no Node: subnet " +
				privateSubnet + " has no usable default route and no VPC endpoint for ecr.api, ecr.dkr, s3, sts",
			Remedy: "add a NAT gateway route 0.0.0.0/0 to route table rtb-0aa11bb22cc33dd44, or create the VPC endpoints",
		}},
	}
}

// unregEvents are a dozen events, more than a sheet shows.
func unregEvents(launched time.Time) []snapshot.KubeEvent {
	var out []snapshot.KubeEvent
	for i := range 12 {
		out = append(out, snapshot.KubeEvent{Kind: "NodeClaim", Name: unregClaim, Type: "Normal",
			Reason: "Launched", Message: "Status condition transitioned, Type: Launched, Status: True, attempt " +
				string(rune('a'+i)), Last: launched.Add(time.Duration(i) * time.Second)})
	}
	return out
}

// blockedWayOut is a private subnet's way out: a blackholed NAT route, endpoints missing, and
// a network ACL that denies the return traffic.
func blockedWayOut() *wayout.WayOut {
	return &wayout.WayOut{
		SubnetID: privateSubnet, RouteTable: "rtb-0aa11bb22cc33dd44",
		DefaultRoutes: []wayout.DefaultRoute{{Destination: "0.0.0.0/0", Target: "nat-0123456789abcdef0",
			Kind: "blackhole", Note: "blackhole: its target is gone"}},
		Verdict: wayout.WayOutNone,
		Reason: "default route 0.0.0.0/0 -> nat-0123456789abcdef0 (blackhole: its target is gone) unusable; " +
			"VPC endpoints missing: ecr.api, ecr.dkr, s3, sts",
		Endpoints:        []string{"ec2"},
		MissingEndpoints: []string{"ecr.api (none in the VPC)", "ecr.dkr (none in the VPC)", "s3 (no gateway endpoint on rtb-0aa11bb22cc33dd44)", "sts (none in the VPC)"},
		NetworkACL:       "acl-0123456789abcdef0", NACLVerdict: "blocks",
		NACLReason: "inbound rule 90 denies TCP 1024-65535 from 0.0.0.0/0: return traffic of HTTPS is dropped",
	}
}

// launchingClaimReport is a NodeClaim Karpenter is still launching.
func launchingClaimReport() diagnose.NodeClaimReport {
	return diagnose.NodeClaimReport{
		Name: launchingClaim, NodePool: "general", NodeClass: "default", Created: takenAt().Add(-10 * time.Second),
		AgeSeconds: 10, Status: diagnose.ClaimLaunching, Findings: []diagnose.Finding{},
	}
}

// claimsReport is findingsReport with NodeClaims without a Node: one failed launch, one never
// registered, one still launching.
func claimsReport() diagnose.Report {
	r := findingsReport()
	r.NodeClaims = []diagnose.NodeClaimReport{failedClaimReport(), unregClaimReport(), launchingClaimReport()}
	r.Summary.NodeClaimsWithoutNode, r.Summary.NodeClaimsNotJoined = 3, 2
	for _, c := range r.NodeClaims {
		r.Findings = append(r.Findings, c.Findings...)
		for _, f := range c.Findings {
			r.Summary.Findings[f.Severity.String()]++
		}
	}
	slices.SortStableFunc(r.Findings, func(a, b diagnose.Finding) int { return cmp.Compare(b.Severity, a.Severity) })
	return r
}

// wayOutNodeReport is the GPU node in a subnet whose way out is blocked (blockedWayOut).
func wayOutNodeReport() diagnose.NodeReport {
	n := gpuNodeReport()
	n.WayOut = blockedWayOut()
	n.WayOut.SubnetID = gpuSubnet
	return n
}

// endpointsNodeReport is the GPU node in a private subnet of the VPC's main table, which has
// no default route, that gets out through VPC endpoints; its network ACL allows.
func endpointsNodeReport() diagnose.NodeReport {
	n := gpuNodeReport()
	n.WayOut = &wayout.WayOut{
		SubnetID: gpuSubnet, RouteTable: "rtb-0main0000000000001", MainTable: true,
		Verdict: wayout.WayOutEndpoints,
		Reason: "no default route; the VPC has an endpoint for each of ec2, ecr.api, ecr.dkr, s3, sts (EKS API " +
			"assumed reachable through the cluster's private endpoint)",
		Endpoints:  []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"},
		NetworkACL: "acl-0default000000001", NACLVerdict: "allows",
	}
	return n
}
