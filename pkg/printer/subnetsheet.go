package printer

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// barCells is how many cells the free-address bar of a subnet sheet takes.
const barCells = 20

// PrintSubnets writes the `describe subnet` output of sheets to w in format f: the text sheets
// (SubnetSheet at Width), or as JSON or YAML the one sheet, or a List of them. st colours the
// text; nil means no colour.
func PrintSubnets(w io.Writer, sheets []sheet.SubnetSheet, f Format, st *style.Styles) error {
	return printSheets(w, sheets, f, st, "subnet sheets", subnetSheet)
}

// SubnetSheet returns the sheet of sh as text whose lines fit width columns (at least 40; zero
// or less means Width). Strings are escaped and cut as PrintReport does. st colours the text;
// nil means no colour.
func SubnetSheet(sh sheet.SubnetSheet, width int, st *style.Styles) string {
	return sheetsText([]sheet.SubnetSheet{sh}, width, true, st, subnetSheet)
}

func subnetSheet(t *text, sh sheet.SubnetSheet) {
	subjectTitle(t, "subnet/"+sh.ID, sh.Findings)
	t.header("Subnet")
	zone := orUnknown(sh.Zone)
	if sh.ZoneID != "" {
		zone += " (" + sh.ZoneID + ")"
	}
	cidrs := orUnknown(sh.CIDR)
	if len(sh.IPv6CIDRs) > 0 {
		cidrs += ", " + strings.Join(sh.IPv6CIDRs, ", ")
	}
	t.kvs(indent, []kv{
		{"ID", sh.ID},
		{"VPC", orUnknown(sh.VpcID)},
		{"Zone", zone},
		{"CIDR", cidrs},
		{"Free IPs", freeIPs(sh.AvailableIPs, sh.UsableIPs)},
		{"Public IPv4 at launch", yesNo(sh.MapPublicIPOnLaunch)},
	})
	t.header("Selected by")
	if len(sh.SelectedBy) == 0 {
		t.para(indent, "nothing karpnet read: no class's status.subnets, ENIConfig or subnet discovery tag names it")
	}
	for _, s := range sh.SelectedBy {
		t.hanging(indent, t.st.Strong.Render(s.Kind+" "+s.Name)+"  ", s.Via)
	}
	subnetAddresses(t, sh.CIDR, sh.Addresses)
	blockMap(t, sh.CIDR, sh.Blocks)
	membersSection(t, "Nodes and NodeClaims in it", sh.Members, "none: no node's or NodeClaim's instance is in it", false)
	subnetENIs(t, sh.ENIs)
	netPath(t, sh.WayOut)
	subjectFindings(t, "subnet/"+sh.ID, sh.Findings)
	references(t, sh.References())
}

// freeIPs renders "200 of 251 usable (79% free) ▕████░░░░▏", the bar filled for the addresses
// in use (a free cell for each whole twentieth free); just the count when the usable total is not known.
func freeIPs(free int32, usable int64) string {
	if usable <= 0 {
		return strconv.Itoa(int(free)) + " (the CIDR's size is not known)"
	}
	pct := strconv.FormatInt(int64(free)*100/usable, 10) + "%"
	if free > 0 && int64(free)*100 < usable {
		pct = "<1%"
	}
	freeCells := min(max(int64(free)*barCells/usable, 0), barCells)
	bar := "▕" + strings.Repeat("█", barCells-int(freeCells)) + strings.Repeat("░", int(freeCells)) + "▏"
	return strconv.Itoa(int(free)) + " of " + strconv.FormatInt(usable, 10) + " usable (" + pct + " free) " + bar
}

// subnetENIs writes the nodes' interfaces in the subnet other than their primary ones.
func subnetENIs(t *text, list []sheet.SubnetENI) {
	t.header("Other ENIs in it")
	if len(list) == 0 {
		t.para(indent, "none")
		return
	}
	for _, e := range list {
		t.hanging(indent, t.st.Strong.Render(e.ID)+"  ", fmt.Sprintf("node/%s, %s on card %d device %d, %d IPs, %d prefixes",
			e.Node, orUnknown(e.InterfaceType), e.NetworkCardIndex, e.DeviceIndex, e.PrivateIPs, e.IPv4Prefixes))
	}
}

// addressHolders names each part of a subnet's address accounting.
var addressHolders = map[string]string{
	sheet.AddressesReserved:            "reserved by AWS",
	sheet.AddressesFree:                "free (EC2's available count)",
	sheet.AddressesNodePrimaryIPs:      "nodes' primary ENIs: IPs",
	sheet.AddressesNodePrimaryPrefixes: "nodes' primary ENIs: /28 prefixes",
	sheet.AddressesNodeOtherIPs:        "nodes' other ENIs (pods): IPs",
	sheet.AddressesNodeOtherPrefixes:   "nodes' other ENIs (pods): /28 prefixes",
	sheet.AddressesClaimIPs:            "NodeClaims' instances: IPs",
	sheet.AddressesClaimPrefixes:       "NodeClaims' instances: /28 prefixes",
	sheet.AddressesOtherIPs:            "other interfaces: IPs",
	sheet.AddressesOtherPrefixes:       "other interfaces: /28 prefixes",
	sheet.AddressesNotRead:             "other interfaces karpnet does not read",
}

// subnetAddresses writes the accounting of every address of the subnet's CIDR, whose parts add
// up to its size.
func subnetAddresses(t *text, cidr string, a *sheet.SubnetAddresses) {
	if a == nil {
		return
	}
	t.header(fmt.Sprintf("Addresses (%s: %d)", cidr, a.Size))
	wide := 0
	for _, p := range a.Parts {
		wide = max(wide, len(addressHolders[p.What]))
	}
	note := ""
	for _, p := range a.Parts {
		line := fmt.Sprintf("%-*s  %7d", wide, addressHolders[p.What], p.Addresses)
		if p.Interfaces > 0 {
			eni := "ENIs"
			if p.Interfaces == 1 {
				eni = "ENI"
			}
			line += fmt.Sprintf("  on %d %s", p.Interfaces, eni)
		}
		switch {
		case p.What == sheet.AddressesNotRead && p.Addresses > 0:
			note = "Other interfaces: other instances, load balancers, VPC endpoints, NAT gateways, Lambda, ENIs left behind."
		case p.What == sheet.AddressesNotRead && p.Addresses < 0:
			note = "More is counted than the CIDR holds: EC2's free count and the instances were read moments apart."
		}
		t.para(indent, line)
	}
	if note != "" {
		t.para(indent, t.st.Dim.Render(note))
	}
}
