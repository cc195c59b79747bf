package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// multiKubeconfig writes a kubeconfig with the given contexts (current: the first) and returns
// its path.
func multiKubeconfig(t *testing.T, contexts ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\ncurrent-context: " + contexts[0] + "\nclusters:\n")
	for i, c := range contexts {
		fmt.Fprintf(&b, "- name: %s\n  cluster:\n    server: https://127.0.0.1:%d\n", c, 6443+i)
	}
	b.WriteString("users:\n- name: u\n  user:\n    token: t\ncontexts:\n")
	for _, c := range contexts {
		fmt.Fprintf(&b, "- name: %s\n  context:\n    cluster: %s\n    user: u\n", c, c)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// multiClusters are the clusters of a run over several contexts, by context: a healthy
// cluster, or one whose node liveNodeB has no instance (instance-not-found, critical), or
// unreachable (its API server refuses connections).
type multiClusters struct {
	kubeconfig string
	make       map[string]func(t *testing.T) *collect.Collector
	// accounts gives a context's collector a known EC2 account.
	accounts map[string]string
	// budgets records the budget each context was given.
	budgets atomic.Pointer[collect.EC2Budget]
}

// healthyCollector reads testdata/live through its own simulated EC2, behind at.
func healthyCollector(t *testing.T, c *liveCluster, name string) *collect.Collector {
	t.Helper()
	col, _ := clientsCollector(c.kube, c.dyn, c.url)(t.Context(), &commonOptions{})
	col.Context = name
	col.Cluster = "https://" + name + ".example:443"
	col.KubeconfigClusterName = name
	return col
}

// brokenCluster is testdata/live whose EC2 lacks the instance of liveNodeB.
func brokenCluster(t *testing.T) *liveCluster {
	t.Helper()
	c := newLiveCluster(t)
	sim := ec2sim.New()
	state := loadEC2State(t)
	sim.AddInstances(state.Instances[0])
	sim.AddSubnets(state.Subnets...)
	sim.AddSecurityGroups(state.SecurityGroups...)
	sim.AddInstanceTypes(state.InstanceTypes...)
	c.sim = sim
	c.url = sim.Start(t)
	return c
}

// unreachableCollector's API server refuses every connection.
func unreachableCollector(name string) *collect.Collector {
	refuse := func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, &url.Error{Op: "Get", URL: "https://127.0.0.1:1/api/v1/nodes",
			Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	}
	kube := k8sfake.NewClientset()
	kube.PrependReactor("*", "*", refuse)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), liveListKinds())
	dyn.PrependReactor("*", "*", refuse)
	return &collect.Collector{Kube: kube, Dynamic: dyn, Context: name, Cluster: "https://127.0.0.1:1",
		Now: func() time.Time { return liveTaken }}
}

// standardClusters: a healthy, b broken, c unreachable.
func standardClusters(t *testing.T) *multiClusters {
	t.Helper()
	return &multiClusters{
		kubeconfig: multiKubeconfig(t, "a", "b", "c"),
		make: map[string]func(t *testing.T) *collect.Collector{
			"a": func(t *testing.T) *collect.Collector { return healthyCollector(t, newLiveCluster(t), "a") },
			"b": func(t *testing.T) *collect.Collector { return healthyCollector(t, brokenCluster(t), "b") },
			"c": func(*testing.T) *collect.Collector { return unreachableCollector("c") },
		},
	}
}

// options returns test options whose contexts read these clusters.
func (m *multiClusters) options(t *testing.T) *commonOptions {
	o, _, _ := newTestOptions()
	o.now = func() time.Time { return liveTaken }
	o.newContextCollector = func(_ context.Context, _ *commonOptions, name string, budget *collect.EC2Budget) (*collect.Collector, error) {
		m.budgets.Store(budget)
		f := m.make[name]
		if f == nil {
			return nil, errors.New("no such test cluster " + name)
		}
		c := f(t)
		if c.EC2 != nil {
			c.EC2Budget, c.EC2Identity, c.EC2Account = budget, "profile "+name, m.accounts[name]
		}
		return c, nil
	}
	return o
}

// run runs karpnet with --kubeconfig and args.
func (m *multiClusters) run(t *testing.T, args ...string) result {
	t.Helper()
	return runWith(t, m.options(t), append([]string{"--kubeconfig", m.kubeconfig}, args...)...)
}
