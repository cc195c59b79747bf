package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

var gvrCiliumNode = schema.GroupVersionResource{Group: "cilium.io", Version: "v2", Resource: "ciliumnodes"}

// cilium installs Cilium's agent DaemonSet (in the host's network, as its Helm chart runs it)
// and cilium-config as its Helm chart writes them, with the given config.
func (w *world) cilium(config map[string]string) {
	w.t.Helper()
	ctx := w.t.Context()
	w.hostNetworkDaemonSet("kube-system", "cilium", "cilium-agent", "quay.io/cilium/cilium:v1.20.2")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cilium-config", Namespace: "kube-system"}, Data: config}
	if _, err := w.kube.CoreV1().ConfigMaps("kube-system").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating cilium-config: %v", err)
	}
}

// hostNetworkDaemonSet creates a Linux DaemonSet whose pods run in the host's network and
// tolerate every taint, as Cilium's agent and Envoy and kube-proxy do.
func (w *world) hostNetworkDaemonSet(namespace, name, container, image string) {
	w.t.Helper()
	labels := map[string]string{"k8s-app": name}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{corev1.LabelOSStable: "linux"}, HostNetwork: true,
					Containers:  []corev1.Container{{Name: container, Image: image}},
					Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				},
			},
		},
	}
	if _, err := w.kube.AppsV1().DaemonSets(namespace).Create(w.t.Context(), ds, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating the %s DaemonSet: %v", name, err)
	}
}

// ciliumDefaultAgents adds the host-network DaemonSets a Cilium install on EKS runs besides the
// agent: Cilium's Envoy and kube-proxy.
func (w *world) ciliumDefaultAgents() {
	w.t.Helper()
	w.hostNetworkDaemonSet("kube-system", "cilium-envoy", "cilium-envoy", "quay.io/cilium/cilium-envoy:v1.35.3")
	w.hostNetworkDaemonSet("kube-system", "kube-proxy", "kube-proxy",
		"602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/kube-proxy:v1.34.0-eksbuild.2")
}

// ciliumOperator creates the kube-system/cilium-operator Deployment as Cilium's Helm chart
// writes it, with extra args.
func (w *world) ciliumOperator(args ...string) {
	w.t.Helper()
	labels := map[string]string{"io.cilium/app": "operator"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "cilium-operator", Namespace: "kube-system", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{HostNetwork: true, Containers: []corev1.Container{{Name: "cilium-operator",
					Image: "quay.io/cilium/operator-aws:v1.20.2",
					Args:  append([]string{"--config-dir=/tmp/cilium/config-map", "--debug=$(CILIUM_DEBUG)"}, args...)}}},
			},
		},
	}
	if _, err := w.kube.AppsV1().Deployments("kube-system").Create(w.t.Context(), d, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating the cilium-operator Deployment: %v", err)
	}
}

// ciliumNode creates the node's CiliumNode as Cilium's agent and operator write it in ENI
// mode: spec.eni with the interface index and selection, status.eni.enis from the instance's
// interfaces, and the operator's error when given.
func (w *world) ciliumNode(node string, in ec2types.Instance, eni map[string]any, operatorError string) {
	w.t.Helper()
	enis := map[string]any{}
	for _, ni := range in.NetworkInterfaces {
		var addrs, prefixes, groups []any
		for _, a := range ni.PrivateIpAddresses {
			if !aws.ToBool(a.Primary) {
				addrs = append(addrs, aws.ToString(a.PrivateIpAddress))
			}
		}
		for _, p := range ni.Ipv4Prefixes {
			prefixes = append(prefixes, aws.ToString(p.Ipv4Prefix))
		}
		for _, g := range ni.Groups {
			groups = append(groups, aws.ToString(g.GroupId))
		}
		id := aws.ToString(ni.NetworkInterfaceId)
		e := map[string]any{
			"id": id, "ip": aws.ToString(ni.PrivateIpAddress), "number": int64(aws.ToInt32(ni.Attachment.DeviceIndex)),
			"subnet": map[string]any{"id": aws.ToString(ni.SubnetId)}, "security-groups": groups,
		}
		if len(addrs) > 0 {
			e["addresses"] = addrs
		}
		if len(prefixes) > 0 {
			e["prefixes"] = prefixes
		}
		enis[id] = e
	}
	status := map[string]any{"eni": map[string]any{"enis": enis}}
	if operatorError != "" {
		status["ipam"] = map[string]any{"operator-status": map[string]any{"error": operatorError}}
	}
	w.create(gvrCiliumNode, map[string]any{
		"apiVersion": "cilium.io/v2", "kind": "CiliumNode", "metadata": map[string]any{"name": node},
		"spec": map[string]any{"instance-id": aws.ToString(in.InstanceId), "eni": eni},
	}, status)
}

// startupTaint adds a taint to a NodePool's spec.template.spec.startupTaints.
func (w *world) startupTaint(pool, key string) {
	w.t.Helper()
	patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"startupTaints":[{"key":%q,"value":"true","effect":"NoExecute"}]}}}}`, key)
	gvr := schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	if _, err := w.dyn.Resource(gvr).Patch(w.t.Context(), pool, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		w.t.Fatalf("adding a startup taint to NodePool %s: %v", pool, err)
	}
}

// networkPolicy creates a default-deny NetworkPolicy in namespace default.
func (w *world) networkPolicy(name string) {
	w.t.Helper()
	np := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}},
	}
	if _, err := w.kube.NetworkingV1().NetworkPolicies("default").Create(w.t.Context(), np, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating NetworkPolicy %s: %v", name, err)
	}
}

// allowanceEvent records the EKS node monitoring agent's Warning event about a node that went
// over a network allowance.
func (w *world) allowanceEvent(node, name, message string, count int32, ago time.Duration) {
	w.t.Helper()
	last := metav1.NewTime(time.Now().Add(-ago))
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: node + "." + name, Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: node, UID: types.UID(node)},
		Reason:         "NetworkingReady", Message: message, Type: corev1.EventTypeWarning, Count: count,
		Source:         corev1.EventSource{Component: "eks-node-monitoring-agent", Host: node},
		FirstTimestamp: metav1.NewTime(last.Add(-15 * time.Minute)), LastTimestamp: last,
	}
	if _, err := w.kube.CoreV1().Events("default").Create(w.t.Context(), ev, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating an allowance event: %v", err)
	}
}

// TestCilium is a cluster on Cilium in ENI mode, with the real CiliumNode CRD: one pool left
// without Cilium's startup taint whose node skips the primary interface (first-interface-index
// 1) under Karpenter's VPC CNI max pods, and one pool on prefix delegation with the taint and
// max pods 110, where one node has an interface in a subnet its CiliumNode does not select and
// one dropped packets over its conntrack allowance. In ENI mode Cilium's operator never writes
// status.ipam.operator-status, so nothing is read there. NetworkPolicies exist: Cilium enforces
// them.
func TestCilium(t *testing.T) {
	ciliumWorld(t)
	const dom = ".us-west-2.compute.internal"

	node := func(n string) string { return "ip-10-0-0-" + n + dom }
	want := []finding{
		{"cilium-eni-selection-mismatch", "warning", node("12"), "node/" + node("12")},
		{"cilium-max-pods-exceeds-ip-capacity", "critical", node("10"), "node/" + node("10")},
		{"instance-network-allowance-exceeded", "warning", node("11"), "node/" + node("11")},
		{"nodepool-startup-taint-missing", "warning", "", "nodepool/cilium"},
	}
	r := karpnet(t, runOpts{}, "check", "-o", "json")
	wantCode(t, r, 1)
	rep := decode(t, r)
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	for _, f := range rep.Findings {
		if f.ID == "cilium-max-pods-exceeds-ip-capacity" && (!strings.Contains(f.Message, "at most 16 pod IPs") ||
			!strings.Contains(f.Message, "with 3 host-network pods (kube-system/cilium, kube-system/cilium-envoy, kube-system/kube-proxy), 10 pods")) {
			t.Errorf("max pods finding does not count Cilium's 16 pod addresses and the 3 host-network pods: %s", f.Message)
		}
	}

	// The node sheet shows Cilium's IPAM in place of the VPC CNI's pod capacity.
	r = karpnet(t, runOpts{}, "describe", "node", node("10"))
	for _, s := range []string{"Cilium IPAM (ENI mode)", "First interface index", "(3 ENIs - first-interface-index 1) x (10 IPv4 per ENI - 1) = 18 addresses"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("describe node lacks %q:\n%s", s, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "Pod capacity") {
		t.Errorf("describe node shows the VPC CNI's pod capacity on a Cilium node:\n%s", r.stdout)
	}
}

// ciliumWorld builds TestCilium's cluster: Cilium in ENI mode with prefix delegation, a pool
// without Cilium's startup taint, a node whose interfaces miss the CiliumNode's subnet, one
// over its pod addresses and one over its conntrack allowance.
func ciliumWorld(t *testing.T) {
	t.Helper()
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	pods := w.subnet("10.0.128.0/20", "us-west-2a")
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true), w.securityGroup("e2e-nodes", false)}
	w.cilium(map[string]string{"ipam": "eni", "aws-enable-prefix-delegation": "true", "cluster-name": "e2e"})
	w.ciliumDefaultAgents()
	w.networkPolicy("default-deny")

	zones := []string{"us-west-2a"}
	w.nodeClass(nodeClassSpec{name: "cilium", subnets: []subnetRef{a}, sgs: sgs})
	w.nodePool("cilium", "v1", "cilium", zones, 0)
	w.nodeClass(nodeClassSpec{name: "cilium-pd", subnets: []subnetRef{a}, sgs: sgs, maxPods: 110})
	w.nodePool("cilium-pd", "v1", "cilium-pd", zones, 0)
	w.startupTaint("cilium-pd", "node.cilium.io/agent-not-ready")

	const dom = ".us-west-2.compute.internal"
	spec := func(first int64, more map[string]any) map[string]any {
		m := map[string]any{"first-interface-index": first, "subnet-ids": []any{pods}, "security-groups": []any{sgs[0], sgs[1]}}
		for k, v := range more {
			m[k] = v
		}
		return m
	}
	// first-interface-index 1, no prefix delegation on this node: Karpenter's 29 pods against
	// (3 - 1) x 9 - 2 = 16 pod addresses and 3 host-network pods.
	skip := w.cniLaunch(a.id, "10.0.0.10", sgs, cniNIC{subnet: pods, device: 1})
	w.karpenterNode("ip-10-0-0-10"+dom, "cilium", "cilium", "v1", skip, 29, nil)
	w.ciliumNode("ip-10-0-0-10"+dom, skip, spec(1, map[string]any{"disable-prefix-delegation": true}), "")
	// Prefix delegation and max pods 110: healthy, though it dropped packets over conntrack.
	pd := w.cniLaunch(a.id, "10.0.0.11", sgs, cniNIC{subnet: pods, device: 1, prefixes: 1})
	w.karpenterNode("ip-10-0-0-11"+dom, "cilium-pd", "cilium-pd", "v1", pd, 110, nil)
	w.ciliumNode("ip-10-0-0-11"+dom, pd, spec(1, nil), "")
	w.allowanceEvent("ip-10-0-0-11"+dom, "conntrack",
		`ConntrackExceeded: conntrack_allowance_exceeded increased on interface "ens5" from 120 to 5120`, 3, 5*time.Minute)
	// An interface in the node subnet though the CiliumNode selects the pod subnet.
	stray := w.cniLaunch(a.id, "10.0.0.12", sgs, cniNIC{subnet: a.id, device: 1, prefixes: 1})
	w.karpenterNode("ip-10-0-0-12"+dom, "cilium-pd", "cilium-pd", "v1", stray, 110, nil)
	w.ciliumNode("ip-10-0-0-12"+dom, stray, spec(1, nil), "")
	// A value in status.ipam.operator-status, which the ENI operator never writes, is not read as
	// its error.
	full := w.cniLaunch(a.id, "10.0.0.13", sgs, cniNIC{subnet: pods, device: 1, prefixes: 1})
	w.karpenterNode("ip-10-0-0-13"+dom, "cilium-pd", "cilium-pd", "v1", full, 110, nil)
	w.ciliumNode("ip-10-0-0-13"+dom, full, spec(1, nil), "allocator clusterCIDR: 10.0.0.0/8, nodeMask: 24 full")
}

// TestHealthyCiliumENI is Cilium in ENI mode as installed by default: first-interface-index 0
// and Karpenter's max pods on a node whose host-network DaemonSets (Cilium's agent and Envoy,
// kube-proxy, the EKS Pod Identity agent) leave Cilium's router and health endpoint their
// addresses; and prefix delegation turned on by the operator's --aws-enable-prefix-delegation
// alone, on a Nitro node at max pods 110. Both are clean. Their broken twins: without the Pod
// Identity agent one pod of the default node has no address (a warning), and without the
// operator's flag the prefix node has Cilium's secondary-address count (critical).
func TestHealthyCiliumENI(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.cilium(map[string]string{"ipam": "eni", "cluster-name": "e2e"})
	w.ciliumDefaultAgents()
	w.hostNetworkDaemonSet("kube-system", "eks-pod-identity-agent", "eks-pod-identity-agent",
		"602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/eks-pod-identity-agent:v0.1.29")
	w.ciliumOperator("--aws-enable-prefix-delegation=true")
	zones := []string{"us-west-2a"}
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a}, sgs: sgs})
	w.nodePool("default", "v1", "default", zones, 0)
	w.startupTaint("default", "node.cilium.io/agent-not-ready")
	w.nodeClass(nodeClassSpec{name: "prefix", subnets: []subnetRef{a}, sgs: sgs, maxPods: 110})
	w.nodePool("prefix", "v1", "prefix", zones, 0)
	w.startupTaint("prefix", "node.cilium.io/agent-not-ready")

	const dom = ".us-west-2.compute.internal"
	eni := func(first int64) map[string]any { return map[string]any{"first-interface-index": first} }
	// first-interface-index 0, Karpenter's 3 x 9 + 2 = 29 pods: 27 addresses, 25 for pods, and 4
	// host-network pods. Its interface holds secondary addresses: no prefixes for this node.
	def := w.cniLaunch(a.id, "10.0.0.20", sgs, cniNIC{subnet: a.id, device: 1, addresses: 4})
	w.karpenterNode("ip-10-0-0-20"+dom, "default", "default", "v1", def, 29, nil)
	w.ciliumNode("ip-10-0-0-20"+dom, def, eni(0), "")
	// Prefix delegation by the operator's args: (3 - 0) x 9 x 16 addresses for 110 pods.
	pd := w.cniLaunch(a.id, "10.0.0.21", sgs, cniNIC{subnet: a.id, device: 1, prefixes: 2})
	w.karpenterNode("ip-10-0-0-21"+dom, "prefix", "prefix", "v1", pd, 110, nil)
	w.ciliumNode("ip-10-0-0-21"+dom, pd, eni(0), "")
	checkHealthy(t, runOpts{})

	// Without the Pod Identity agent, 26 pods want 25 addresses.
	if err := w.kube.AppsV1().DaemonSets("kube-system").Delete(t.Context(), "eks-pod-identity-agent", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting eks-pod-identity-agent: %v", err)
	}
	// Without the operator's flag nothing turns prefix delegation on.
	if err := w.kube.AppsV1().Deployments("kube-system").Delete(t.Context(), "cilium-operator", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting cilium-operator: %v", err)
	}
	w.ciliumOperator()
	r := karpnet(t, runOpts{}, "check", "-o", "json", "--fail-on", "warning")
	wantCode(t, r, 1)
	want := []finding{
		{"cilium-max-pods-exceeds-ip-capacity", "warning", "ip-10-0-0-20" + dom, "node/ip-10-0-0-20" + dom},
		{"cilium-max-pods-exceeds-ip-capacity", "critical", "ip-10-0-0-21" + dom, "node/ip-10-0-0-21" + dom},
	}
	if diff := cmpDiff(want, decode(t, r).set()); diff != "" {
		t.Errorf("findings of the broken twins (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
}

// policyAgent adds aws-node's network policy agent container, with --enable-network-policy on
// or off.
func policyAgent(on bool) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Containers = append(ds.Spec.Template.Spec.Containers, corev1.Container{
			Name: "aws-eks-nodeagent", Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon/aws-network-policy-agent:v1.4.2",
			Args: []string{fmt.Sprintf("--enable-network-policy=%t", on), "--enable-ipv6=false"},
		})
	}
}

// policyWorld builds TestNetworkPolicyEnforcement's cluster: aws-node in strict mode with its
// network policy agent on or off, one Karpenter node, no NetworkPolicy yet.
func policyWorld(t *testing.T, agentOn bool) *world {
	t.Helper()
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNodeWith(map[string]string{"NETWORK_POLICY_ENFORCING_MODE": "strict"}, policyAgent(agentOn))
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a}, sgs: sgs})
	w.nodePool("default", "v1", "default", []string{"us-west-2a"}, 0)
	w.karpenterNode("ip-10-0-0-10.us-west-2.compute.internal", "default", "default", "v1",
		w.cniLaunch(a.id, "10.0.0.10", sgs), 29, nil)
	return w
}

// TestNetworkPolicyEnforcement is a VPC CNI cluster with a NetworkPolicy: with aws-node's
// network policy agent off the policy is not enforced; turned on, the same cluster is clean.
func TestNetworkPolicyEnforcement(t *testing.T) {
	w := policyWorld(t, false)
	agent := policyAgent
	var err error

	// Without a policy nothing is said.
	r := karpnet(t, runOpts{}, "check", "-o", "json", "--only", "network-policy-not-enforced")
	wantCode(t, r, 0)
	if got := decode(t, r).set(); len(got) != 0 {
		t.Errorf("findings without a policy: %v", got)
	}
	w.networkPolicy("default-deny")
	w.networkPolicy("allow-web")
	r = karpnet(t, runOpts{}, "check", "-o", "json", "--fail-on", "warning", "--only", "network-policy-not-enforced")
	wantCode(t, r, 1)
	rep := decode(t, r)
	want := []finding{{"network-policy-not-enforced", "warning", "", "daemonset/kube-system/aws-node"}}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	if len(rep.Findings) == 1 && !strings.Contains(rep.Findings[0].Message, "2 NetworkPolicies (default/allow-web, default/default-deny)") {
		t.Errorf("the finding does not name the policies: %s", rep.Findings[0].Message)
	}

	// The agent turned on, but no amazon-vpc-cni ConfigMap: the network policy controller in the
	// EKS control plane stays off, writes no PolicyEndpoints, and the agent enforces nothing.
	if err := w.kube.AppsV1().DaemonSets("kube-system").Delete(t.Context(), "aws-node", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting aws-node: %v", err)
	}
	w.awsNodeWith(map[string]string{"NETWORK_POLICY_ENFORCING_MODE": "strict"}, agent(true))
	r = karpnet(t, runOpts{}, "check", "-o", "json", "--fail-on", "warning", "--only", "network-policy-not-enforced")
	wantCode(t, r, 1)
	rep = decode(t, r)
	want = []finding{{"network-policy-not-enforced", "warning", "", "configmap/kube-system/amazon-vpc-cni"}}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings with the agent on and no ConfigMap (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	if len(rep.Findings) == 1 && !strings.Contains(commandLines(rep.Findings[0].Commands), "--from-literal=enable-network-policy-controller=true") {
		t.Errorf("the remedy's commands do not create the ConfigMap with the key: %s", commandLines(rep.Findings[0].Commands))
	}
	// The ConfigMap with "false", as the VPC CNI's manifest ships it: still off.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "amazon-vpc-cni", Namespace: "kube-system"},
		Data: map[string]string{"enable-network-policy-controller": "false"}}
	if cm, err = w.kube.CoreV1().ConfigMaps("kube-system").Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating amazon-vpc-cni: %v", err)
	}
	r = karpnet(t, runOpts{}, "check", "-o", "json", "--fail-on", "warning", "--only", "network-policy-not-enforced")
	wantCode(t, r, 1)
	if rep = decode(t, r); len(rep.Findings) != 1 || !strings.Contains(rep.Findings[0].Message, `enable-network-policy-controller: "false"`) {
		t.Errorf("the finding does not quote the ConfigMap's value:\n%s", r.stdout)
	}

	// The controller turned on too: clean, and the node sheet says it enforces in strict mode.
	cm.Data["enable-network-policy-controller"] = "true"
	if _, err := w.kube.CoreV1().ConfigMaps("kube-system").Update(t.Context(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("updating amazon-vpc-cni: %v", err)
	}
	r = karpnet(t, runOpts{}, "check", "-o", "json", "--fail-on", "warning", "--only", "network-policy-not-enforced")
	wantCode(t, r, 0)
	r = karpnet(t, runOpts{}, "describe", "node", "ip-10-0-0-10.us-west-2.compute.internal")
	if !strings.Contains(r.stdout, "enforced, strict mode") {
		t.Errorf("describe node does not say policies are enforced in strict mode:\n%s", r.stdout)
	}
}

// TestAllowanceEventsAsRecorded reads the node monitoring agent's allowance events as client-go's
// event recorder leaves them in the API server: a combined event ("(combined from similar
// events): ...") counts, and is reported apart; a Normal event and one dated after the snapshot
// do not.
func TestAllowanceEventsAsRecorded(t *testing.T) {
	w := newWorld(t, harness.CRDsV1)
	a := subnetRef{w.subnet("10.0.0.0/20", "us-west-2a"), "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-e2e", true)}
	w.awsNode(nil)
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{a}, sgs: sgs})
	w.nodePool("default", "v1", "default", []string{"us-west-2a"}, 0)
	const dom = ".us-west-2.compute.internal"
	w.karpenterNode("ip-10-0-0-10"+dom, "default", "default", "v1", w.cniLaunch(a.id, "10.0.0.10", sgs), 29, nil)
	w.karpenterNode("ip-10-0-0-11"+dom, "default", "default", "v1", w.cniLaunch(a.id, "10.0.0.11", sgs), 29, nil)
	const pps = `PPSExceeded: pps_allowance_exceeded increased on interface "ens5" from 0 to 9000`
	w.allowanceEvent("ip-10-0-0-10"+dom, "combined", "(combined from similar events): "+pps, 57, 2*time.Minute)
	w.allowanceEvent("ip-10-0-0-11"+dom, "future", pps, 3, -30*time.Minute)
	normal := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "ip-10-0-0-11" + dom + ".normal", Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "ip-10-0-0-11" + dom},
		Reason:         "NetworkingReady", Message: pps, Type: corev1.EventTypeNormal, Count: 1,
		LastTimestamp: metav1.NewTime(time.Now().Add(-time.Minute)),
	}
	if _, err := w.kube.CoreV1().Events("default").Create(t.Context(), normal, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a Normal event: %v", err)
	}
	r := karpnet(t, runOpts{}, "check", "-o", "json", "--only", "instance-network-allowance-exceeded")
	rep := decode(t, r)
	want := []finding{{"instance-network-allowance-exceeded", "warning", "ip-10-0-0-10" + dom, "node/ip-10-0-0-10" + dom}}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
	}
	if len(rep.Findings) == 1 && !strings.Contains(rep.Findings[0].Message, "57 NetworkingReady warnings that client-go's event recorder combined") {
		t.Errorf("the finding does not count the combined event apart: %s", rep.Findings[0].Message)
	}
}
