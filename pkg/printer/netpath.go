package printer

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
)

// netPath writes the "Network path" section: how the subnet gets out to what a node needs to
// join (its route table and default routes, the verdict, the VPC endpoints found and missing)
// and whether its network ACL lets that traffic through. Nothing is written when w is nil:
// the route tables were not read, which says nothing about the path.
func netPath(t *text, w *wayout.WayOut) {
	if w == nil {
		return
	}
	t.header("Network path")
	table := orUnknown(w.RouteTable)
	switch {
	case w.RouteTable != "" && w.MainTable:
		table += " (the VPC's main table: no explicit association)"
	case w.RouteTable != "":
		table += " (explicitly associated)"
	}
	verdict := orUnknown(w.Verdict)
	switch {
	case w.Reason != "" && strings.HasPrefix(w.Reason, w.Verdict+" "):
		// "route 0.0.0.0/0 -> nat-..." says its verdict itself.
		verdict = w.Reason
	case w.Reason != "":
		verdict += ": " + w.Reason
	}
	pairs := []kv{{"Subnet", orUnknown(w.SubnetID)}, {"Route table", table}}
	if w.RouteTable != "" {
		if len(w.DefaultRoutes) == 0 {
			pairs = append(pairs, kv{"Default route", "none (no 0.0.0.0/0 or ::/0 in the table)"})
		}
		for _, r := range w.DefaultRoutes {
			route := fmt.Sprintf("%s -> %s (%s, usable: %s)", r.Destination, orUnknown(r.Target), orUnknown(r.Kind), yesNo(r.Usable))
			if r.Note != "" {
				route += ": " + r.Note
			}
			pairs = append(pairs, kv{"Default route", route})
		}
	}
	pairs = append(pairs, kv{"Way out", verdict})
	if len(w.Endpoints) > 0 || len(w.MissingEndpoints) > 0 {
		pairs = append(pairs, kv{"Endpoints found", orNone(strings.Join(w.Endpoints, ", "))},
			kv{"Endpoints missing", orNone(strings.Join(w.MissingEndpoints, "; "))})
	}
	if w.NACLVerdict != "" || w.NetworkACL != "" {
		acl := orUnknown(w.NACLVerdict)
		if w.NetworkACL != "" {
			acl = w.NetworkACL + ": " + acl
		}
		if w.NACLReason != "" {
			acl += " (" + w.NACLReason + ")"
		}
		pairs = append(pairs, kv{"Network ACL", acl})
	}
	t.kvs(indent, pairs)
}
