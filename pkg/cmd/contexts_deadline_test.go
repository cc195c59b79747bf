package cmd

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// hangingCollector's API server accepts every request and never answers (until the test ends),
// and ignores cancellation, as a proxy that holds connections open can; its collection
// deadline is deadline.
func hangingCollector(t *testing.T, name string, deadline time.Duration) *collect.Collector {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hang := func(k8stesting.Action) (bool, runtime.Object, error) {
		<-release
		return true, nil, errors.New("released at the end of the test")
	}
	kube := k8sfake.NewClientset()
	kube.PrependReactor("*", "*", hang)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), liveListKinds())
	dyn.PrependReactor("*", "*", hang)
	return &collect.Collector{Kube: kube, Dynamic: dyn, Context: name, Cluster: "https://" + name + ".example:443",
		Now: func() time.Time { return liveTaken }, Deadline: deadline}
}

// TestContextsHungClusterIsUnreachableWithinTheDeadline reads c01, c02 and c03 where c02's API
// server never answers: the report comes within c02's collection deadline, with c01 and c03
// read and c02 unreachable, its gap naming the deadline.
func TestContextsHungClusterIsUnreachableWithinTheDeadline(t *testing.T) {
	const deadline = 300 * time.Millisecond
	m := &multiClusters{
		kubeconfig: multiKubeconfig(t, "c01", "c02", "c03"),
		make: map[string]func(t *testing.T) *collect.Collector{
			"c01": func(t *testing.T) *collect.Collector { return healthyCollector(t, newLiveCluster(t), "c01") },
			"c02": func(t *testing.T) *collect.Collector { return hangingCollector(t, "c02", deadline) },
			"c03": func(t *testing.T) *collect.Collector { return healthyCollector(t, newLiveCluster(t), "c03") },
		},
	}
	start := time.Now()
	j := m.run(t, "check", "--contexts", "c01,c02,c03", "-o", "json")
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the run took %v, want it within c02's deadline of %v and the grace after it", took, deadline)
	}
	var rep multiReport
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil {
		t.Fatalf("%v: stdout %q stderr %q", err, j.stdout, j.stderr)
	}
	type cluster struct{ Ctx, Status string }
	var got []cluster
	for _, c := range rep.Clusters {
		got = append(got, cluster{c.Context, c.Status})
	}
	want := []cluster{{"c01", "ok"}, {"c02", "unreachable"}, {"c03", "ok"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("clusters (-want +got):\n%s", diff)
	}
	if len(rep.Clusters) == 3 && !strings.Contains(rep.Clusters[1].Gap, "did not finish within 300ms") {
		t.Errorf("c02's gap: got %q, want it to name the deadline", rep.Clusters[1].Gap)
	}
}
