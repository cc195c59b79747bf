package printer

import (
	"io"
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// PrintENIs writes the `describe eni` output of sheets to w in format f: the text sheets
// (ENISheet at Width), or as JSON or YAML the one sheet, or a List of them. st colours the
// text; nil means no colour.
func PrintENIs(w io.Writer, sheets []sheet.ENISheet, f Format, st *style.Styles) error {
	return printSheets(w, sheets, f, st, "ENI sheets", eniSheet)
}

// ENISheet returns the sheet of sh as text whose lines fit width columns (at least 40; zero or
// less means Width). Strings are escaped and cut as PrintReport does. st colours the text;
// nil means no colour.
func ENISheet(sh sheet.ENISheet, width int, st *style.Styles) string {
	return sheetsText([]sheet.ENISheet{sh}, width, true, st, eniSheet)
}

func eniSheet(t *text, sh sheet.ENISheet) {
	subjectTitle(t, "eni/"+sh.ID, sh.Findings)
	t.header("ENI")
	attached := "nothing"
	if sh.InstanceID != "" {
		attached = "instance " + sh.InstanceID
	}
	pairs := []kv{
		{"ID", sh.ID},
		{"Status", orUnknown(sh.Status)},
		{"Attached to", attached},
		{"Type", orUnknown(sh.InterfaceType)},
		{"Description", orUnknown(sh.Description)},
		{"Subnet", orUnknown(sh.SubnetID)},
		{"VPC", orUnknown(sh.VpcID)},
		{"Created by", orUnknown(sh.Creator)},
	}
	if sh.ForInstance != "" {
		pairs = append(pairs, kv{"For instance", sh.ForInstance})
	}
	if sh.Age != "" {
		pairs = append(pairs, kv{"Created", sh.Age + " ago"})
	}
	t.kvs(indent, pairs)
	t.header("Holds")
	holds := []kv{{"IPv4 addresses", listOrNone(sh.PrivateIPs)}, {"/28 prefixes", listOrNone(sh.IPv4Prefixes)}}
	if len(sh.IPv6Addresses) > 0 || len(sh.IPv6Prefixes) > 0 {
		holds = append(holds, kv{"IPv6 addresses", listOrNone(sh.IPv6Addresses)}, kv{"IPv6 prefixes", listOrNone(sh.IPv6Prefixes)})
	}
	t.kvs(indent, holds)
	t.header("Security groups it pins (" + strconv.Itoa(len(sh.SecurityGroups)) + ")")
	if len(sh.SecurityGroups) == 0 {
		t.para(indent, "none")
	}
	for _, g := range sh.SecurityGroups {
		t.hanging(indent, t.st.Strong.Render(g.ID)+"  ", orUnknown(g.Name))
	}
	subjectFindings(t, "eni/"+sh.ID, sh.Findings)
	references(t, sh.References())
}

// listOrNone joins a list with commas, or says none.
func listOrNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
