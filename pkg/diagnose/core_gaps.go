package diagnose

import "fmt"

var specDataUnavailable = &Spec{
	ID:        DataUnavailableID,
	Severity:  Warning,
	Family:    FamilyCore,
	Examines:  []string{SubjectSource},
	Title:     "a data source could not be read, so checks that need it were skipped",
	FiresWhen: "a source could not be read, in every Region or in one (then only that Region's nodes are skipped)",
	NotOn: "sources a cluster does not have (no Karpenter CRDs, no aws-node, no ENIConfig CRD without custom " +
		"networking)",
	Why:    "the checks that need it are silent, so a clean report is not proof",
	Remedy: "grant the permission or pass the flag the finding names",
	Sources: []string{
		"https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html",
		"https://docs.aws.amazon.com/AWSEC2/latest/APIReference/query-api-troubleshooting.html (UnauthorizedOperation)",
	},
	Verified: []Verified{
		{UpstreamAWSDocs, "AWSEC2/latest/APIReference/query-api-troubleshooting.html (Unauthorized operation)",
			"an action the caller's IAM policies do not grant fails with Client.UnauthorizedOperation: permissions must be " +
				"granted explicitly"},
		{UpstreamAWSDocs, "AWSEC2/latest/APIReference/errors-overview.html (Common client error codes)",
			"client errors (HTTP 4xx) come from the request or the caller's permissions, server errors (HTTP 5xx) from AWS"},
	},
}

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
			f := Finding{
				Resource: g.Subject(),
				Message:  fmt.Sprintf("could not read %s (%s); checks that need it were skipped", g.Source, reason),
				Remedy:   remedy,
			}
			if g.Region != "" {
				f.Message = fmt.Sprintf("could not read %s in Region %s (%s); its nodes and NodeClaims were not checked "+
					"against EC2, the other Regions' were", g.Source, g.Region, reason)
			}
			out = append(out, f)
		}
		return out
	},
}
