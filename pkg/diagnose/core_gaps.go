package diagnose

import "fmt"

// dataUnavailable turns every snapshot Gap into a finding. A source karpnet could not read
// (missing IAM permission, RBAC, CRD or credentials) silences the checks that need it, so the
// report must say what was not checked and how to let karpnet read it.
var dataUnavailable = Check{
	Spec: specDataUnavailable,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, g := range x.Snapshot.Gaps {
			reason := g.Reason
			if reason == "" {
				reason = "no reason given"
			}
			remedy := g.Remedy
			if remedy == "" {
				remedy = "grant karpnet read access to " + g.Source + " and run it again"
			}
			out = append(out, Finding{
				Resource: g.Source,
				Message:  fmt.Sprintf("could not read %s (%s); checks that need it were skipped", g.Source, reason),
				Remedy:   remedy,
			})
		}
		return out
	},
}
