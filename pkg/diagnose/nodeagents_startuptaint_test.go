package diagnose

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// withCilium turns the healthy fixture into a cluster that runs Cilium (cilium-config as given)
// instead of aws-node.
func withCilium(config map[string]string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		s.AWSNode = nil
		s.Cilium = &snapshot.Cilium{Image: "quay.io/cilium/cilium:v1.20.2", ConfigRead: true, Config: config,
			Scheduling: &snapshot.Scheduling{NodeSelector: map[string]string{corev1.LabelOSStable: OSLinux}}}
	}
}

// defaultPoolNodes are the healthy fixture's nodes of NodePool default, as a command's Affects
// counts them.
const defaultPoolNodes = "1 node (m5.large)"

func TestNodePoolStartupTaintMissing(t *testing.T) {
	// patch is the command that adds key to NodePool default's startup taints: it creates the
	// list when the pool has none (create), and appends to it otherwise.
	patch := func(key string, create bool) []Command {
		op := `[{"op":"add","path":"/spec/template/spec/startupTaints/-","value":{"effect":"NoExecute","key":"` + key + `","value":"true"}}]`
		if create {
			op = `[{"op":"add","path":"/spec/template/spec/startupTaints","value":[{"effect":"NoExecute","key":"` + key + `","value":"true"}]}]`
		}
		return []Command{{Argv: []string{"kubectl", "patch", "nodepool", "default", "--type", "json", "-p", op},
			Changes: "nodepool/default", Affects: "the NodePool's nodes drift and Karpenter replaces them: " + defaultPoolNodes}}
	}
	remedy := func(key string) string {
		return "add the taint " + key + " with effect NoExecute to NodePool default's spec.template.spec.startupTaints, " +
			"as Cilium and Karpenter document"
	}
	const msg = "Cilium's operator removes the taint node.cilium.io/agent-not-ready from a node once the agent on it is ready, " +
		"and NodePool default does not list it in spec.template.spec.startupTaints: Karpenter counts pending pods as not fitting " +
		"a new node that carries it and launches more, or schedules pods before the node's datapath works"
	finding := func(m string) []Finding {
		return []Finding{{ID: "nodepool-startup-taint-missing", Severity: Warning, Resource: "nodepool/default", Message: m,
			Remedy: remedy(snapshot.CiliumTaintDefault), Commands: patch(snapshot.CiliumTaintDefault, true)}}
	}
	startup := func(key string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.NodePools[0].StartupTaints = []corev1.Taint{{Key: key, Value: "true", Effect: corev1.TaintEffectNoExecute}}
		}
	}
	burst := func(s *snapshot.Snapshot) {
		base := s.Taken.Add(-time.Hour)
		for i, d := range []time.Duration{0, 10 * time.Second, 40 * time.Second, 55 * time.Second, 20 * time.Minute} {
			c := s.NodeClaims[0]
			c.Name, c.NodeName, c.ProviderID, c.Created = c.Name+string(rune('a'+i)), "", "", base.Add(d)
			s.NodeClaims = append(s.NodeClaims, c)
		}
		s.Nodes[0].Spec.Taints = []corev1.Taint{{Key: snapshot.CiliumTaintDefault, Value: "true", Effect: corev1.TaintEffectNoExecute}}
	}
	runCheckCases(t, nodePoolStartupTaintMissing, []checkCase{
		{name: "no Cilium is silent"},
		{name: "a NodePool without the taint fires", edit: withCilium(map[string]string{"ipam": "eni"}), want: finding(msg)},
		{name: "overlay mode too: the taint is Cilium's, whatever its IPAM", edit: withCilium(map[string]string{"ipam": "cluster-pool"}), want: finding(msg)},
		{name: "a NodePool that lists the taint is clean", edit: edits(withCilium(nil), startup(snapshot.CiliumTaintDefault))},
		{name: "another startup taint does not count, and the patch appends to the list", edit: edits(withCilium(nil), startup("example.com/not-ready")),
			want: []Finding{{ID: "nodepool-startup-taint-missing", Severity: Warning, Resource: "nodepool/default", Message: msg,
				Remedy: remedy(snapshot.CiliumTaintDefault), Commands: patch(snapshot.CiliumTaintDefault, false)}}},
		{
			name: "a custom taint key is the one to list",
			edit: edits(withCilium(map[string]string{"agent-not-ready-taint-key": "example.com/cni-not-ready"}), startup(snapshot.CiliumTaintDefault)),
			want: []Finding{{ID: "nodepool-startup-taint-missing", Severity: Warning, Resource: "nodepool/default",
				Message: "Cilium's operator removes the taint example.com/cni-not-ready from a node once the agent on it is ready, " +
					"and NodePool default does not list it in spec.template.spec.startupTaints: Karpenter counts pending pods as not " +
					"fitting a new node that carries it and launches more, or schedules pods before the node's datapath works",
				Remedy: remedy("example.com/cni-not-ready"), Commands: patch("example.com/cni-not-ready", false)}},
		},
		{name: "a readiness.k8s.io/ key is silent", edit: withCilium(map[string]string{"agent-not-ready-taint-key": "readiness.k8s.io/cilium"})},
		{name: "a Windows pool is silent", edit: edits(withCilium(nil), func(s *snapshot.Snapshot) {
			s.NodePools[0].Requirements = []snapshot.Requirement{{Key: corev1.LabelOSStable, Operator: "In", Values: []string{"windows"}}}
		})},
		{name: "an Auto Mode pool is silent", edit: edits(withCilium(nil), func(s *snapshot.Snapshot) {
			s.NodePools[0].NodeClassRef = snapshot.NodeClassRef{Group: snapshot.AutoModeGroup, Kind: snapshot.KindNodeClass, Name: "default"}
		})},
		{name: "a pool whose labels the agent's nodeSelector excludes is silent", edit: edits(withCilium(nil), func(s *snapshot.Snapshot) {
			s.Cilium.Scheduling.NodeSelector["io.cilium/enabled"] = "true"
			s.NodePools[0].Labels = map[string]string{"io.cilium/enabled": "false"}
		})},
		{
			name: "the taint in taints, tainted nodes and a burst of NodeClaims are the evidence",
			edit: edits(withCilium(nil), burst, func(s *snapshot.Snapshot) {
				s.NodePools[0].Taints = []corev1.Taint{{Key: snapshot.CiliumTaintDefault, Effect: corev1.TaintEffectNoSchedule}}
			}),
			want: finding(msg + "; the pool lists it in spec.template.spec.taints, which Karpenter expects pods to tolerate; " +
				"1 of its nodes carries the taint now (" + nodeA + "); 4 of its NodeClaims were created within a minute of 2026-08-21T11:00:00Z"),
		},
	})
}
