package cmdverify

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// testSnapshot holds a node, its NodeClaim and NodePool (with no startup taints), their
// EC2NodeClass and the amazon-vpc-cni ConfigMap.
func testSnapshot() *snapshot.Snapshot {
	return &snapshot.Snapshot{
		Nodes: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-0-10.us-west-2.compute.internal", UID: "u", ResourceVersion: "7",
			Labels: map[string]string{"karpenter.sh/nodepool": "general"}}}},
		NodePools: []snapshot.NodePool{{Name: "general", NodeClassRef: snapshot.NodeClassRef{Name: "default"},
			Requirements: []snapshot.Requirement{{Key: "topology.kubernetes.io/zone", Operator: "In", Values: []string{"us-west-2a"}}}}},
		NodeClaims:        []snapshot.NodeClaim{{Name: "general-abcde", NodeClassRef: snapshot.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}}},
		NodeClasses:       []snapshot.EC2NodeClass{{Name: "default", SubnetSelectorTerms: []snapshot.SelectorTerm{{ID: "subnet-0abc"}}}},
		VPCCNIConfig:      map[string]string{"enable-network-policy-controller": "false"},
		VPCCNIConfigState: snapshot.ConfigMapFound,
		PolicyAgentPods:   []snapshot.SystemPod{{Name: "aws-node-x7k2p", Node: "ip-10-0-0-10.us-west-2.compute.internal"}},
	}
}

func TestTargets(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"kubectl", "delete", "nodeclaim", "general-abcde"}, "[NodeClaim general-abcde]"},
		{[]string{"kubectl", "-n", "kube-system", "patch", "configmap", "amazon-vpc-cni", "--type", "merge", "-p", "{}"}, "[ConfigMap kube-system/amazon-vpc-cni]"},
		{[]string{"kubectl", "label", "node", "n1", "a=b", "--overwrite"}, "[Node n1]"},
		{[]string{"kubectl", "drain", "n1", "--ignore-daemonsets"}, "[Node n1]"},
		{[]string{"kubectl", "-n", "kube-system", "logs", "deploy/cilium-operator"}, "[Deployment kube-system/cilium-operator]"},
		{[]string{"kubectl", "get", "events", "-A", "--field-selector", "involvedObject.name=n1"}, "[]"},
		{[]string{"kubectl", "-n", "kube-system", "get", "pod", "-l", "k8s-app=aws-node", "-o", "name"}, "[]"},
		{[]string{"kubectl", "patch", "ec2nodeclass/default", "--type", "merge", "-p", "{}"}, "[EC2NodeClass default]"},
		{[]string{"kubectl", "-n", "kube-system", "set", "env", "daemonset/aws-node", "X=1"}, "[DaemonSet kube-system/aws-node]"},
	} {
		var got []string
		for _, r := range Targets(tc.argv) {
			got = append(got, r.String())
		}
		if s := "[" + strings.Join(got, " ") + "]"; s != tc.want {
			t.Errorf("%q: got %s, want %s", tc.argv, s, tc.want)
		}
	}
}

// TestPatchLocal runs patches through `kubectl patch --local` over objects built from a
// snapshot, offline: a JSON-patch append to a list the object lacks and a strategic merge
// patch of a custom resource fail, as they would on the cluster.
func TestPatchLocal(t *testing.T) {
	s := testSnapshot()
	k := &Kubectl{Dir: t.TempDir()}
	object := func(r Ref) (map[string]any, error) {
		objs, err := manifest(s, r)
		if err != nil {
			return nil, err
		}
		return objs[0], nil
	}
	taint := `{"key":"node.cilium.io/agent-not-ready","value":"true","effect":"NoExecute"}`
	for _, tc := range []struct {
		argv []string
		want string // "" when the patch must apply
	}{
		{[]string{"kubectl", "patch", "nodepool", "general", "--type", "json", "-p",
			`[{"op":"add","path":"/spec/template/spec/startupTaints","value":[` + taint + `]}]`}, ""},
		{[]string{"kubectl", "patch", "nodepool", "general", "--type", "json", "-p",
			`[{"op":"add","path":"/spec/template/spec/startupTaints/-","value":` + taint + `}]`}, "missing path"},
		{[]string{"kubectl", "patch", "nodepool", "general", "-p", `{"spec":{"template":{"spec":{"startupTaints":[` + taint + `]}}}}`}, "strategic merge patch is not supported"},
		{[]string{"kubectl", "patch", "ec2nodeclass", "default", "--type", "merge", "-p", `{"spec":{"kubelet":{"maxPods":20}}}`}, ""},
		{[]string{"kubectl", "-n", "kube-system", "patch", "configmap", "amazon-vpc-cni", "--type", "merge", "-p",
			`{"data":{"enable-network-policy-controller":"true"}}`}, ""},
		{[]string{"kubectl", "patch", "node", "ip-10-0-0-10.us-west-2.compute.internal", "--type", "merge", "-p", `{"metadata":{"finalizers":null}}`}, "fixes nothing"},
		{[]string{"kubectl", "patch", "node", "ip-10-0-0-10.us-west-2.compute.internal", "--type", "merge", "-p", `{"spec":{"unschedulable":true}}`}, ""},
		{[]string{"kubectl", "patch", "nodepool", "general", "--type", "jsn", "-p", `{}`}, "type"},
		{[]string{"kubectl", "-n", "kube-system", "patch", "configmap", "amazon-vpc-cni", "--type", "merge", "-p",
			`{"data":{"enable-network-policy-controller":"false"}}`}, "fixes nothing"},
		{[]string{"kubectl", "patch", "nodepool", "absent", "--type", "merge", "-p", `{}`}, "the snapshot holds no NodePool absent"},
	} {
		_, err := k.Verify(t.Context(), Command{Argv: tc.argv}, object)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.argv, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: got %v, want an error saying %q", tc.argv, err, tc.want)
		}
	}
	if _, err := k.Verify(t.Context(), Command{Argv: []string{"kubectl", "get", "nodes"}}, object); err == nil ||
		!strings.Contains(err.Error(), "changes nothing") {
		t.Errorf("a get said to change objects: got %v", err)
	}
}

func TestLogsWithoutKubelet(t *testing.T) {
	for out, want := range map[string]bool{
		`Error from server: Get "https://10.0.0.10:10250/containerLogs/kube-system/cilium-operator-0/cilium-operator": dial tcp 10.0.0.10:10250: connect: connection refused`: true,
		`Error from server (BadRequest): container "cilium-operator" in pod "cilium-operator-0" is waiting to start: ContainerCreating`:                                       true,
		`The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?`:                                                                   false,
		`error: unable to upgrade connection: dial tcp 127.0.0.1:6443: connect: connection refused`:                                                                           false,
		`error: error from server (NotFound): deployments.apps "cilium-operator" not found`:                                                                                   false,
	} {
		if got := logsWithoutKubelet.MatchString(out); got != want {
			t.Errorf("%q: accepted %t, want %t", out, got, want)
		}
	}
}
