package collect

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubePodPages is the most pages of kubeDefaultPageSize pods karpnet reads in one list of pods
// (those off the host network, or one node agent's): 5,000 pods. The pods of a large cluster
// are many times its nodes, and its budget of requests grows with the nodes only: past this
// the list stops and a gap says so, rather than read millions of pods.
const kubePodPages = 10

// errKubeTooManyPods ends a list of pods that ran past kubePodPages.
var errKubeTooManyPods = errors.New("too many pods")

// kubePodPaginate is kubePaginate bounded to kubePodPages pages of the collector's page size
// (the bound counts pods: a smaller page size reads more pages of the same 5,000 pods): a list
// with more ends with errKubeTooManyPods.
func (c *Collector) kubePodPaginate(opts metav1.ListOptions, page func(metav1.ListOptions) (string, error)) error {
	most := kubePodPages * kubeDefaultPageSize / c.kubePageSize()
	read := int64(0)
	return kubePaginate(opts, func(opts metav1.ListOptions) (string, error) {
		if read >= most {
			return "", errKubeTooManyPods
		}
		read++
		return page(opts)
	})
}

// kubeTooManyPodsGap is the gap of a list of pods stopped at kubePodPages: what was read of it
// is dropped, as a part would judge some nodes and not others.
func kubeTooManyPodsGap(source, what, remedy string) snapshot.Gap {
	return snapshot.Gap{
		Source: source,
		Reason: fmt.Sprintf("more than %d %s: karpnet stops reading there", kubePodPages*kubeDefaultPageSize, what),
		Remedy: remedy,
	}
}
