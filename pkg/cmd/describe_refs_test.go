package cmd

import (
	"strings"
	"testing"
)

// TestDescribeReadsReferences: a subject written as a sheet's "See also" or a finding's
// subjects name it (KIND/NAME, the kind's plural or alias) describes the same subject as its
// bare name; a reference to another kind is not taken for one of this kind.
func TestDescribeReadsReferences(t *testing.T) {
	tests := []struct {
		name       string
		args, bare []string
	}{
		{name: "nodepool/NAME", args: []string{"nodepool", "nodepool/batch"}, bare: []string{"nodepool", "batch"}},
		{name: "nodepools/NAME", args: []string{"nodepool", "NodePools/batch"}, bare: []string{"nodepool", "batch"}},
		{name: "subnet/ID", args: []string{"subnet", "subnet/" + demoNoWayOutSubnet}, bare: []string{"subnet", demoNoWayOutSubnet}},
		{name: "pg/NAME", args: []string{"placementgroup", "pg/" + demoPlacementGroup}, bare: []string{"placementgroup", demoPlacementGroup}},
		{name: "eni/ID", args: []string{"eni", "eni/eni-0239ee3152f11eb73"}, bare: []string{"eni", "eni-0239ee3152f11eb73"}},
		{name: "ec2nodeclasses/NAME", args: []string{"nodeclass", "ec2nodeclasses/staging"}, bare: []string{"ec2nodeclass", "staging"}},
		{name: "nodeclass/NAME", args: []string{"nodeclass", "nodeclass/web"}, bare: []string{"nodeclass", "web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := run(t, append([]string{"demo", "describe"}, tt.bare...)...)
			wantCode(t, want, ExitOK)
			got := run(t, append([]string{"demo", "describe"}, tt.args...)...)
			wantCode(t, got, ExitOK)
			if got.stdout != want.stdout {
				t.Errorf("describe %s: got\n%s\nwant the sheet of describe %s", strings.Join(tt.args, " "), got.stdout, strings.Join(tt.bare, " "))
			}
		})
	}
	r := run(t, "demo", "describe", "nodepool", "subnet/"+demoNoWayOutSubnet)
	wantCode(t, r, ExitUsage)
}

// TestDescribeReferenceOfAnotherKind: a reference to a subject of another kind says which kind
// it names and how to describe it; a class reference of the other class kind suggests the class
// that exists.
func TestDescribeReferenceOfAnotherKind(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"nodeclass", "nodeclass/default"}, `nodeclass "nodeclass/default" not found: did you mean ec2nodeclass/default?`},
		{[]string{"nodeclass", "ec2nodeclass/web"}, `nodeclass "ec2nodeclass/web" not found: did you mean nodeclass/web?`},
		{[]string{"nodepool", "ec2nodeclass/default"}, "ec2nodeclass/default names an EC2NodeClass: run kubectl karpnet demo describe nodeclass default"},
		{[]string{"subnet", "node/" + demoNode}, "node/" + demoNode + " names a node: run kubectl karpnet demo describe node " + demoNode},
		{[]string{"subnet", "instance/i-0abc"}, "instance/i-0abc names an instance, which has no sheet of its own: kubectl karpnet demo check -o json"},
	} {
		r := run(t, append([]string{"demo", "describe"}, tt.args...)...)
		wantCode(t, r, ExitUsage)
		wantOneErrorLine(t, r, tt.want)
	}
}
