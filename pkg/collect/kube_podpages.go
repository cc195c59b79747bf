package collect

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// kubeTooManyPodsNote is the note of a list of pods stopped at kubePodPages: what was read of it
// is dropped, as a part would judge some nodes and not others, and the checks of those pods
// say nothing. A note, not a gap: a cluster of a few hundred nodes has that many pods every day,
// and a warning on every run would be a false alarm.
func kubeTooManyPodsNote(check, what, byHand string) string {
	return fmt.Sprintf("%s not judged: more than %d %s, where karpnet stops reading pods; %s",
		check, kubePodPages*kubeDefaultPageSize, what, byHand)
}
