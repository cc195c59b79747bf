package e2e

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// TestAutoMode is a cluster running self-managed Karpenter and EKS Auto Mode side by side, with
// aws-node set up for the self-managed nodes: custom networking with an ENIConfig for
// us-west-2a only, and prefix delegation. One node of each is healthy; the Auto Mode one takes
// pod addresses from a tagged pod subnet (not the ENIConfig's) on an interface that holds /28
// prefixes and /32 addresses together, and has Auto Mode's own max pods. None of the aws-node
// settings applies to Auto Mode nodes, so none of the VPC CNI checks may fire on them.
// Three NodeClasses are broken as users break them: pod subnets that select nothing in a node's
// zone, pod subnets without pod security groups, and a custom node role without an access entry.
func TestAutoMode(t *testing.T) {
	w := newWorld(t, harness.CRDsV1AutoMode)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	b := subnetRef{w.subnet("10.0.16.0/20", "us-west-2b"), "us-west-2b"}
	// Pod subnets, read only through the tags the NodeClasses select them by: podA holds the
	// healthy node's pod interface, podA2 nothing yet, and zonal is the only subnet with the
	// tag key of NodeClass "zonal", in another zone than its node.
	podA := w.subnet("10.0.128.0/20", "us-west-2a")
	podA2 := w.subnet("10.0.144.0/20", "us-west-2a")
	zonal := w.subnet("10.0.160.0/20", "us-west-2a")
	w.tagSubnet(podA, map[string]string{"kubernetes.io/role/pod": "1"})
	w.tagSubnet(podA2, map[string]string{"kubernetes.io/role/pod": "1", "Name": "pods-a2"})
	w.tagSubnet(zonal, map[string]string{"e2e.karpnet.io/pods": "zonal"})
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	clusterSG := sgs[:1]
	podSG := w.securityGroup("e2e-pods", false)
	cniA := w.subnet("10.0.192.0/20", "us-west-2a")
	w.awsNode(map[string]string{
		"AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "true", "ENI_CONFIG_LABEL_DEF": "topology.kubernetes.io/zone",
		"ENABLE_PREFIX_DELEGATION": "true", "WARM_PREFIX_TARGET": "1",
	})
	w.create(gvrENIConfig, map[string]any{
		"apiVersion": "crd.k8s.amazonaws.com/v1alpha1", "kind": "ENIConfig", "metadata": map[string]any{"name": "us-west-2a"},
		"spec": map[string]any{"subnet": cniA, "securityGroups": []any{sgs[0], sgs[1]}},
	}, nil)

	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a, b}, sgs: sgs, maxPods: 110})
	w.nodePool("general", "v1", "default", []string{"us-west-2a", "us-west-2b"}, 0)
	self := w.cniLaunch(a.id, "10.0.0.10", sgs, cniNIC{subnet: cniA, device: 1, prefixes: 1})
	w.karpenterNode(nodeNameOf(self), "general", "default", "v1", self, 110, nil)

	podTerms := []any{map[string]any{"tags": map[string]any{"kubernetes.io/role/pod": "1"}}}
	podSGTerms := []any{map[string]any{"id": podSG}}
	w.autoNodeClass(autoNodeClassSpec{name: "auto", subnets: []subnetRef{a, b}, sgs: clusterSG,
		podSubnetTerms: podTerms, podSGTerms: podSGTerms})
	w.autoNodePool("auto", "auto", []string{"us-west-2a", "us-west-2b"})
	healthy := w.instance(instanceSpec{typ: "m5.large", subnet: a.id, sgs: clusterSG, ip: "10.0.0.20"})
	w.podInterface(healthy, podA, []string{podSG}, 1, 2)
	// 27 pods: Auto Mode's own figure for an m5.large, which no VPC CNI formula gives.
	auto := w.autoNode("auto", "auto", w.describe(*healthy.InstanceId), 27)

	w.autoNodeClass(autoNodeClassSpec{name: "zonal", subnets: []subnetRef{a, b}, sgs: clusterSG,
		podSubnetTerms: []any{map[string]any{"tags": map[string]any{"e2e.karpnet.io/pods": "*"}}}, podSGTerms: podSGTerms})
	w.autoNodePool("zonal", "zonal", []string{"us-west-2b"})
	inB := w.instance(instanceSpec{typ: "m5.large", subnet: b.id, sgs: clusterSG, ip: "10.0.16.20"})
	stranded := w.autoNode("zonal", "zonal", inB, 27)

	w.autoNodeClass(autoNodeClassSpec{name: "nosg", subnets: []subnetRef{a}, sgs: clusterSG,
		podSubnetTerms: []any{map[string]any{"id": podA}}})
	w.autoNodePool("nosg", "nosg", []string{"us-west-2a"})

	w.autoNodeClass(autoNodeClassSpec{name: "custom", role: "AutoModeCustomRole", subnets: []subnetRef{a}, sgs: clusterSG,
		notReady: &[3]string{"InstanceProfileReady", "UnauthorizedNodeRole",
			"Role AutoModeCustomRole is unauthorized to join nodes to the cluster"}})
	w.autoNodePool("custom", "custom", []string{"us-west-2a"})

	want := []finding{
		{"nodeclass-not-ready", "critical", "", "nodeclass/custom"},
		{"pod-subnet-security-groups-missing", "critical", "", "nodeclass/nosg"},
		{"pod-subnet-zone-missing", "critical", stranded, "nodeclass/zonal"},
	}
	now := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, now, 1)
	if diff := cmpDiff(want, decode(t, now).set()); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nstdout:\n%s", diff, now.stdout)
	}
	// Fifteen minutes on, past every start-up grace, the healthy nodes are still clean, and the
	// stranded node, whose ENIs hold no prefix in a zone without ENIConfig, has only its own finding.
	later := karpnet(t, runOpts{}, "check", "-o", "json", "--snapshot", laterSnapshot(t))
	wantCode(t, later, 1)
	rep := decode(t, later)
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings 15 minutes later (-want +got):\n%s\nstdout:\n%s", diff, later.stdout)
	}
	for _, f := range rep.Findings {
		if f.Message == "" || f.Remedy == "" {
			t.Errorf("finding %s on %s%s has no message or remedy", f.ID, f.Node, f.Resource)
		}
	}
	if rep.Summary.Nodes != 3 || rep.Summary.Clean != 2 || rep.Summary.WithCritical != 1 {
		t.Errorf("summary %+v: want 3 nodes, 2 clean, 1 with criticals", rep.Summary)
	}

	sheet := karpnet(t, runOpts{}, "describe", "node", auto)
	wantCode(t, sheet, 0)
	for _, want := range []string{
		`NodeClass:\s+auto\n`,
		`EKS Auto Mode:\s+yes`,
		`capacity.pods:\s+27 \(set by EKS Auto Mode\)`,
		`Pod subnets in zone:\s+(` + regexp.QuoteMeta(podA2+", "+podA) + `|` + regexp.QuoteMeta(podA+", "+podA2) + `)\n`,
	} {
		if !regexp.MustCompile(want).MatchString(sheet.stdout) {
			t.Errorf("describe node %s: got\n%s\nwant it to match %q", auto, sheet.stdout, want)
		}
	}

	selected := karpnet(t, runOpts{}, "check", "-o", "json", "--nodeclass", "auto")
	wantCode(t, selected, 0)
	var sel struct {
		Nodes []struct{ Identity struct{ Node string } } `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(selected.stdout), &sel); err != nil {
		t.Fatalf("decoding -o json: %v\n%s", err, selected.stdout)
	}
	var nodes []string
	for _, n := range sel.Nodes {
		nodes = append(nodes, n.Identity.Node)
	}
	if diff := cmp.Diff([]string{auto}, nodes); diff != "" {
		t.Errorf("--nodeclass auto: nodes (-want +got):\n%s", diff)
	}
}
