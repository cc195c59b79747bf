package collect

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"golang.org/x/sync/errgroup"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// DescribeInstanceTypes returns the network limits of the named instance types in region,
// sorted by name, in concurrent DescribeInstanceTypes calls of at most 100 types each. Names
// EC2 does not know are left out of the result (callers compare it with names). A failed call
// is an error that says what to do about it.
func DescribeInstanceTypes(ctx context.Context, api EC2API, region string, names []string) ([]snapshot.InstanceType, error) {
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	names = slices.DeleteFunc(names, func(n string) bool { return n == "" })
	call := ec2Call{api: api, region: region}
	batches := ec2Batches(names, ec2TypeBatch)
	results := make([][]types.InstanceTypeInfo, len(batches))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(ec2Concurrency)
	for i, batch := range batches {
		g.Go(func() error {
			out, err := call.instanceTypes(gctx, batch)
			if err != nil {
				return &describeError{gap: ec2Classify(snapshot.SourceDescribeInstanceTypes, region, err).gap, region: region, err: err}
			}
			results[i] = out
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []snapshot.InstanceType
	for _, info := range slices.Concat(results...) {
		out = append(out, ec2InstanceType(info))
	}
	kept, bad := snapshot.InRangeInstanceTypes(out)
	if len(bad) > 0 {
		return nil, &OutOfRangeError{Region: region, Fields: bad}
	}
	return ec2SortUnique(kept, func(v snapshot.InstanceType) string { return v.Name }), nil
}

// OutOfRangeError is an answer of EC2 with numbers no instance type has (2147483647 ENIs, -1
// addresses): nothing is computed from it.
type OutOfRangeError struct {
	Region string
	// Fields says what is out of range: "instanceTypes[m5.large].maxENIs: 2147483647 is out of
	// range (0 to 1024)".
	Fields []string
}

func (e *OutOfRangeError) Error() string {
	return fmt.Sprintf("EC2 DescribeInstanceTypes in %s answered numbers out of range, so nothing is computed from them: %s",
		e.Region, strings.Join(e.Fields, "; "))
}

// describeError is a failed Describe call explained like a gap: the reason, then the remedy.
type describeError struct {
	gap    snapshot.Gap
	region string
	err    error
}

func (e *describeError) Error() string {
	return fmt.Sprintf("describing instance types in %s: %s: %s", e.region, e.gap.Reason, e.gap.Remedy)
}

func (e *describeError) Unwrap() error { return e.err }
