package printer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRemedyParts(t *testing.T) {
	for _, tt := range []struct {
		remedy string
		want   []remedyPart
	}{
		{"set spec.kubelet.maxPods of EC2NodeClass batch to at most 11", []remedyPart{{text: "set spec.kubelet.maxPods of EC2NodeClass batch to at most 11"}}},
		{"the instance is gone: delete the Node (kubectl delete node ip-10-0-1-5) and check the finalizer", []remedyPart{
			{text: "the instance is gone: delete the Node"}, {text: "kubectl delete node ip-10-0-1-5", cmd: true}, {text: "and check the finalizer"}}},
		{"point ENIConfig a at a larger pod subnet (kubectl edit eniconfig a; spec.subnet), or add a CIDR", []remedyPart{
			{text: "point ENIConfig a at a larger pod subnet"}, {text: "kubectl edit eniconfig a", cmd: true}, {text: "spec.subnet, or add a CIDR"}}},
		{"route it: `aws ec2 create-route --route-table-id rtb-1`; or add endpoints: `aws ec2 create-vpc-endpoint --a`; `aws ec2 create-vpc-endpoint --b`", []remedyPart{
			{text: "route it:"}, {text: "aws ec2 create-route --route-table-id rtb-1", cmd: true}, {text: "or add endpoints:"},
			{text: "aws ec2 create-vpc-endpoint --a", cmd: true}, {text: "aws ec2 create-vpc-endpoint --b", cmd: true}}},
		{"delete it: aws ec2 delete-network-interface --network-interface-id eni-1; aws-node sets X", []remedyPart{
			{text: "delete it:"}, {text: "aws ec2 delete-network-interface --network-interface-id eni-1", cmd: true}, {text: "aws-node sets X"}}},
		{"see aws/karpenter-provider-aws#8210 and the awscli", []remedyPart{{text: "see aws/karpenter-provider-aws#8210 and the awscli"}}},
	} {
		if diff := cmp.Diff(tt.want, remedyParts(tt.remedy), cmp.AllowUnexported(remedyPart{})); diff != "" {
			t.Errorf("remedyParts(%q) (-want +got):\n%s", tt.remedy, diff)
		}
	}
}

// TestRemedyCommandsOnTheirOwnLines: at any width a command is one line of its own, whole,
// so selecting the line copies it; the prose around it wraps.
func TestRemedyCommandsOnTheirOwnLines(t *testing.T) {
	const cmd = "aws ec2 create-route --route-table-id rtb-0340b8097e3fcd96c --destination-cidr-block 0.0.0.0/0 --nat-gateway-id nat-03ab0393441b6aa38"
	for _, w := range []int{40, 80, 200} {
		tx := &text{st: orPlain(nil), cols: w}
		tx.remedy(4, "remedy: ", "route the subnet's default traffic through a NAT gateway: `"+cmd+"`; or fix it otherwise")
		lines := strings.Split(strings.TrimSuffix(tx.b.String(), "\n"), "\n")
		found := false
		for _, l := range lines {
			if strings.TrimSpace(l) == cmd {
				found = true
			} else if width(l) > w {
				t.Errorf("at %d: prose line of %d columns: %q", w, width(l), l)
			}
		}
		if !found {
			t.Errorf("at %d: no line holds the whole command:\n%s", w, tx.b.String())
		}
	}
}
