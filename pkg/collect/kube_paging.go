package collect

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubeMaxPages is the most pages karpnet follows in one Kubernetes list. The node list and
// kube-system's pods by label are the only ones read in pages (custom resources and events
// come from the watch cache in one answer): 100,000 nodes, past the largest EKS clusters, are
// 200 pages of 500, so 1,000 pages leave five times that, while a server whose continue tokens
// never end costs at most 1,000 requests (20 s at the 50 requests per second karpnet allows
// itself) instead of a run that never ends.
const kubeMaxPages = 1000

// kubePagingError is a list whose continue tokens would not end: a token came back that had
// been followed already (the pages cycle), or the list ran past kubeMaxPages. What was read
// until then is kept.
type kubePagingError struct {
	pages    int
	repeated bool
}

func (e *kubePagingError) Error() string {
	if e.repeated {
		return fmt.Sprintf("the list did not end: page %d came back with a continue token already followed", e.pages)
	}
	return fmt.Sprintf("the list did not end: still more after %d pages, the most karpnet reads", e.pages)
}

// kubePaginate calls page with opts, then with each Continue token in turn until the server
// returns an empty token. A continued request carries no resourceVersion: the token holds it.
// A token seen before, or a page past kubeMaxPages, ends it with a *kubePagingError.
func kubePaginate(opts metav1.ListOptions, page func(metav1.ListOptions) (string, error)) error {
	seen := map[string]bool{}
	for pages := 1; ; pages++ {
		next, err := page(opts)
		if err != nil {
			return err
		}
		switch {
		case next == "":
			return nil
		case seen[next]:
			return &kubePagingError{pages: pages, repeated: true}
		case pages >= kubeMaxPages:
			return &kubePagingError{pages: pages}
		}
		seen[next] = true
		opts.Continue, opts.ResourceVersion, opts.ResourceVersionMatch = next, "", ""
	}
}
