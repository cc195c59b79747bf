package printer

import (
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// TestENITableKeepsItsColumnsAt80: on a sheet 79 columns wide (an 80-column terminal) the ENI
// table stays a table: its headings on one line, each ENI's row on one line with its subnet
// whole and under its heading, with the widest values EC2 gives (an ENI ID, a subnet ID, TYPE interface).
func TestENITableKeepsItsColumnsAt80(t *testing.T) {
	n := diagnose.NodeReport{Identity: diagnose.Identity{Node: "ip-10-0-50-20.us-west-2.compute.internal"}}
	for i, sub := range []string{"subnet-0714a16d895e97a48", "subnet-0ffd6a39ba6f48905"} {
		n.ENIs = append(n.ENIs, diagnose.ENIReport{
			ID: "eni-02170e279c74b1c6" + string(rune('a'+i)), InterfaceType: "interface", SubnetID: sub, DeviceIndex: int32(i),
			PrivateIPs: []string{"10.0.50.20"}, IPv4Prefixes: []string{"10.0.50.32/28", "10.0.50.48/28"}, SecurityGroups: []string{"sg-0296b13d246378ce2"},
		})
	}
	for _, cols := range []int{79, 100} {
		sheet := NodeSheet(n, nil, cols, plainStyles())
		lines := strings.Split(sheet, "\n")
		at := -1
		for i, l := range lines {
			if strings.TrimSpace(l) == "ENIs" {
				at = i
			}
		}
		if at < 0 || at+3 >= len(lines) {
			t.Fatalf("%d columns: no ENIs section:\n%s", cols, sheet)
		}
		if f := strings.Fields(lines[at+1]); len(f) != 8 || f[0] != "CARD" || f[7] != "SGS" {
			t.Errorf("%d columns: the headings are not one line of 8: %q", cols, lines[at+1])
		}
		for _, l := range lines[at+2 : at+4] {
			if f := strings.Fields(l); len(f) != 8 || !strings.HasPrefix(f[4], "subnet-") || len(f[4]) != 24 || width(l) > cols {
				t.Errorf("%d columns: an ENI's row is not one line of 8 within the width: %q", cols, l)
			}
			if h, c := strings.Index(lines[at+1], "SUBNET"), strings.Index(l, "subnet-"); h != c {
				t.Errorf("%d columns: the subnet starts at %d, its heading at %d:\n%s\n%s", cols, c, h, lines[at+1], l)
			}
		}
	}
}
