package cmd

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// TestLiveCollectFails checks that a collection that cannot read Kubernetes at all exits 3
// with one line saying why, prints no report and makes no EC2 request.
func TestLiveCollectFails(t *testing.T) {
	// A server that is gone: every request is refused.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	goneCfg := &rest.Config{Host: gone.URL}
	goneKube, err := kubernetes.NewForConfig(goneCfg)
	if err != nil {
		t.Fatal(err)
	}
	goneDyn, err := dynamic.NewForConfig(goneCfg)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		setup func(c *liveCluster) func(context.Context, *commonOptions) (*collect.Collector, error)
		want  []string
	}{
		{
			name: "connection refused",
			setup: func(c *liveCluster) func(context.Context, *commonOptions) (*collect.Collector, error) {
				c.kube.PrependReactor("list", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
				})
				return c.collector()
			},
			want: []string{"cannot reach the API server at https://127.0.0.1:6443", "connection refused", "--context/--kubeconfig"},
		},
		{
			name: "credentials refused",
			setup: func(c *liveCluster) func(context.Context, *commonOptions) (*collect.Collector, error) {
				c.kube.PrependReactor("list", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewUnauthorized("Unauthorized")
				})
				return c.collector()
			},
			want: []string{"refused the credentials", "log in again"},
		},
		{
			name: "server gone",
			setup: func(c *liveCluster) func(context.Context, *commonOptions) (*collect.Collector, error) {
				return clientsCollector(goneKube, goneDyn, c.url)
			},
			want: []string{"cannot reach the API server at " + gone.URL, "connection refused"},
		},
		{
			name: "collector cannot be built",
			setup: func(*liveCluster) func(context.Context, *commonOptions) (*collect.Collector, error) {
				return func(context.Context, *commonOptions) (*collect.Collector, error) {
					return nil, errors.New("loading kubeconfig: invalid configuration: no configuration has been provided: check --kubeconfig and --context")
				}
			},
			want: []string{"loading kubeconfig", "check --kubeconfig"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newLiveCluster(t)
			collector := tt.setup(c)
			for _, args := range [][]string{{"check"}, {"check", "-o", "json"}, {"describe", "node", "-l", "karpenter.sh/nodepool=general"}} {
				o, _, _ := newTestOptions()
				o.newCollector = collector
				r := runWith(t, o, args...)
				wantCode(t, r, ExitCollect)
				wantOneErrorLine(t, r, tt.want...)
				if r.stdout != "" {
					t.Errorf("%v: stdout: got %q, want nothing when nothing was collected", args, r.stdout)
				}
			}
			if c.sim.Total() != 0 {
				t.Errorf("EC2 requests: got %d, want none when Kubernetes cannot be read", c.sim.Total())
			}
		})
	}
}
