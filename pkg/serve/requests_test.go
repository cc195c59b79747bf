package serve

import (
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostile"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// TestEC2RequestsCountEveryAttempt counts through the real SDK against the EC2 simulator: a
// call throttled twice is three requests, as EC2 counts them.
func TestEC2RequestsCountEveryAttempt(t *testing.T) {
	sim := ec2sim.New()
	sim.AddSubnets(snapshot.Subnet{ID: "subnet-1", CIDR: "10.0.0.0/24", Zone: "us-west-2a", AvailableIPs: 10})
	url := sim.Start(t)
	req := NewRequests()
	api := req.WrapEC2(ec2sim.NewClient(url, "us-west-2"))
	if got := api.(interface{ Options() ec2.Options }).Options().Region; got != "us-west-2" {
		t.Errorf("the wrapped client's Region: %q, want us-west-2 (the collector reads it)", got)
	}

	sim.Fail(ec2sim.DescribeSubnets, "RequestLimitExceeded", 2)
	out, err := api.DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-1"}})
	if err != nil || len(out.Subnets) != 1 {
		t.Fatalf("DescribeSubnets: %v, %v", out, err)
	}
	if _, err := api.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{MaxResults: aws.Int32(5)}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"DescribeSubnets": 3, "DescribeInstances": 1}
	if diff := cmp.Diff(want, req.EC2()); diff != "" {
		t.Errorf("counted EC2 requests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(sim.Counts(), req.EC2()); diff != "" {
		t.Errorf("counted EC2 requests differ from those the server received (-server +counted):\n%s", diff)
	}
	if req.WrapEC2(nil) != nil {
		t.Error("WrapEC2(nil): want nil, so the collector still sees no EC2 client")
	}
}

// TestKubeRequestsCountByVerbAndResource counts real client-go requests to a test API server.
func TestKubeRequestsCountByVerbAndResource(t *testing.T) {
	k := hostile.NewKube()
	url := k.Start(t)
	req := NewRequests()
	cfg := &rest.Config{Host: url}
	cfg.Wrap(req.WrapTransport)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	_, _ = cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	_, _ = cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	_, _ = cs.CoreV1().Nodes().Get(ctx, "ip-10-0-1-10", metav1.GetOptions{})
	_, _ = cs.AppsV1().DaemonSets("kube-system").Get(ctx, "aws-node", metav1.GetOptions{})
	_, _ = cs.CoreV1().Events("").List(ctx, metav1.ListOptions{})
	want := map[string]int{"list nodes": 2, "get nodes": 1, "get daemonsets": 1, "list events": 1}
	if diff := cmp.Diff(want, req.Kube()); diff != "" {
		t.Errorf("counted Kubernetes requests (-want +got):\n%s", diff)
	}
	if got := len(k.Requests()); got != 5 {
		t.Errorf("the server received %d requests, want the 5 counted", got)
	}
}

func TestKubeRequestOf(t *testing.T) {
	for _, c := range []struct {
		method, path string
		want         kubeRequest
	}{
		{http.MethodGet, "/api/v1/nodes", kubeRequest{"list", "nodes"}},
		{http.MethodGet, "/api/v1/nodes/ip-1", kubeRequest{"get", "nodes"}},
		{http.MethodGet, "/api/v1/events", kubeRequest{"list", "events"}},
		{http.MethodGet, "/api/v1/namespaces/default/events", kubeRequest{"list", "events"}},
		{http.MethodGet, "/apis/karpenter.sh/v1/nodeclaims", kubeRequest{"list", "nodeclaims"}},
		{http.MethodGet, "/apis/karpenter.k8s.aws/v1beta1/ec2nodeclasses/default", kubeRequest{"get", "ec2nodeclasses"}},
		{http.MethodGet, "/apis/apps/v1/namespaces/kube-system/daemonsets/aws-node", kubeRequest{"get", "daemonsets"}},
		{http.MethodGet, "/apis/apps/v1/namespaces/kube-system", kubeRequest{"get", "namespaces"}},
		{http.MethodGet, "/version", kubeRequest{"get", "other"}},
		{http.MethodGet, "/apis", kubeRequest{"get", "other"}},
		{http.MethodGet, "/api/v1", kubeRequest{"get", "other"}},
		{http.MethodPost, "/api/v1/nodes", kubeRequest{"create", "nodes"}},
		{"PROPFIND", "/api/v1/nodes", kubeRequest{"other", "nodes"}},
	} {
		if got := kubeRequestOf(c.method, c.path); got != c.want {
			t.Errorf("kubeRequestOf(%s %s) = %v, want %v", c.method, c.path, got, c.want)
		}
	}
}
