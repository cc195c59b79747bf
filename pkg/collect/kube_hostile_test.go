package collect

import (
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostile"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil/kubelist"
)

// kubeHostile returns an API server over the Kubernetes fixtures of testdata/kube (nodes,
// aws-node, events, v1 Karpenter objects, ENIConfigs), to be given faults.
func kubeHostile(t *testing.T) *hostile.Kube {
	t.Helper()
	var objects []unstructured.Unstructured
	for _, f := range []string{"nodes.yaml", "aws-node.yaml", "events.yaml", "nodeclaims-v1.yaml", "nodepools-v1.yaml",
		"ec2nodeclasses-v1.yaml", "eniconfigs.yaml"} {
		items, err := kubelist.Read(filepath.Join("testdata", "kube", f))
		if err != nil {
			t.Fatal(err)
		}
		objects = append(objects, items...)
	}
	return hostile.NewKube(objects...)
}

// kubeHostileCollector starts k and returns a collector with real clients of it, without a
// client-side rate limit, each request bounded by timeout (0: unbounded), and pages of
// pageSize (0: the default).
func kubeHostileCollector(t *testing.T, k *hostile.Kube, timeout time.Duration, pageSize int64) *Collector {
	t.Helper()
	url := k.Start(t)
	cfg := &rest.Config{Host: url, QPS: -1, Timeout: timeout}
	cfg.Wrap(RecordKubeAnswers)
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &Collector{Kube: kube, Dynamic: dyn, REST: kube.CoreV1().RESTClient(), Cluster: url, PageSize: pageSize, RequestTimeout: timeout}
}
