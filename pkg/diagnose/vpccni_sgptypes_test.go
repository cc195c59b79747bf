package diagnose

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// withSGPs turns on security groups for pods and adds two SecurityGroupPolicies.
func withSGPs(s *snapshot.Snapshot) {
	s.AWSNode.Env[SettingPodENI] = "true"
	s.SecurityGroupPolicies = []snapshot.PolicyCount{{Kind: snapshot.KindSecurityGroupPolicy, Count: 2,
		Names: []string{"shop/payments", "shop/orders"}}}
}

// poolRequires sets the default NodePool's requirements.
func poolRequires(reqs ...snapshot.Requirement) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) { s.NodePools[0].Requirements = reqs }
}

func req(key, op string, values ...string) snapshot.Requirement {
	return snapshot.Requirement{Key: key, Operator: op, Values: values}
}

func TestSGPUnsupportedTypes(t *testing.T) {
	// The newest Intel network-optimised families: Karpenter v1.14.1 trunks them, the
	// controller's v1.7.19 table does not list them.
	intel8 := edits(withSGPs, poolRequires(req(labelInstanceCategory, "In", "c", "m", "r"),
		req(labelInstanceGeneration, "Gt", "7"), req(corev1.LabelArchStable, "In", "amd64"),
		req(labelInstanceSize, "In", "large")))
	runCheckCases(t, sgpUnsupportedTypes, []checkCase{
		{name: "healthy cluster is silent"},
		{name: "no SecurityGroupPolicies is silent", edit: poolRequires(req(labelInstanceGeneration, "Gt", "7"))},
		{name: "a NodePool of supported types is silent", edit: edits(withSGPs, poolRequires(req(labelInstanceFamily, "In", "m5", "c6i", "t3")))},
		{name: "types neither table trunks are silent", edit: edits(withSGPs, poolRequires(req(labelInstanceFamily, "In", "t3", "c4")))},
		{name: "a Windows NodePool is silent", edit: edits(withSGPs, poolRequires(req(corev1.LabelOSStable, "In", "windows"), req(labelInstanceGeneration, "Gt", "7")))},
		{name: "a label karpnet does not know admits nothing", edit: edits(withSGPs, poolRequires(req("karpenter.k8s.aws/instance-gpu-count", "Gt", "0")))},
		{
			name: "a NodePool admitting the newest Intel families fires",
			edit: intel8,
			want: []Finding{{ID: "sgp-unsupported-types", Severity: Warning, Resource: "nodepool/default",
				Message: "NodePool default admits 8 instance types that Karpenter v1.14.1 gives vpc.amazonaws.com/pod-eni capacity " +
					"but the VPC resource controller v1.7.19 does not trunk (its pkg/aws/vpc/limits.go): " +
					"c8ib.large (Karpenter pod-eni 8), c8in.large (Karpenter pod-eni 8), c8ine.large (Karpenter pod-eni 8), " +
					"m8ib.large (Karpenter pod-eni 8), m8in.large (Karpenter pod-eni 8) and 3 more; with 2 " +
					"SecurityGroupPolicies (shop/payments, shop/orders), pods they select may get such a node, which the " +
					"controller gives no trunk ENI, and stay Pending",
				Remedy: "keep those types out of NodePool default (the command adds karpenter.k8s.aws/instance-family NotIn " +
					"[c8ib, c8in, c8ine, m8ib, m8in, m8ine, r8ib, r8in]), or run a VPC resource controller whose limits table " +
					"lists them (EKS runs it in the control plane, at a version karpnet cannot read: a newer one may trunk " +
					"them; its node events say \"not supported yet by the vpc resource controller\" when it does not)",
				Commands: []Command{{Argv: []string{"kubectl", "patch", "nodepool", "default", "--type", "json", "-p",
					`[{"op":"add","path":"/spec/template/spec/requirements/-","value":{"key":"karpenter.k8s.aws/instance-family","operator":"NotIn","values":["c8ib","c8in","c8ine","m8ib","m8in","m8ine","r8ib","r8in"]}}]`},
					Changes: "nodepool/default",
					Affects: "the NodePool's nodes of those types drift and Karpenter replaces them: no node now; its other nodes stay: 1 node (m5.large)"}}}},
		},
		{
			name: "a family with trunked types is excluded type by type",
			edit: edits(withSGPs, poolRequires(req(labelInstanceFamily, "In", "c7i"))),
			want: []Finding{{ID: "sgp-unsupported-types", Severity: Warning, Resource: "nodepool/default",
				Message: "NodePool default admits 1 instance type that Karpenter v1.14.1 gives vpc.amazonaws.com/pod-eni capacity " +
					"but the VPC resource controller v1.7.19 does not trunk (its pkg/aws/vpc/limits.go): " +
					"c7i.32xlarge (Karpenter pod-eni 107); with 2 SecurityGroupPolicies (shop/payments, shop/orders), pods " +
					"they select may get such a node, which the controller gives no trunk ENI, and stay Pending",
				Remedy: "keep those types out of NodePool default (the command adds node.kubernetes.io/instance-type NotIn " +
					"[c7i.32xlarge]), or run a VPC resource controller whose limits table lists them (EKS runs it in the " +
					"control plane, at a version karpnet cannot read: a newer one may trunk them; its node events say \"not " +
					"supported yet by the vpc resource controller\" when it does not)",
				Commands: []Command{{Argv: []string{"kubectl", "patch", "nodepool", "default", "--type", "json", "-p",
					`[{"op":"add","path":"/spec/template/spec/requirements/-","value":{"key":"node.kubernetes.io/instance-type","operator":"NotIn","values":["c7i.32xlarge"]}}]`},
					Changes: "nodepool/default",
					Affects: "the NodePool's nodes of those types drift and Karpenter replaces them: no node now; its other nodes stay: 1 node (m5.large)"}}}},
		},
	})
}

// TestTypeAdmitted evaluates requirements on the labels Karpenter gives a type.
func TestTypeAdmitted(t *testing.T) {
	c8in, _ := maxpods.PodENI("c8in.large")
	m9g, _ := maxpods.PodENI("m9g.large")
	for _, tc := range []struct {
		t    maxpods.PodENIType
		reqs []snapshot.Requirement
		want bool
	}{
		{c8in, nil, true},
		{c8in, []snapshot.Requirement{req(labelInstanceCategory, "In", "c")}, true},
		{c8in, []snapshot.Requirement{req(labelInstanceGeneration, "Lt", "8")}, false},
		{c8in, []snapshot.Requirement{req(labelInstanceHypervisor, "NotIn", "xen")}, true},
		{c8in, []snapshot.Requirement{req(labelInstanceCPU, "Gt", "2")}, false},
		{c8in, []snapshot.Requirement{req(labelInstanceMemory, "In", "4096")}, true},
		{c8in, []snapshot.Requirement{req(corev1.LabelTopologyZone, "In", "us-west-2a"), req("team", "Exists")}, true},
		{c8in, []snapshot.Requirement{req(corev1.LabelInstanceTypeStable, "NotIn", "c8in.large")}, false},
		{m9g, []snapshot.Requirement{req(corev1.LabelArchStable, "In", "arm64")}, false},
		{m9g, []snapshot.Requirement{req(labelInstanceFamily, "In", "m9g")}, true},
	} {
		if got := typeAdmitted(tc.reqs, tc.t); got != tc.want {
			var rs []string
			for _, r := range tc.reqs {
				rs = append(rs, r.Key+" "+r.Operator+" "+strings.Join(r.Values, ","))
			}
			t.Errorf("typeAdmitted(%v, %s) = %v, want %v", rs, tc.t.Name, got, tc.want)
		}
	}
}
