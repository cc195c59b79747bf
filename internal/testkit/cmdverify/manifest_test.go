package cmdverify

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestManifests(t *testing.T) {
	s := testSnapshot()
	for _, tc := range []struct {
		name string
		argv []string
		want []string // substrings of the manifests' JSON
		err  string
	}{
		{"a v1 NodePool with the class's group and kind filled in",
			[]string{"kubectl", "patch", "nodepool", "general", "--type", "merge", "-p", "{}"},
			[]string{`"apiVersion":"karpenter.sh/v1"`, `"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"}`,
				`"requirements":[{"key":"topology.kubernetes.io/zone","operator":"In","values":["us-west-2a"]}]`}, ""},
		{"a Node without what the API server sets",
			[]string{"kubectl", "delete", "node", "ip-10-0-0-10.us-west-2.compute.internal"},
			[]string{`"kind":"Node"`, `"name":"ip-10-0-0-10.us-west-2.compute.internal"`}, ""},
		{"an EC2NodeClass valid at v1",
			[]string{"kubectl", "describe", "ec2nodeclass", "default"},
			[]string{`"amiSelectorTerms":[{"alias":"al2023@latest"}]`, `"subnetSelectorTerms":[{"id":"subnet-0abc"}]`, `"role":`}, ""},
		{"the ConfigMap with its data",
			[]string{"kubectl", "-n", "kube-system", "patch", "configmap", "amazon-vpc-cni", "--type", "merge", "-p", "{}"},
			[]string{`"data":{"enable-network-policy-controller":"false"}`, `"namespace":"kube-system"`}, ""},
		{"logs of a Deployment: a stand-in and its pod",
			[]string{"kubectl", "-n", "kube-system", "logs", "deploy/cilium-operator"},
			nil, "the snapshot holds no Deployment kube-system/cilium-operator"},
		{"logs of an aws-node pod karpnet read: a stand-in with the agent container",
			[]string{"kubectl", "-n", "kube-system", "logs", "aws-node-x7k2p", "-c", "aws-eks-nodeagent", "--previous"},
			[]string{`"kind":"Pod"`, `"name":"aws-eks-nodeagent"`}, ""},
		{"an object the snapshot lacks",
			[]string{"kubectl", "delete", "nodeclaim", "general-gone"}, nil, "the snapshot holds no NodeClaim general-gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Manifests(s, tc.argv)
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("got error %v, want %q", err, tc.err)
			}
			b, _ := json.Marshal(objs)
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("got %s, want %s in it", b, w)
				}
			}
			if strings.Contains(string(b), `"resourceVersion"`) || strings.Contains(string(b), `"uid"`) {
				t.Errorf("got %s, want no resourceVersion or uid", b)
			}
		})
	}

	s.VPCCNIConfigState, s.Cilium = snapshot.ConfigMapNotFound, &snapshot.Cilium{}
	if _, err := Manifests(s, []string{"kubectl", "-n", "kube-system", "patch", "configmap", "amazon-vpc-cni", "-p", "{}"}); err == nil {
		t.Error("a ConfigMap karpnet found absent was built")
	}
	objs, err := Manifests(s, []string{"kubectl", "-n", "kube-system", "logs", "deploy/cilium-operator"})
	if err != nil || len(objs) != 3 {
		t.Errorf("logs deploy/cilium-operator with Cilium: got %d objects, %v; want its service account, Deployment and Pod", len(objs), err)
	}
}

func TestCreates(t *testing.T) {
	got := Creates([]string{"kubectl", "-n", "kube-system", "create", "configmap", "amazon-vpc-cni", "--from-literal=a=true"})
	if len(got) != 1 || got[0].String() != "ConfigMap kube-system/amazon-vpc-cni" {
		t.Errorf("got %v, want the ConfigMap", got)
	}
	if got := Creates([]string{"kubectl", "delete", "node", "a"}); got != nil {
		t.Errorf("a delete creates %v", got)
	}
}
