package collect

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// kubeListNodes lists one page of nodes. Through Collector.REST (the live collector) it is the
// request the typed client makes, but an answer that is not a node list is a
// *kubeAnswerError naming the HTTP status and content type.
func (c *Collector) kubeListNodes(ctx context.Context, opts metav1.ListOptions) (*corev1.NodeList, error) {
	if c.REST == nil {
		return c.Kube.CoreV1().Nodes().List(ctx, opts)
	}
	list := &corev1.NodeList{}
	req := c.REST.Get().AbsPath("/api/v1/nodes").UseProtobufAsDefaultIfPreferred(true).
		VersionedParams(&opts, scheme.ParameterCodec).Timeout(0)
	return list, kubeDo(ctx, req, "node list", list)
}

// kubeGetNode reads one node, as kubeListNodes lists them.
func (c *Collector) kubeGetNode(ctx context.Context, name string) (*corev1.Node, error) {
	if c.REST == nil {
		return c.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	}
	node := &corev1.Node{}
	req := c.REST.Get().AbsPath("/api/v1/nodes", name).UseProtobufAsDefaultIfPreferred(true).
		VersionedParams(&metav1.GetOptions{}, scheme.ParameterCodec)
	return node, kubeDo(ctx, req, "node", node)
}

// kubeDo sends req and decodes its answer into obj, what it names. A successful HTTP answer
// that does not decode is a *kubeAnswerError with its status and content type.
func kubeDo(ctx context.Context, req *rest.Request, what string, obj runtime.Object) error {
	var status int
	var contentType string
	err := req.Do(ctx).StatusCode(&status).ContentType(&contentType).Into(obj)
	if err != nil && status >= 200 && status < 300 {
		return &kubeAnswerError{what: what, status: status, contentType: contentType, err: err}
	}
	return err
}
