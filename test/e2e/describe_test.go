package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// awsIDs are the IDs EC2 generates; goldens name them by order of appearance instead.
var awsIDs = regexp.MustCompile(`\b(i|eni|subnet|sg|vpc|pg|rtb|nat|acl|vpce|igw)-[0-9a-f]{8,17}\b`)

// stableIDs replaces every EC2 ID in s with KIND-000N (as wide as the ID, so columns stay
// aligned), N counting distinct IDs of that kind in order of first appearance, so output from a
// fresh moto compares with a golden file.
func stableIDs(s string) string {
	seen := map[string]string{}
	count := map[string]int{}
	return awsIDs.ReplaceAllStringFunc(s, func(id string) string {
		if v, ok := seen[id]; ok {
			return v
		}
		kind := awsIDs.FindStringSubmatch(id)[1]
		count[kind]++
		seen[id] = fmt.Sprintf("%s-%0*d", kind, len(id)-len(kind)-1, count[kind])
		return seen[id]
	})
}

// TestDescribeNodeGolden describes a node of a one-node cluster. It has one security group:
// moto's IDs are random, so with two the sheet's order (sorted by ID) would change run to run.
func TestDescribeNodeGolden(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	b := subnetRef{w.subnet("10.0.16.0/20", "us-west-2b"), "us-west-2b"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{b}, sgs: sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2b"}, 0)
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1"})
	in := w.instance(instanceSpec{typ: "m5.large", subnet: b.id, sgs: sgs, ip: "10.0.16.10"})
	const name = "ip-10-0-16-10.us-west-2.compute.internal"
	w.karpenterNode(name, "general", "default", "v1", in, 29, nil)

	r := karpnet(t, runOpts{}, "describe", "node", name)
	wantCode(t, r, 0)
	got := stableIDs(r.stdout)
	testutil.Assert(t, filepath.Join("testdata", "describe-node-healthy.golden"), got)
}
