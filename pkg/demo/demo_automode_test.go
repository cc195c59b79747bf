package demo_test

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The demo's EKS Auto Mode nodes: Auto Mode names them after their instances.
const (
	autoHealthy = "i-09b6fa2b0d0d83659" // c6a.large in us-west-2a, pod ENI in the zone's pod subnet
	autoNoPods  = "i-0aabd605ffdb17f34" // c6a.xlarge in us-west-2c, whose zone has no pod subnet
)

// TestAutoModeNodes checks the Auto Mode NodePool as a real cluster shows it: nodes named
// after their instances with the Auto Mode labels, NodeClaims and a NodePool pointing at the
// eks.amazonaws.com NodeClass, and capacity.pods as Auto Mode computes it from the type.
func TestAutoModeNodes(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	want := snapshot.NodeClassRef{Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass, Name: "web"}
	types := map[string]snapshot.InstanceType{}
	for _, it := range s.InstanceTypes {
		types[it.Name] = it
	}
	var got []string
	for _, n := range s.Nodes {
		if n.Labels[snapshot.LabelComputeType] != snapshot.ComputeTypeAuto {
			continue
		}
		got = append(got, n.Name)
		t.Run(n.Name, func(t *testing.T) {
			if id := n.Spec.ProviderID; id != "aws:///"+n.Labels[corev1.LabelTopologyZone]+"/"+n.Name {
				t.Errorf("providerID: got %s, want the zone and the node name, the instance ID", id)
			}
			labels := map[string]string{
				snapshot.LabelAutoNodeClass: "web", snapshot.LabelNodePool: "web", corev1.LabelHostname: n.Name,
				"app.kubernetes.io/managed-by": "eks", "karpenter.sh/capacity-type": "on-demand",
			}
			for k, v := range labels {
				if n.Labels[k] != v {
					t.Errorf("label %s: got %q, want %q", k, n.Labels[k], v)
				}
			}
			if v, ok := n.Labels[snapshot.LabelEC2NodeClass]; ok {
				t.Errorf("label %s: got %q, want none on an Auto Mode node", snapshot.LabelEC2NodeClass, v)
			}
			it := types[n.Labels[corev1.LabelInstanceTypeStable]]
			pods := n.Status.Capacity[corev1.ResourcePods]
			if wantPods := min(110, int64(it.DefaultCardENIs())*int64(it.IPv4PerENI-1)); it.Name == "" || pods.Value() != wantPods {
				t.Errorf("capacity.pods of %q: got %d, want %d", it.Name, pods.Value(), wantPods)
			}
		})
	}
	if diff := cmp.Diff([]string{autoHealthy, autoNoPods}, got); diff != "" {
		t.Errorf("Auto Mode nodes (-want +got):\n%s", diff)
	}
	for _, c := range s.NodeClaims {
		if c.NodePool() == "web" && c.NodeClassRef != want {
			t.Errorf("NodeClaim %s: got nodeClassRef %+v, want %+v", c.Name, c.NodeClassRef, want)
		}
	}
	for _, p := range s.NodePools {
		if p.Name == "web" && p.NodeClassRef != want {
			t.Errorf("NodePool web: got nodeClassRef %+v, want %+v", p.NodeClassRef, want)
		}
	}
}

// TestAutoModePodSubnets checks the web NodeClass and where pods get addresses: the pod
// subnets are tagged in us-west-2a and us-west-2b only, the healthy node's pod ENI lies in the
// pod subnet of its zone with both /28 prefixes and /32 addresses, and the node in us-west-2c
// has no pod ENI.
func TestAutoModePodSubnets(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var class *snapshot.EC2NodeClass
	for i := range s.NodeClasses {
		if s.NodeClasses[i].AutoMode() {
			class = &s.NodeClasses[i]
		}
	}
	if class == nil || class.Name != "web" || len(class.PodSubnetSelectorTerms) == 0 ||
		len(class.PodSecurityGroupSelectorTerms) == 0 || class.IPv4PrefixSize != "Auto" {
		t.Fatalf("got Auto Mode NodeClass %+v, want web with pod subnet and pod security group terms, ipv4PrefixSize Auto", class)
	}
	podZones := map[string]string{}
	subnets := map[string]snapshot.Subnet{}
	for _, sn := range s.Subnets {
		subnets[sn.ID] = sn
		if sn.Tags["kubernetes.io/role/pod"] == "1" {
			podZones[sn.Zone] = sn.ID
		}
	}
	if _, ok := podZones["us-west-2c"]; ok || len(podZones) != 2 {
		t.Errorf("pod subnets by zone: got %v, want us-west-2a and us-west-2b only", podZones)
	}
	instances := map[string]snapshot.Instance{}
	for _, in := range s.Instances {
		instances[in.ID] = in
	}
	healthy := instances[autoHealthy]
	if got := len(healthy.ENIs); got != 2 {
		t.Fatalf("%s: got %d ENIs, want the primary and one pod ENI", autoHealthy, got)
	}
	primary, pods := healthy.ENIs[0], healthy.ENIs[1]
	if len(primary.PrivateIPs) != 1 || len(primary.IPv4Prefixes) != 0 {
		t.Errorf("%s primary ENI: got IPs %v and prefixes %v, want only the node address", autoHealthy, primary.PrivateIPs, primary.IPv4Prefixes)
	}
	if pods.SubnetID != podZones[healthy.Zone] || len(pods.IPv4Prefixes) == 0 || len(pods.PrivateIPs) < 2 {
		t.Errorf("%s pod ENI: got subnet %s, %d prefixes, %d IPs; want pod subnet %s with prefixes and /32 addresses",
			autoHealthy, pods.SubnetID, len(pods.IPv4Prefixes), len(pods.PrivateIPs), podZones[healthy.Zone])
	}
	cidr := netip.MustParsePrefix(subnets[pods.SubnetID].CIDR)
	for _, ip := range pods.PrivateIPs {
		if !cidr.Contains(netip.MustParseAddr(ip)) {
			t.Errorf("%s pod ENI address %s is outside %s", autoHealthy, ip, cidr)
		}
	}
	if got := instances[autoNoPods]; len(got.ENIs) != 1 || got.Zone != "us-west-2c" {
		t.Errorf("%s: got %d ENIs in %s, want only the primary in us-west-2c", autoNoPods, len(got.ENIs), got.Zone)
	}
}

// TestAutoModeReport checks what karpnet makes of the Auto Mode nodes: both are checked (not
// skipped) as Auto Mode nodes of the NodeClass kind, the healthy one is clean.
func TestAutoModeReport(t *testing.T) {
	s, err := demo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r := diagnose.Analyze(s, diagnose.Options{})
	got := map[string]diagnose.NodeReport{}
	for _, n := range r.Nodes {
		got[n.Identity.Node] = n
	}
	tests := []struct {
		node     string
		status   string
		findings int
	}{
		{autoHealthy, "ok", 0},
		{autoNoPods, "critical", 1},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			n, ok := got[tt.node]
			if !ok {
				t.Fatalf("no report for %s", tt.node)
			}
			id := n.Identity
			if !id.AutoMode || id.NodeClassKind != snapshot.KindNodeClass || id.NodeClass != "web" || id.Skipped != "" {
				t.Errorf("identity: got auto %v kind %q class %q skipped %q, want an Auto Mode node of NodeClass web",
					id.AutoMode, id.NodeClassKind, id.NodeClass, id.Skipped)
			}
			if n.Status != tt.status || len(n.Findings) != tt.findings || n.AutoMode == nil {
				t.Errorf("got status %s with %d findings (auto mode section %v), want %s with %d",
					n.Status, len(n.Findings), n.AutoMode != nil, tt.status, tt.findings)
			}
		})
	}
}
