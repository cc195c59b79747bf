package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// TestEC2SimAnswersLikeMoto reads one varied cluster twice, first with EC2 served by moto and
// then by an ec2sim.Server holding what the first read saved, and expects the same snapshot,
// the same report and the same EC2 requests, action by action.
func TestEC2SimAnswersLikeMoto(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	buildSimParityCluster(w)
	dir := t.TempDir()

	before := motoRequests(t)
	fileA := filepath.Join(dir, "moto.json")
	fromMoto := karpnet(t, runOpts{}, "check", "-o", "json", "--save-snapshot", fileA)
	viaMoto := deltaRequests(before, motoRequests(t))
	if fromMoto.code != 0 && fromMoto.code != 1 {
		wantCode(t, fromMoto, 1)
	}
	a := readSnapshotFile(t, fileA)
	if len(a.Gaps) > 0 {
		t.Fatalf("reading from moto left gaps, so there is nothing whole to compare: %+v", a.Gaps)
	}

	sim := ec2sim.New()
	sim.AddSnapshot(a)
	fileB := filepath.Join(dir, "ec2sim.json")
	fromSim := karpnet(t, runOpts{env: []string{"AWS_ENDPOINT_URL_EC2=" + sim.Start(t)}},
		"check", "-o", "json", "--save-snapshot", fileB)
	if fromSim.code != fromMoto.code {
		t.Errorf("exit code: got %d from ec2sim, want %d as from moto\nstderr:\n%s", fromSim.code, fromMoto.code, fromSim.stderr)
	}
	b := readSnapshotFile(t, fileB)

	if diff := cmp.Diff(withoutTaken(a), withoutTaken(b)); diff != "" {
		t.Errorf("snapshot read from ec2sim differs from the one read from moto (-moto +ec2sim):\n%s", diff)
	}
	if diff := cmp.Diff(reportWithoutTaken(t, fromMoto), reportWithoutTaken(t, fromSim)); diff != "" {
		t.Errorf("report from ec2sim differs from the one from moto (-moto +ec2sim):\n%s", diff)
	}
	viaSim := map[string]int{}
	for _, r := range sim.Requests() {
		viaSim[r.Action] = sim.Count(r.Action)
	}
	t.Logf("EC2 requests per action: moto %v, ec2sim %v", viaMoto, viaSim)
	if diff := cmp.Diff(viaMoto, viaSim); diff != "" {
		t.Errorf("EC2 requests per action differ (-moto +ec2sim):\n%s", diff)
	}
	if diff := cmp.Diff(simParityFeatures(), features(*b)); diff != "" {
		t.Errorf("the cluster read from ec2sim lacks what the comparison is meant to cover (-want +got):\n%s", diff)
	}
}

// buildSimParityCluster makes a cluster over three zones with one node of each networking shape
// karpnet reads: secondary addresses on two interfaces, /28 prefixes, a trunk interface, EFA
// and efa-only interfaces in a cluster placement group, a partition placement group, classes
// selecting groups by name and by ID (one of them gone), a node whose instance and type EC2
// does not know, and the way out of the VPC (buildWayOut: internet gateway and NAT routes,
// an endpoint of each type, a custom network ACL beside the default one).
func buildSimParityCluster(w *world) {
	t, ctx := w.t, w.t.Context()
	const dom = ".us-west-2.compute.internal"
	zones := []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	var subnets []subnetRef
	for i, zone := range zones {
		subnets = append(subnets, subnetRef{w.subnet(fmt.Sprintf("10.0.%d.0/20", 16*i), zone), zone})
	}
	a, b, c := subnets[0], subnets[1], subnets[2]
	cluster, nodes := w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)
	sgs := []string{cluster, nodes}
	if _, err := w.ec2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{
		GroupId: aws.String(nodes), IpPermissions: []ec2types.IpPermission{{
			IpProtocol: aws.String("tcp"), FromPort: aws.Int32(443), ToPort: aws.Int32(443),
			IpRanges:   []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/16")}},
			Ipv6Ranges: []ec2types.Ipv6Range{{CidrIpv6: aws.String("2600:1f14::/56")}},
		}},
	}); !authorized(err) {
		t.Fatalf("allowing HTTPS into e2e-nodes: %v", err)
	}
	training := w.placementGroup("training", ec2types.PlacementStrategyCluster, 0)
	kafka := w.placementGroup("kafka", ec2types.PlacementStrategyPartition, 3)
	web := w.placementGroup("web", ec2types.PlacementStrategySpread, 0)
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1", "ENABLE_POD_ENI": "true"})
	buildWayOut(w, a.id, b.id, c.id, nodes)

	byName := func(name string) map[string]any {
		return map[string]any{"placementGroupSelector": map[string]any{"name": name}}
	}
	byID := func(id string) map[string]any {
		return map[string]any{"placementGroupSelector": map[string]any{"id": id}}
	}
	w.nodeClass(nodeClassSpec{name: "default", subnets: subnets, sgs: sgs})
	w.nodePool("general", "v1", "default", zones, 0)
	efa := byName("training")
	efa["networkInterfaces"] = []any{
		map[string]any{"networkCardIndex": int64(0), "deviceIndex": int64(0), "interfaceType": "efa"},
		map[string]any{"networkCardIndex": int64(1), "deviceIndex": int64(0), "interfaceType": "efa-only"},
		map[string]any{"networkCardIndex": int64(2), "deviceIndex": int64(0), "interfaceType": "efa-only"},
	}
	w.nodeClass(nodeClassSpec{name: "efa", subnets: []subnetRef{a}, sgs: sgs, spec: efa})
	w.nodePool("training", "v1", "efa", zones[:1], 0)
	w.nodeClass(nodeClassSpec{name: "kafka", subnets: []subnetRef{a}, sgs: sgs, spec: byName("kafka")})
	w.nodePool("kafka", "v1", "kafka", zones[:1], 0)
	w.nodeClass(nodeClassSpec{name: "web", subnets: []subnetRef{a, b}, sgs: sgs, spec: byID(web)})
	w.nodePool("web", "v1", "web", zones[:2], 0)
	// A class still selecting a placement group that was deleted.
	w.nodeClass(nodeClassSpec{name: "retired", subnets: []subnetRef{a}, sgs: sgs, spec: byID("pg-0123456789abcdef0")})
	w.nodePool("retired", "v1", "retired", zones[:1], 0)

	// Secondary addresses on the primary interface and on a second one, as ipamd leaves them.
	addrs := w.launchWithAddresses("c5.xlarge", a.id, "10.0.0.10", sgs, 3, 4)
	w.karpenterNode("ip-10-0-0-10"+dom, "general", "default", "v1", addrs, 58, nil)
	w.tag(aws.ToString(addrs.InstanceId), "team", "platform")
	w.tag(a.id, "karpenter.sh/discovery", "e2e")
	w.tag(nodes, "karpenter.sh/discovery", "e2e")
	// Two /28 prefixes on a secondary interface.
	prefixes := w.cniLaunch(b.id, "10.0.16.10", sgs, cniNIC{subnet: b.id, device: 1, prefixes: 2})
	w.karpenterNode("ip-10-0-16-10"+dom, "general", "default", "v1", prefixes, 110, nil)
	// Security groups for pods: a trunk interface.
	trunk := w.cniLaunch(c.id, "10.0.32.10", sgs, cniNIC{subnet: c.id, device: 1})
	w.cniAttachTrunk(trunk, c.id, sgs)
	w.karpenterNode("ip-10-0-32-10"+dom, "general", "default", "v1", trunk, 29, func(s *nodeSpec) {
		s.labels = map[string]string{"vpc.amazonaws.com/has-trunk-attached": "true"}
		s.extra = corev1.ResourceList{"vpc.amazonaws.com/pod-eni": resource.MustParse("9")}
	})
	// EFA on card 0 and efa-only on two more cards, in the cluster group.
	p4d := w.launch(launchSpec{typ: "p4d.24xlarge", subnet: a.id, sgs: sgs, group: "training",
		nics: []nic{{0, 0, "efa"}, {1, 0, "efa-only"}, {2, 0, "efa-only"}}})
	w.karpenterNode(nodeNameOf(p4d), "training", "efa", "v1", p4d, 737, func(s *nodeSpec) {
		s.efa = 3
		s.labels = map[string]string{"karpenter.k8s.aws/placement-group-id": training}
	})
	// Partition 2 of the partition group.
	broker := w.launch(launchSpec{typ: "m5.large", subnet: a.id, sgs: sgs, group: "kafka", part: 2})
	w.karpenterNode(nodeNameOf(broker), "kafka", "kafka", "v1", broker, 29, func(s *nodeSpec) {
		s.labels = map[string]string{"karpenter.k8s.aws/placement-group-id": kafka,
			"karpenter.k8s.aws/placement-group-partition": "2"}
	})
	// A managed node whose instance is gone, labelled with a type EC2 does not offer.
	w.node(nodeSpec{name: "ip-10-0-0-99" + dom, providerID: "aws:///us-west-2a/i-0fedcba9876543210",
		zone: "us-west-2a", typ: "q9.large", internalIP: "10.0.0.99", pods: 29,
		labels: map[string]string{"eks.amazonaws.com/nodegroup": "ng-1"}})
}

// launchWithAddresses launches one instance of typ whose primary interface, at ip, holds
// secondary[0] secondary addresses, and whose device i holds secondary[i], all in subnet.
func (w *world) launchWithAddresses(typ, subnet, ip string, sgs []string, secondary ...int32) ec2types.Instance {
	w.t.Helper()
	var nics []ec2types.InstanceNetworkInterfaceSpecification
	for i, n := range secondary {
		spec := ec2types.InstanceNetworkInterfaceSpecification{DeviceIndex: aws.Int32(int32(i)),
			SubnetId: aws.String(subnet), Groups: sgs, SecondaryPrivateIpAddressCount: aws.Int32(n)}
		if i == 0 {
			spec.PrivateIpAddress = aws.String(ip)
		}
		nics = append(nics, spec)
	}
	out, err := w.ec2.RunInstances(w.t.Context(), &ec2.RunInstancesInput{
		ImageId: aws.String("ami-0123456789abcdef0"), InstanceType: ec2types.InstanceType(typ),
		MinCount: aws.Int32(1), MaxCount: aws.Int32(1), NetworkInterfaces: nics,
	})
	if err != nil {
		w.t.Fatalf("launching a %s with secondary addresses %v: %v", typ, secondary, err)
	}
	return w.describe(aws.ToString(out.Instances[0].InstanceId))
}

// tag tags one EC2 resource.
func (w *world) tag(id, key, value string) {
	w.t.Helper()
	if _, err := w.ec2.CreateTags(w.t.Context(), &ec2.CreateTagsInput{
		Resources: []string{id}, Tags: []ec2types.Tag{{Key: aws.String(key), Value: aws.String(value)}},
	}); err != nil {
		w.t.Fatalf("tagging %s: %v", id, err)
	}
}

func motoRequests(t *testing.T) map[string]int {
	t.Helper()
	counts, err := env.moto.Requests(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

// deltaRequests returns the actions whose count grew from before to after, with how much.
func deltaRequests(before, after map[string]int) map[string]int {
	out := map[string]int{}
	for action, n := range after {
		if d := n - before[action]; d != 0 {
			out[action] = d
		}
	}
	return out
}

func readSnapshotFile(t *testing.T, file string) *snapshot.Snapshot {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := snapshot.Read(f)
	if err != nil {
		t.Fatalf("reading snapshot %s: %v", file, err)
	}
	return s
}

// withoutTaken returns a copy of s without its collection time, the one field two reads of
// the same cluster differ in.
func withoutTaken(s *snapshot.Snapshot) snapshot.Snapshot {
	out := *s
	out.Taken = time.Time{}
	return out
}

// reportWithoutTaken decodes a -o json report as generic JSON, without its collection time
// and with the ages measured from it ("created 1s ago" of a node the test just made) blanked:
// two reads a second apart differ in nothing else.
func reportWithoutTaken(t *testing.T, r result) map[string]any {
	t.Helper()
	var rep map[string]any
	if err := json.Unmarshal([]byte(ages.ReplaceAllString(r.stdout, "created AGE ago")), &rep); err != nil {
		t.Fatalf("decoding -o json: %v\n%s", err, r.stdout)
	}
	delete(rep, "taken")
	return rep
}

// ages matches the age a lifecycle reason gives a node, e.g. "created 45s ago".
var ages = regexp.MustCompile(`created [0-9a-z]+ ago`)

// simParityFeatures are the shapes buildSimParityCluster puts in EC2, as features names them.
func simParityFeatures() []string {
	return []string{
		"acl:custom", "acl:default", "acl:ports",
		"endpoint:Gateway", "endpoint:GatewayLoadBalancer", "endpoint:Interface",
		"eni:efa", "eni:efa-only", "eni:interface", "eni:trunk",
		"instance:multi-eni", "instance:partition", "instance:tags",
		"ipv4-prefixes", "nat:available", "placement:cluster", "placement:partition", "placement:spread",
		"route-table:main", "route-table:subnet", "route:igw", "route:local", "route:nat", "route:prefix-list", "route:vpce",
		"rule:cidr", "rule:group", "rule:ipv6", "rule:ports", "secondary-ips", "subnet:tags",
		"subnets:3", "type:efa", "type:network-cards",
	}
}

// features names the networking shapes s holds, sorted, so a comparison of two snapshots
// cannot pass on an empty or plain cluster.
func features(s snapshot.Snapshot) []string {
	set := map[string]bool{fmt.Sprintf("subnets:%d", len(s.Subnets)): true}
	for _, in := range s.Instances {
		set["instance:multi-eni"] = set["instance:multi-eni"] || len(in.ENIs) > 1
		set["instance:partition"] = set["instance:partition"] || in.Placement.PartitionNumber > 0
		set["instance:tags"] = set["instance:tags"] || len(in.Tags) > 0
		for _, e := range in.ENIs {
			set["eni:"+e.InterfaceType] = true
			set["secondary-ips"] = set["secondary-ips"] || len(e.PrivateIPs) > 1
			set["ipv4-prefixes"] = set["ipv4-prefixes"] || len(e.IPv4Prefixes) > 0
		}
	}
	for _, sn := range s.Subnets {
		set["subnet:tags"] = set["subnet:tags"] || len(sn.Tags) > 0
	}
	for _, g := range s.SecurityGroups {
		for _, r := range slices.Concat(g.Inbound, g.Outbound) {
			set["rule:cidr"] = set["rule:cidr"] || len(r.CIDRs) > 0
			set["rule:ipv6"] = set["rule:ipv6"] || len(r.IPv6CIDRs) > 0
			set["rule:group"] = set["rule:group"] || len(r.GroupIDs) > 0
			set["rule:ports"] = set["rule:ports"] || r.FromPort > 0
		}
	}
	for _, g := range s.PlacementGroups {
		set["placement:"+g.Strategy] = true
	}
	for _, rt := range s.RouteTables {
		set["route-table:main"] = set["route-table:main"] || rt.Main
		set["route-table:subnet"] = set["route-table:subnet"] || len(rt.SubnetIDs) > 0
		for _, r := range rt.Routes {
			prefix, _, _ := strings.Cut(r.Target, "-")
			set["route:"+prefix] = true
			set["route:prefix-list"] = set["route:prefix-list"] || r.DestinationPrefixList != ""
		}
	}
	for _, g := range s.NATGateways {
		set["nat:"+g.State] = true
	}
	for _, e := range s.VPCEndpoints {
		set["endpoint:"+e.Type] = true
	}
	for _, a := range s.NetworkACLs {
		set["acl:default"] = set["acl:default"] || a.Default
		set["acl:custom"] = set["acl:custom"] || !a.Default
		for _, e := range a.Entries {
			set["acl:ports"] = set["acl:ports"] || e.FromPort > 0
		}
	}
	for _, it := range s.InstanceTypes {
		set["type:efa"] = set["type:efa"] || it.MaxEFAInterfaces > 0
		set["type:network-cards"] = set["type:network-cards"] || len(it.NetworkCards) > 1
	}
	var out []string
	for k, v := range set {
		if v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
