package e2e

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// dnsChecks are the checks of the DNS path and of the policy agent's health and version.
const dnsChecks = "vpc-dns-disabled,dhcp-options-custom-dns,coredns-replicas-concentrated," +
	"network-policy-agent-version-mismatch,network-policy-agent-unhealthy"

// coreDNSPod creates a CoreDNS pod bound to node, as the scheduler leaves it (with kube-system's
// default service account, which the API server's admission looks up).
func (w *world) coreDNSPod(name, node string) {
	w.t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "kube-system"}}
	if _, err := w.kube.CoreV1().ServiceAccounts("kube-system").Create(w.t.Context(), sa, metav1.CreateOptions{}); err != nil &&
		!apierrors.IsAlreadyExists(err) {
		w.t.Fatalf("creating kube-system's default service account: %v", err)
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system", Labels: map[string]string{"k8s-app": "kube-dns"}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "coredns",
			Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/coredns:v1.12.4-eksbuild.1"}}}}
	if _, err := w.kube.CoreV1().Pods("kube-system").Create(w.t.Context(), p, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating CoreDNS pod %s: %v", name, err)
	}
}

// dhcpOptions creates a DHCP options set with servers and associates it with the world's VPC.
func (w *world) dhcpOptions(servers ...string) {
	w.t.Helper()
	ctx := w.t.Context()
	out, err := w.ec2.CreateDhcpOptions(ctx, &ec2.CreateDhcpOptionsInput{DhcpConfigurations: []ec2types.NewDhcpConfiguration{
		{Key: aws.String("domain-name-servers"), Values: servers}}})
	if err != nil {
		w.t.Fatalf("creating a DHCP options set: %v", err)
	}
	if _, err := w.ec2.AssociateDhcpOptions(ctx, &ec2.AssociateDhcpOptionsInput{
		DhcpOptionsId: out.DhcpOptions.DhcpOptionsId, VpcId: aws.String(w.vpcID)}); err != nil {
		w.t.Fatalf("associating the DHCP options set: %v", err)
	}
}

// vpcAttribute sets one DNS attribute of the world's VPC.
func (w *world) vpcAttribute(support, hostnames *bool) {
	w.t.Helper()
	in := &ec2.ModifyVpcAttributeInput{VpcId: aws.String(w.vpcID)}
	if support != nil {
		in.EnableDnsSupport = &ec2types.AttributeBooleanValue{Value: support}
	}
	if hostnames != nil {
		in.EnableDnsHostnames = &ec2types.AttributeBooleanValue{Value: hostnames}
	}
	if _, err := w.ec2.ModifyVpcAttribute(w.t.Context(), in); err != nil {
		w.t.Fatalf("modifying %s: %v", w.vpcID, err)
	}
}

// TestDNSPathAndPolicyAgent reads the DNS path of the lab's VPC from moto (its attributes and
// DHCP options set), CoreDNS's pods and aws-node's two images from the API server: healthy
// twins first (DNS on, AmazonProvidedDNS, replicas over two zones, a paired VPC CNI and agent),
// then each broken shape.
func TestDNSPathAndPolicyAgent(t *testing.T) {
	w := policyWorld(t, true)
	const dom = ".us-west-2.compute.internal"
	b := subnetRef{w.subnet("10.0.16.0/20", "us-west-2b"), "us-west-2b"}
	sgs := []string{w.securityGroup("e2e-nodes-b", false)}
	w.karpenterNode("ip-10-0-16-10"+dom, "default", "default", "v1", w.cniLaunch(b.id, "10.0.16.10", sgs), 29, nil)
	w.coreDNSPod("coredns-a", "ip-10-0-0-10"+dom)
	w.coreDNSPod("coredns-b", "ip-10-0-16-10"+dom)
	w.networkPolicy("default-deny")

	check := func() jsonReport {
		t.Helper()
		r := karpnet(t, runOpts{}, "check", "-o", "json", "--fail-on", "critical", "--only", dnsChecks)
		return decode(t, r)
	}
	// Healthy twins: DNS support and hostnames on, no DHCP options set (AmazonProvidedDNS), CoreDNS
	// over two zones, VPC CNI v1.23.1 with agent v1.4.2, and no aws-node pod with a failing agent.
	if got := check().set(); len(got) != 0 {
		t.Fatalf("findings of the healthy shapes: %v", got)
	}

	// A Route 53 Resolver at the VPC's base plus two is the Amazon DNS server: still healthy.
	w.dhcpOptions("10.0.0.2")
	if got := check().set(); len(got) != 0 {
		t.Errorf("findings with the VPC's own resolver in the DHCP options: %v", got)
	}
	// Corporate servers: information, with the read-only Route 53 command.
	w.dhcpOptions("10.9.0.10", "10.9.1.10")
	rep := check()
	want := []finding{{"dhcp-options-custom-dns", "info", "", "vpc/" + w.vpcID}}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings with corporate DNS servers (-want +got):\n%s", diff)
	} else if c := commandLines(rep.Findings[0].Commands); !strings.Contains(c, "aws route53 list-hosted-zones-by-vpc --vpc-id "+w.vpcID) {
		t.Errorf("the remedy does not list the VPC's hosted zones: %s", c)
	}
	w.dhcpOptions("AmazonProvidedDNS")

	// DNS hostnames off: a warning; DNS support off too: critical.
	off := false
	w.vpcAttribute(nil, &off)
	want = []finding{{"vpc-dns-disabled", "warning", "", "vpc/" + w.vpcID}}
	if diff := cmpDiff(want, check().set()); diff != "" {
		t.Errorf("findings with DNS hostnames off (-want +got):\n%s", diff)
	}
	w.vpcAttribute(&off, nil)
	rep = check()
	want = []finding{{"vpc-dns-disabled", "critical", "", "vpc/" + w.vpcID}}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings with DNS support off (-want +got):\n%s", diff)
	} else if c := commandLines(rep.Findings[0].Commands); !strings.Contains(c, "--enable-dns-support") || !strings.Contains(c, "--enable-dns-hostnames") {
		t.Errorf("the remedy does not turn both attributes on: %s", c)
	}
	on := true
	w.vpcAttribute(&on, nil)
	w.vpcAttribute(nil, &on)

	// Both CoreDNS replicas on one node.
	if err := w.kube.CoreV1().Pods("kube-system").Delete(t.Context(), "coredns-b", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatalf("deleting coredns-b: %v", err)
	}
	w.coreDNSPod("coredns-c", "ip-10-0-0-10"+dom)
	want = []finding{{"coredns-replicas-concentrated", "warning", "", "deployment/kube-system/coredns"}}
	if diff := cmpDiff(want, check().set()); diff != "" {
		t.Errorf("findings with CoreDNS on one node (-want +got):\n%s", diff)
	}

	// The node's aws-node pod with its agent crash-looping, as the kubelet reports it.
	agentPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "aws-node-x7k2p", Namespace: "kube-system",
		Labels: map[string]string{"k8s-app": "aws-node"}}, Spec: corev1.PodSpec{NodeName: "ip-10-0-0-10" + dom,
		Containers: []corev1.Container{{Name: "aws-node", Image: "amazon-k8s-cni:v1.23.1"},
			{Name: "aws-eks-nodeagent", Image: "aws-network-policy-agent:v1.4.2"}}}}
	agentPod, err := w.kube.CoreV1().Pods("kube-system").Create(t.Context(), agentPod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the aws-node pod: %v", err)
	}
	agentPod.Status = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
		{Name: "aws-node", Ready: true, Image: "amazon-k8s-cni:v1.23.1"},
		{Name: "aws-eks-nodeagent", RestartCount: 9, Image: "aws-network-policy-agent:v1.4.2",
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1}}},
	}}
	if _, err := w.kube.CoreV1().Pods("kube-system").UpdateStatus(t.Context(), agentPod, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("writing the aws-node pod's status: %v", err)
	}
	rep = check()
	want = []finding{
		{"coredns-replicas-concentrated", "warning", "", "deployment/kube-system/coredns"},
		{"network-policy-agent-unhealthy", "warning", "ip-10-0-0-10" + dom, "node/ip-10-0-0-10" + dom},
	}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings with the agent crash-looping (-want +got):\n%s", diff)
	}
	if err := w.kube.CoreV1().Pods("kube-system").Delete(t.Context(), "aws-node-x7k2p", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatalf("deleting the aws-node pod: %v", err)
	}

	// An agent before v1.4.1 beside VPC CNI v1.23.1, policies on: critical.
	if err := w.kube.AppsV1().DaemonSets("kube-system").Delete(t.Context(), "aws-node", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting aws-node: %v", err)
	}
	w.awsNodeWith(map[string]string{"NETWORK_POLICY_ENFORCING_MODE": "strict"}, func(ds *appsv1.DaemonSet) {
		policyAgent(true)(ds)
		c := &ds.Spec.Template.Spec.Containers[len(ds.Spec.Template.Spec.Containers)-1]
		c.Image = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon/aws-network-policy-agent:v1.3.5-eksbuild.1"
	})
	rep = check()
	want = []finding{
		{"coredns-replicas-concentrated", "warning", "", "deployment/kube-system/coredns"},
		{"network-policy-agent-version-mismatch", "critical", "", "daemonset/kube-system/aws-node"},
	}
	if diff := cmpDiff(want, rep.set()); diff != "" {
		t.Errorf("findings with agent v1.3.5 (-want +got):\n%s", diff)
	}
}
