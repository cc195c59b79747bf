package collect

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// kubeGetNode reads one node, as kubeNodePage reads the pages of the node list.
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
	return kubeInto(req.Do(ctx), what, obj)
}

// kubeInto decodes an answer into obj as kubeDo does.
func kubeInto(res rest.Result, what string, obj runtime.Object) error {
	var status int
	var contentType string
	err := res.StatusCode(&status).ContentType(&contentType).Into(obj)
	if err != nil && status >= 200 && status < 300 {
		return &kubeAnswerError{what: what, status: status, contentType: contentType, err: err}
	}
	return err
}
