package cmd

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/printer"
	"github.com/karpnet/kubectl-karpnet/pkg/sheet"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// noLiveNames completes nothing from the live cluster: the names would take EC2 calls.
func noLiveNames(context.Context, *collect.Collector) ([]string, error) { return nil, nil }

// subnetKind is `describe subnet ID...`.
func subnetKind() subjectKind {
	k := subjectKind{
		use: "subnet ID...", kind: kinds.Get(kinds.Subnet),
		short: "Show a subnet's zone, CIDRs, free addresses, what selects it, the nodes in it, its way out and findings",
		example: `  # A subnet's free addresses, selectors, nodes, way out and findings
  %[1]s describe subnet subnet-0714a16d895e97a48`,
		names: nameSource{offline: func(s *snapshot.Snapshot) []string {
			out := make([]string, len(s.Subnets))
			for i := range s.Subnets {
				out[i] = s.Subnets[i].ID
			}
			return out
		}, live: noLiveNames},
	}
	k.describe = describeWith(byName(&k, sheet.DescribeSubnet, snapshot.SourceDescribeSubnets), printer.PrintSubnets)
	return k
}

// nodeClassKind is `describe nodeclass NAME...`: an EC2NodeClass or EKS Auto Mode NodeClass,
// or both when both kinds have the name. ec2nodeclass/NAME and nodeclass/NAME, or the
// ec2nodeclass alias, name one kind.
func nodeClassKind() subjectKind {
	k := subjectKind{
		use: "nodeclass NAME...", kind: kinds.Get(kinds.NodeClass), also: []kinds.Kind{kinds.Get(kinds.EC2NodeClass)},
		short: "Show an EC2NodeClass or Auto Mode NodeClass: selectors and what they resolved to, interfaces, maxPods, conditions, pools, nodes and findings",
		example: `  # An EC2NodeClass, or an EKS Auto Mode NodeClass, by name (both when both kinds have it)
  %[1]s describe nodeclass default

  # Only the Auto Mode NodeClass of a name (ec2nodeclass/NAME: only the EC2NodeClass)
  %[1]s describe nodeclass nodeclass/web`,
		names: nameSource{offline: func(s *snapshot.Snapshot) []string {
			out := make([]string, len(s.NodeClasses))
			for i := range s.NodeClasses {
				out[i] = s.NodeClasses[i].Name
			}
			return out
		}, live: func(ctx context.Context, col *collect.Collector) ([]string, error) {
			names, err := customNames(ctx, col, snapshot.AWSGroup, "ec2nodeclasses")
			if err != nil {
				return nil, err
			}
			auto, err := autoNodeClassNames(ctx, col)
			return append(names, auto...), err
		}},
	}
	k.describe = describeWith(func(c *cobra.Command, h hints, snap *snapshot.Snapshot, x *diagnose.Index, r diagnose.Report, names []string) ([]sheet.NodeClassSheet, error) {
		only := ""
		if strings.HasPrefix(c.CalledAs(), kinds.EC2NodeClass) {
			only = snapshot.KindEC2NodeClass
		}
		var out []sheet.NodeClassSheet
		for _, arg := range names {
			kind, name := classArg(arg, only)
			kinds := sheet.NodeClassKinds(x, kind, name)
			if len(kinds) == 0 {
				return nil, k.notFound(h, snap, arg, snapshot.SourceNodeClasses, snapshot.SourceAutoNodeClasses)
			}
			for _, kd := range kinds {
				sh, _ := sheet.DescribeNodeClass(x, r, kd, name)
				out = append(out, sh)
			}
		}
		return out, nil
	}, printer.PrintNodeClasses)
	return k
}

// classArg reads a nodeclass argument: ec2nodeclass/NAME or nodeclass/NAME (or their plurals)
// name one kind, a bare NAME the kind only (empty: either).
func classArg(arg, only string) (kind, name string) {
	if k, rest := kinds.Arg(arg); kinds.IsClass(k.Name) {
		return k.Object, rest
	}
	return only, arg
}

// nodePoolKind is `describe nodepool NAME...`.
func nodePoolKind() subjectKind {
	k := subjectKind{
		use: "nodepool NAME...", kind: kinds.Get(kinds.NodePool),
		short: "Show a NodePool's zone, instance-type and capacity-type requirements, class, conditions, nodes and findings",
		example: `  # A NodePool's requirements against its class's zones, its conditions, nodes and findings
  %[1]s describe nodepool batch`,
		names: nameSource{offline: func(s *snapshot.Snapshot) []string {
			out := make([]string, len(s.NodePools))
			for i := range s.NodePools {
				out[i] = s.NodePools[i].Name
			}
			return out
		}, live: func(ctx context.Context, col *collect.Collector) ([]string, error) {
			return customNames(ctx, col, snapshot.KarpenterGroup, "nodepools")
		}},
	}
	k.describe = describeWith(byName(&k, sheet.DescribeNodePool, snapshot.SourceNodePools), printer.PrintNodePools)
	return k
}

// placementGroupKind is `describe placementgroup NAME|ID...`.
func placementGroupKind() subjectKind {
	k := subjectKind{
		use: "placementgroup NAME|ID...", kind: kinds.Get(kinds.PlacementGroup),
		short: "Show a placement group's strategy, state, instances by partition or zone, the classes that select it and findings",
		example: `  # A placement group by name or ID
  %[1]s describe placementgroup demo-training`,
		names: nameSource{offline: func(s *snapshot.Snapshot) []string {
			out := make([]string, len(s.PlacementGroups))
			for i, g := range s.PlacementGroups {
				out[i] = g.Name
				if g.Name == "" {
					out[i] = g.ID
				}
			}
			return out
		}, live: noLiveNames},
	}
	k.describe = describeWith(byName(&k, sheet.DescribePlacementGroup, snapshot.SourceDescribePlacementGroups), printer.PrintPlacementGroups)
	return k
}

// eniKind is `describe eni ID...`: an interface karpnet read on its own, in a subnet prefixes
// are carved from or left available in the cluster's VPCs.
func eniKind() subjectKind {
	k := subjectKind{
		use: "eni ID...", kind: kinds.Get(kinds.ENI),
		short: "Show an ENI karpnet read on its own: subnet, addresses held, security groups it pins, creator, age and findings",
		example: `  # An ENI left available: what it holds, the security groups it pins, who created it and when
  %[1]s describe eni eni-0239ee3152f11eb73`,
		names: nameSource{offline: func(s *snapshot.Snapshot) []string {
			out := make([]string, len(s.Interfaces))
			for i := range s.Interfaces {
				out[i] = s.Interfaces[i].ID
			}
			return out
		}, live: noLiveNames},
	}
	k.describe = describeWith(byName(&k, sheet.DescribeENI, snapshot.SourceAvailableInterfaces, snapshot.SourceSubnetInterfaces), printer.PrintENIs)
	return k
}

// byName builds the sheet of each name with describe, or fails with the kind's error for the
// first name it has no sheet for (sources are what the snapshot would have read it from). A
// name may be written as a reference of the kind (subnet/ID, nodepool/NAME, pg/NAME), as
// sheets and findings name subjects.
func byName[S any](k *subjectKind, describe func(x *diagnose.Index, r diagnose.Report, name string) (S, bool), sources ...string,
) func(*cobra.Command, hints, *snapshot.Snapshot, *diagnose.Index, diagnose.Report, []string) ([]S, error) {
	return func(_ *cobra.Command, h hints, snap *snapshot.Snapshot, x *diagnose.Index, r diagnose.Report, names []string) ([]S, error) {
		var out []S
		for _, n := range names {
			if named, rest := kinds.Arg(n); named.Name == k.kind.Name {
				n = rest
			}
			sh, ok := describe(x, r, n)
			if !ok {
				return nil, k.notFound(h, snap, n, sources...)
			}
			out = append(out, sh)
		}
		return out, nil
	}
}
