package collect

import (
	"context"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// kubeClassesAhead is the EC2NodeClasses list read while the nodes are listed (kubeAhead).
// Besides the classes it keeps the cluster their instance profiles name: an EC2NodeClass that
// gives spec.role has Karpenter make its instance profile, named CLUSTER_HASH after the
// cluster name Karpenter runs with (the one it tags the instances it launches with), which
// status.instanceProfile holds. That name lets the nodes' instances be read by the cluster's
// tag from the first page of nodes on, without first reading some of them by ID to learn it.
type kubeClassesAhead struct {
	done    chan struct{}
	classes []snapshot.EC2NodeClass
	err     error
	// cluster is the one cluster the classes' generated instance profiles name; "" when none
	// does, or when they name several.
	cluster string
}

// kubeReadClassesAhead starts listing the EC2NodeClasses.
func (c *Collector) kubeReadClassesAhead(ctx context.Context) *kubeClassesAhead {
	a := &kubeClassesAhead{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		names := ec2IDSet{}
		a.err = c.kubeListCRD(ctx, kubeNodeClassesCRD(), func(u *unstructured.Unstructured) {
			a.classes = append(a.classes, kubeobj.DecodeNodeClass(u))
			role, _, _ := unstructured.NestedString(u.Object, "spec", "role")
			profile, _, _ := unstructured.NestedString(u.Object, "status", "instanceProfile")
			names.add(kubeClusterOfProfile(role, profile))
		})
		if all := names.sorted(); len(all) == 1 {
			a.cluster = all[0]
		}
	}()
	return a
}

// kubeClusterOfProfile returns the cluster name of an instance profile Karpenter generated
// for an EC2NodeClass's role: CLUSTER_HASH, HASH the decimal digits of a 64-bit hash (a
// cluster name may hold underscores itself). "" when the class gives no role (its profile is
// the user's, named freely) or the name has not that shape.
func kubeClusterOfProfile(role, profile string) string {
	if role == "" {
		return ""
	}
	i := strings.LastIndexByte(profile, '_')
	if i <= 0 {
		return ""
	}
	hash := profile[i+1:]
	if hash == "" || len(hash) > 20 || strings.ContainsFunc(hash, func(r rune) bool { return r < '0' || r > '9' }) {
		return ""
	}
	return profile[:i]
}

// clusterName returns the cluster the classes' instance profiles name once the list is in, or
// "" when it is not in after wait (or ctx ends first).
func (a *kubeClassesAhead) clusterName(ctx context.Context, wait time.Duration) string {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-a.done:
		return a.cluster
	case <-t.C:
	case <-ctx.Done():
	}
	return ""
}

// wait puts the classes read into s, in the order listed (kubeKarpenter sorts them), and turns
// the list's error into a gap or the collection's end as kubeReadCRD does.
func (a *kubeClassesAhead) wait(c *Collector, s *snapshot.Snapshot) error {
	<-a.done
	s.NodeClasses = append(s.NodeClasses, a.classes...)
	return c.kubeCRDRead(s, kubeNodeClassesCRD(), "list", a.err, kubeEC2NodeClassRemedy(s))
}
