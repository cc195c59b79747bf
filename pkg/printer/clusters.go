package printer

import (
	"fmt"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// clustersText writes a report over several clusters: for each cluster in the report's
// order a heading (its context, EKS name, Region, account and time), its findings and its
// summary line; an unreachable cluster says why in its data-unavailable finding. Last comes
// one line counting the clusters and one summary line over all of them.
func clustersText(t *text, r diagnose.Report, wide bool) {
	unreachable := 0
	for i, c := range r.Clusters {
		if i > 0 {
			t.blank()
		}
		part, _ := r.OfContext(c.Context)
		t.header("cluster " + c.Context)
		fields := []kv{{"name", orUnknown(c.ClusterName)}, {"region", orUnknown(c.Region)}}
		if c.Account != "" {
			fields = append(fields, kv{"account", c.Account})
		}
		fields = append(fields, kv{"taken", taken(c.Taken)})
		if c.Status == diagnose.StatusUnreachable {
			unreachable++
			fields = []kv{{"status", t.st.Critical.Style.Render(diagnose.StatusUnreachable)}, {"taken", taken(c.Taken)}}
		}
		t.fields(fields)
		t.blank()
		if c.Status == diagnose.StatusUnreachable {
			// Its data-unavailable finding says why; no node was read, so no summary.
			for _, f := range part.Findings {
				finding(t, 0, f, subject(f), wide)
			}
			continue
		}
		findingsText(t, part, wide)
	}
	t.blank()
	what := "clusters"
	if len(r.Clusters) == 1 {
		what = "cluster"
	}
	line := fmt.Sprintf("%d %s", len(r.Clusters), what)
	if unreachable > 0 {
		line += ", " + t.st.Critical.Style.Render(fmt.Sprintf("%d unreachable", unreachable))
	}
	t.line(line + ":")
	summary(t, r.Summary, r.NodeClaims, r.Findings)
}
