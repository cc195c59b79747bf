package kinds

import (
	"testing"
)

func TestLookupAndArg(t *testing.T) {
	tests := []struct {
		arg, kind, name string
	}{
		{"nodepool/default", NodePool, "default"},
		{"NodePools/default", NodePool, "default"},
		{"pg/train", PlacementGroup, "train"},
		{"ec2nodeclasses/default", EC2NodeClass, "default"},
		{"nodeclass/web", NodeClass, "web"},
		{"no/ip-10-0-1-1", Node, "ip-10-0-1-1"},
		{"daemonset/kube-system/aws-node", DaemonSet, "kube-system/aws-node"},
		{"default", "", "default"},
		{"team/a", "", "team/a"}, // not a kind: a name that holds a slash
	}
	for _, tt := range tests {
		k, name := Arg(tt.arg)
		if k.Name != tt.kind || name != tt.name {
			t.Errorf("Arg(%q) = %q, %q; want %q, %q", tt.arg, k.Name, name, tt.kind, tt.name)
		}
	}
}

func TestClasses(t *testing.T) {
	if got := SubjectOf(EC2NodeClass); got != NodeClass {
		t.Errorf("SubjectOf(ec2nodeclass) = %q, want nodeclass", got)
	}
	if got := SubjectOf("widget"); got != "widget" {
		t.Errorf("SubjectOf(widget) = %q, want it unchanged", got)
	}
	for _, tt := range []struct {
		object   string
		autoMode bool
		want     string
	}{
		{"EC2NodeClass", false, "ec2nodeclass/x"},
		{"", false, "ec2nodeclass/x"},
		{"NodeClass", false, "nodeclass/x"},
		{"", true, "nodeclass/x"},
	} {
		if got := ClassRef(tt.object, "x", tt.autoMode); got != tt.want {
			t.Errorf("ClassRef(%q, x, %v) = %q, want %q", tt.object, tt.autoMode, got, tt.want)
		}
	}
	if Class("EC2NodeClass") != EC2NodeClass || Class("NodeClass") != NodeClass || Class("NodePool") != "" {
		t.Error("Class does not map the two class kinds, and only them")
	}
}

// TestTableWordsAreUnique: no word names two kinds.
func TestTableWordsAreUnique(t *testing.T) {
	seen := map[string]string{}
	for _, k := range All() {
		for _, w := range append([]string{k.Name}, k.Words()...) {
			if other, ok := seen[w]; ok {
				t.Errorf("%q names %s and %s", w, other, k.Name)
			}
			seen[w] = k.Name
		}
		if k.Subject == "" || k.Object == "" || k.Plural == "" {
			t.Errorf("%s: every kind has a subject kind, an object name and a plural: %+v", k.Name, k)
		}
	}
}
