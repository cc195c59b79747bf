package tui

import (
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// claimPrefix starts the name a NodeClaim without a Node has in the nodes table, and its key
// in data.byName, so it never shares one with a node.
const claimPrefix = "nodeclaim/"

// newClaimRow computes the nodes-table row of NodeClaim i of the report, which has no Node: its
// status in the level column, drawn with the glyph of its worst finding (or, without one, of
// a node starting up or going away), nodeclaim/NAME in the name column, and its instance's type,
// zone, subnet and IP when it has one.
func newClaimRow(i int, c diagnose.NodeClaimReport) row {
	look := claimLook(c)
	r := row{node: -1, claim: i, name: rowKey(c.Context, claimPrefix+c.Name), level: c.Status, look: look, findings: len(c.Findings)}
	if r.level == "" {
		r.level = "nodeclaim"
	}
	r.order = orderOf(look)
	r.cells = [numCols]string{
		colLevel: r.level, colCluster: orDash(c.Context), colName: claimPrefix + c.Name, colPool: orDash(c.NodePool), colType: none, colZone: none,
		colSubnet: none, colIP: none, colENIs: none, colPods: none, colEFA: none, colPG: none,
		colFindings: strconv.Itoa(len(c.Findings)),
	}
	hay := []string{claimPrefix + c.Name, "nodeclaim", c.Status, c.NodePool, c.NodeClass, c.Context}
	zone, subnet := "", ""
	if in := c.Instance; in != nil {
		zone, subnet = in.Zone, in.SubnetID
		r.cells[colType], r.cells[colZone] = orDash(in.Type), orDash(in.Zone)
		r.cells[colSubnet], r.cells[colIP] = orDash(in.SubnetID), orDash(in.PrivateIP)
		hay = append(hay, in.ID, in.Type, in.Zone, in.SubnetID, in.PrivateIP)
	}
	for _, f := range c.Findings {
		hay = append(hay, f.ID)
	}
	r.hay = strings.ToLower(strings.Join(hay, "\n"))
	class := c.NodeClass
	if class != "" && c.NodeClassKind != "" {
		class = strings.ToLower(c.NodeClassKind) + "/" + class
	}
	r.groups = [numGroups]string{
		groupPool: orNone(c.NodePool), groupClass: orNone(class), groupZone: orNone(zone), groupSubnet: orNone(subnet),
	}
	return r
}

// claimLook is the level whose glyph and colour a NodeClaim's row takes: its worst finding,
// else initialising while it launches or registers, terminating once it or its Node is going.
func claimLook(c diagnose.NodeClaimReport) string {
	if w, ok := diagnose.Worst(c.Findings); ok {
		return w.String()
	}
	if c.Status == diagnose.ClaimDeleting || c.Status == diagnose.ClaimNodeDeleted {
		return style.LevelTerminating
	}
	return style.LevelInitialising
}

// claimBadgeWidth is the width of the widest level badge of claim rows and of node rows that
// show an inherited level.
func claimBadgeWidth(rows []row, st *style.Styles) int {
	w := 0
	for _, r := range rows {
		if r.look != "" {
			w = max(w, width(st.Level(r.look).Glyph+" "+r.cells[colLevel]))
		}
	}
	return w
}

// claim finds a NodeClaim without a Node of the report by its row name, nodeclaim/NAME.
func (d *data) claim(name string) (diagnose.NodeClaimReport, bool) {
	i, ok := d.byName[name]
	if !ok || d.rows[i].claim < 0 {
		return diagnose.NodeClaimReport{}, false
	}
	return d.report.NodeClaims[d.rows[i].claim], true
}
