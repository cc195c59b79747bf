package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// consistencyWorld builds TestConsistency's cluster: NodePools over zones their class's
// subnets do not reach, a class in another VPC's subnet, a multi-interface class asking for
// public addresses and a class whose only group admits no node-to-node traffic.
func consistencyWorld(t *testing.T) {
	t.Helper()
	w := newWorld(t, harness.CRDsV1)
	ctx := t.Context()
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	b := subnetRef{w.subnet("10.0.16.0/20", "us-west-2b"), "us-west-2b"}
	cluster, nodes := w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)
	sgs := []string{cluster, nodes}

	// A peered VPC whose subnet carries the same discovery tag.
	peer, err := w.ec2.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("172.16.0.0/16")})
	if err != nil {
		t.Fatalf("creating the peered VPC: %v", err)
	}
	peered := subnetRef{w.createSubnet(aws.ToString(peer.Vpc.VpcId), "172.16.0.0/20", "us-west-2a"), "us-west-2a"}
	w.dnsHostnames(aws.ToString(peer.Vpc.VpcId))
	w.natWayOut(aws.ToString(peer.Vpc.VpcId), "172.16.255.240/28")

	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a, b}, sgs: sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2a", "us-west-2b", "us-west-2c"}, 0)
	w.nodeClass(nodeClassSpec{name: "gpu", subnets: []subnetRef{a}, sgs: sgs})
	w.nodePool("gpu", "v1", "gpu", []string{"us-west-2c"}, 0)
	w.nodeClass(nodeClassSpec{name: "legacy", subnets: []subnetRef{a, peered}, sgs: sgs})
	w.nodePool("legacy", "v1", "legacy", []string{"us-west-2a"}, 0)
	w.nodeClass(nodeClassSpec{name: "training", subnets: []subnetRef{a}, sgs: sgs, spec: map[string]any{
		"associatePublicIPAddress": true,
		"networkInterfaces": []any{
			map[string]any{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"},
			map[string]any{"networkCardIndex": 0, "deviceIndex": 1, "interfaceType": "efa-only"},
		},
	}})
	w.nodePool("training", "v1", "training", []string{"us-west-2a"}, 0)
	w.nodeClass(nodeClassSpec{name: "isolated", subnets: []subnetRef{a}, sgs: []string{nodes}})
	w.nodePool("isolated", "v1", "isolated", []string{"us-west-2a"}, 0)

	const dom = ".us-west-2.compute.internal"
	healthy := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: sgs, ip: "10.0.0.10"})
	w.karpenterNode("ip-10-0-0-10"+dom, "general", "default", "v1", healthy, 29, nil)
	isolated := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: []string{nodes}, ip: "10.0.0.11"})
	w.karpenterNode("ip-10-0-0-11"+dom, "isolated", "isolated", "v1", isolated, 29, nil)
}

// TestConsistency builds a cluster where NodePools, EC2NodeClasses and security groups
// disagree the way they do after hand edits: a NodePool widened to a zone without subnets,
// one pinned to a zone its class has no subnet in, a discovery tag shared with a peered VPC's
// subnet, a public-IP class given EFA interfaces, and a class selecting only a group without
// the node-to-node rule. A healthy node on the default class stays clean.
func TestConsistency(t *testing.T) {
	consistencyWorld(t)
	const dom = ".us-west-2.compute.internal"

	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 1)
	want := []finding{
		{"nodeclass-public-ip-multi-eni", "critical", "", "ec2nodeclass/training"},
		{"nodeclass-subnet-vpc-mismatch", "critical", "", "ec2nodeclass/legacy"},
		{"nodepool-zone-unreachable", "warning", "", "nodepool/general"},
		{"nodepool-zone-unreachable", "critical", "", "nodepool/gpu"},
		{"security-group-node-to-node-blocked", "warning", "ip-10-0-0-11" + dom, "ec2nodeclass/isolated"},
	}
	rep := decode(t, r)
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, f := range rep.Findings {
		if f.Message == "" || f.Remedy == "" {
			t.Errorf("finding %s on %s%s has no message or remedy", f.ID, f.Node, f.Resource)
		}
	}
}
