package collect

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/karpnet/kubectl-karpnet/internal/ec2xml"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// internKey is the context key of a collection's *snapshot.Interner.
type internKey struct{}

// withInterner returns ctx carrying a new interner for one collection: the nodes, NodeClaims
// and instances it decodes share their repeated strings as they are decoded.
func withInterner(ctx context.Context) context.Context {
	return context.WithValue(ctx, internKey{}, snapshot.NewInterner())
}

// internerOf returns the collection's interner, nil (interning nothing) outside Collect.
func internerOf(ctx context.Context) *snapshot.Interner {
	x, _ := ctx.Value(internKey{}).(*snapshot.Interner)
	return x
}

// ec2InstanceIn converts in, its strings interned with the collection's.
func ec2InstanceIn(ctx context.Context, in types.Instance) snapshot.Instance {
	v := ec2xml.Instance(in)
	internerOf(ctx).Instance(&v)
	return v
}
