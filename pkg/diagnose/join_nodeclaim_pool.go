package diagnose

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// condNodeRegistrationHealthy is the NodePool condition Karpenter v1.4+ sets False when a
// NodeClaim of the pool failed to launch or register within its timeout, and True again on the
// next registration (kubernetes-sigs/karpenter lifecycle/liveness.go, registration.go).
const condNodeRegistrationHealthy = "NodeRegistrationHealthy"

// reasonRegistrationFailed is its reason when the instance launched but never registered;
// after a failed launch it carries the Launched condition's reason and message instead.
const reasonRegistrationFailed = "RegistrationFailed"

var specNodePoolRegistrationUnhealthy = &Spec{
	ID:       "nodepool-registration-unhealthy",
	Severity: Critical,
	Family:   FamilyJoin,
	Needs:    []string{snapshot.SourceNodePools},
	Examines: []string{SubjectNodePool},
	Title:    "Karpenter marked the NodePool's node registrations unhealthy",
	FiresWhen: "the NodePool has `NodeRegistrationHealthy=False` (Karpenter v1.4+): at a NodeClaim's launch or " +
		"registration timeout, half or more of the pool's last 4 launches and registrations had failed; the finding " +
		"names the pool's NodeClaims without a Node",
	NotOn: "`NodeRegistrationHealthy` True or Unknown; NodePools without the condition (Karpenter before v1.4); " +
		"NodePools not readable",
	Why: "Karpenter goes on launching nodes from the pool, and they fail the same way until the cause is fixed; the " +
		"condition stays False until a node registers or the NodePool or its NodeClass changes",
	Remedy: "for reason RegistrationFailed fix the node subnets' way out or the node role's access entry; otherwise " +
		"fix the launch error the reason names",
	Sources: []string{
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go (updateNodePoolRegistrationHealth)",
		"kubernetes-sigs/karpenter pkg/controllers/nodepool/registrationhealth/controller.go (Unknown on a new generation)",
		"kubernetes-sigs/karpenter pkg/apis/v1/nodepool_status.go (ConditionTypeNodeRegistrationHealthy, v1.4.0)",
		"kubernetes-sigs/karpenter designs/noderegistrationhealthy-status-condition.md",
	},
	Verified: []Verified{
		{UpstreamKarpenterCore, "pkg/controllers/nodeclaim/lifecycle/liveness.go (updateNodePoolRegistrationHealth)",
			"at a launch or registration timeout of a NodeClaim the pool owns, NodeRegistrationHealthy goes False with reason RegistrationFailed (launched) or the Launched condition's reason, when the pool's tracker is unhealthy"},
		{UpstreamKarpenterCore, "pkg/state/nodepoolhealth/tracker.go (BufferSize, ThresholdFalse)",
			"the tracker keeps the last 4 launch or registration outcomes and is unhealthy when half or more failed"},
		{UpstreamKarpenterCore, "pkg/controllers/nodepool/registrationhealth/controller.go (Reconcile)",
			"a new NodePool generation or NodeClass generation sets NodeRegistrationHealthy Unknown and resets the tracker"},
		{UpstreamKarpenterCore, "pkg/apis/v1/nodepool_status.go (ConditionTypeNodeRegistrationHealthy)",
			"the condition type is NodeRegistrationHealthy"},
	},
}

// nodePoolRegistrationUnhealthy reports NodePools whose NodeRegistrationHealthy condition is
// False: Karpenter saw one of the pool's NodeClaims fail to launch or register. It does not
// stop provisioning, so Karpenter goes on launching nodes that fail the same way until the
// NodePool or NodeClass changes or a node registers.
var nodePoolRegistrationUnhealthy = Check{
	Spec: specNodePoolRegistrationUnhealthy,
	Run: func(x *Index) []Finding {
		failed := map[string][]string{}
		for _, c := range x.Claims {
			if c.PoolName != "" && (c.Status == ClaimLaunchFailed || c.Status == ClaimNotRegistered) {
				failed[c.PoolName] = append(failed[c.PoolName], c.Name()+" ("+c.Status+")")
			}
		}
		var out []Finding
		for _, name := range sortedKeys(x.NodePools) {
			p := x.NodePools[name]
			cond := findCondition(p.Conditions, condNodeRegistrationHealthy)
			if cond == nil || cond.Status != condFalse {
				continue
			}
			msg := fmt.Sprintf("NodePool %s has %s=False", p.Name, condNodeRegistrationHealthy)
			if !cond.LastTransitionTime.IsZero() {
				msg += " since " + ago(x.Snapshot.Taken.Sub(cond.LastTransitionTime)) + " ago"
			}
			msg += fmt.Sprintf(", reason %s: %q", orUnknown(cond.Reason), clipText(cond.Message))
			if claims := failed[p.Name]; len(claims) > 0 {
				msg += "; its NodeClaims without a Node: " + abbreviate(claims, 5)
			} else {
				msg += "; no NodeClaim of the pool is failing now (Karpenter deletes failed ones after 5 minutes " +
					"unlaunched or 15 unregistered; the condition stays False until a node registers or the NodePool " +
					"or its NodeClass changes)"
			}
			out = append(out, Finding{Resource: "nodepool/" + p.Name, Message: msg, Remedy: poolRemedy(x, x.ClassOf(p.NodeClassRef), cond.Reason, cond.Message)})
		}
		return out
	},
}

// poolRemedy is the remedy for an unhealthy pool: the registration one when instances launched
// and never registered, else the launch error's.
func poolRemedy(x *Index, class *snapshot.EC2NodeClass, reason, message string) string {
	if reason == reasonRegistrationFailed || strings.TrimSpace(reason) == "" {
		return "instances launched but never became Nodes: check the node subnets' way out to the EKS API endpoint, " +
			"ECR and STS on 443 (routes to a NAT or internet gateway, or VPC endpoints; security-group egress; " +
			"network ACLs) and the node role's EKS access entry; see nodeclaim-not-registered findings"
	}
	return launchCause(x, class, reason, message, nil).remedy
}
