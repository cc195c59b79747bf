package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// The nodes of testdata/live, and the moment the live collector stamps its snapshots.
const (
	liveNodeA = "ip-10-0-1-10.us-west-2.compute.internal"
	liveNodeB = "ip-10-0-40-20.us-west-2.compute.internal"
)

var liveTaken = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

// liveCluster is a healthy two-node Karpenter cluster: the Kubernetes fakes and a simulated
// EC2 that holds the nodes' instances, subnets, security groups and instance type.
type liveCluster struct {
	kube *k8sfake.Clientset
	dyn  *dynamicfake.FakeDynamicClient
	sim  *ec2sim.Server
	url  string
}

// liveListKinds maps the custom resources karpnet lists to their list kinds.
func liveListKinds() map[schema.GroupVersionResource]string {
	return map[schema.GroupVersionResource]string{
		{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}:                             "NodeClaimList",
		{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}:                              "NodePoolList",
		{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}:                    "EC2NodeClassList",
		{Group: "eks.amazonaws.com", Version: "v1", Resource: "nodeclasses"}:                       "NodeClassList",
		{Group: "crd.k8s.amazonaws.com", Version: "v1alpha1", Resource: "eniconfigs"}:              "ENIConfigList",
		{Group: "networking.k8s.aws", Version: "v1alpha1", Resource: "clusternetworkpolicies"}:     "ClusterNetworkPolicyList",
		{Group: "networking.k8s.aws", Version: "v1alpha1", Resource: "applicationnetworkpolicies"}: "ApplicationNetworkPolicyList",
	}
}

// newLiveCluster builds the cluster of testdata/live.
func newLiveCluster(t *testing.T) *liveCluster {
	t.Helper()
	var typed []runtime.Object
	for _, u := range testutil.LoadList(t, filepath.Join("testdata", "live", "kube.yaml")) {
		js, err := u.MarshalJSON()
		if err != nil {
			t.Fatalf("encoding %s: %v", u.GetName(), err)
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(js, nil, nil)
		if err != nil {
			t.Fatalf("decoding %s: %v", u.GetName(), err)
		}
		typed = append(typed, obj)
	}
	var custom []runtime.Object
	for _, u := range testutil.LoadList(t, filepath.Join("testdata", "live", "karpenter.yaml")) {
		custom = append(custom, u.DeepCopy())
	}
	c := &liveCluster{
		kube: k8sfake.NewClientset(typed...),
		dyn:  dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), liveListKinds(), custom...),
		sim:  loadEC2(t),
	}
	c.url = c.sim.Start(t)
	return c
}

// loadEC2 returns a simulated EC2 holding what testdata/live/ec2.json lists.
func loadEC2(t *testing.T) *ec2sim.Server {
	t.Helper()
	state := loadEC2State(t)
	sim := ec2sim.New()
	sim.AddInstances(state.Instances...)
	sim.AddSubnets(state.Subnets...)
	sim.AddSecurityGroups(state.SecurityGroups...)
	sim.AddInstanceTypes(state.InstanceTypes...)
	return sim
}

// liveEC2State is what testdata/live/ec2.json lists.
type liveEC2State struct {
	Instances      []snapshot.Instance      `json:"instances"`
	Subnets        []snapshot.Subnet        `json:"subnets"`
	SecurityGroups []snapshot.SecurityGroup `json:"securityGroups"`
	InstanceTypes  []snapshot.InstanceType  `json:"instanceTypes"`
}

// loadEC2State reads testdata/live/ec2.json.
func loadEC2State(t *testing.T) liveEC2State {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "live", "ec2.json"))
	if err != nil {
		t.Fatalf("reading fixture: %v", err)
	}
	var state liveEC2State
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatalf("decoding ec2.json: %v", err)
	}
	return state
}

// collector returns a newCollector that reads this cluster.
func (c *liveCluster) collector() func(context.Context, *commonOptions) (*collect.Collector, error) {
	return clientsCollector(c.kube, c.dyn, c.url)
}

// clientsCollector returns a newCollector over the given Kubernetes clients and the simulated
// EC2 at url.
func clientsCollector(kube kubernetes.Interface, dyn dynamic.Interface, url string) func(context.Context, *commonOptions) (*collect.Collector, error) {
	return func(_ context.Context, o *commonOptions) (*collect.Collector, error) {
		return &collect.Collector{
			Kube:    kube,
			Dynamic: dyn,
			EC2:     ec2sim.NewClient(url, "us-west-2"),
			Region:  o.region,
			// The kubeconfig's `aws eks get-token --cluster-name live`.
			ClusterName: o.clusterName, KubeconfigClusterName: "live",
			Context: "live",
			Cluster: "https://127.0.0.1:6443",
			Now:     func() time.Time { return liveTaken },
		}, nil
	}
}

// options returns test options whose collector reads this cluster.
func (c *liveCluster) options() *commonOptions {
	o, _, _ := newTestOptions()
	o.newCollector = c.collector()
	return o
}

// run runs karpnet with args against this cluster.
func (c *liveCluster) run(t *testing.T, args ...string) result {
	t.Helper()
	return runWith(t, c.options(), args...)
}
