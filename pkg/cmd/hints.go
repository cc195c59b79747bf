package cmd

// hints are the commands that errors suggest, to list what can be named or to see more. A live
// run (or one over --snapshot) names the cluster's own tools: kubectl get, aws ec2, kubectl
// karpnet. Under demo there is no cluster to ask, so they name the demo's commands.
type hints struct{ demo bool }

// hints returns the hints of this run: demo's once the demo command has set o.demo (its
// PersistentPreRunE runs before any subcommand's RunE).
func (o *commonOptions) hints() hints { return hints{demo: o.demo} }

// karpnet is how karpnet's commands are run: "kubectl karpnet", or "kubectl karpnet demo".
func (h hints) karpnet() string {
	if h.demo {
		return "kubectl karpnet demo"
	}
	return "kubectl karpnet"
}

// list returns live, the hint that lists things on a cluster (e.g. "list nodes with kubectl get
// nodes"), or under demo the demo's: the JSON report of demo check names every node with its
// NodeClaim, NodePool, class, subnets and placement group, and the NodeClaims without a Node.
func (h hints) list(things, live string) string {
	if h.demo {
		return "list the demo's " + things + " with kubectl karpnet demo check -o json"
	}
	return live
}
