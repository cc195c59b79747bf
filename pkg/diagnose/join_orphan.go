package diagnose

import (
	"cmp"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Tags Karpenter puts on the instances it launches (aws/karpenter-provider-aws pkg/utils/utils.go
// GetTags; v1alpha5 releases wrote karpenter.sh/provisioner-name instead of the NodePool tag).
// karpenter.sh/nodeclaim and Name are added only after the instance registers (the tagging
// controller), so they cannot tell a leaked instance.
const (
	tagNodePool        = "karpenter.sh/nodepool"
	tagProvisionerName = "karpenter.sh/provisioner-name"
	tagNodeClass       = "karpenter.k8s.aws/ec2nodeclass"
	tagEKSClusterName  = "eks:eks-cluster-name"
)

// orphanGrace is how young an instance may be without a NodeClaim naming it. Karpenter creates
// the NodeClaim before it launches the instance and writes status.providerID right after
// CreateFleet returns, but NodeClaims and instances are read at different moments, so an
// instance launched in the last minutes may belong to a claim read before its providerID was
// set. Karpenter's own garbage collection waits 30 seconds for the same reason and then takes
// such an instance on its next pass, at most 2 minutes later: an instance younger than 3
// minutes may still be on its way out.
const orphanGrace = 3 * time.Minute

var specInstanceOrphaned = &Spec{
	ID:       "instance-orphaned",
	Severity: Warning,
	Family:   FamilyJoin,
	Needs:    []string{snapshot.SourceNodes, snapshot.SourceNodeClaims, snapshot.SourceDescribeInstances, snapshot.SourceClusterInstances},
	Examines: []string{SubjectInstance},
	Title:    "an instance Karpenter launched for the cluster has no NodeClaim",
	FiresWhen: "a `pending` or `running` instance tagged `karpenter.sh/nodepool` (or `karpenter.sh/provisioner-name`) " +
		"and `kubernetes.io/cluster/NAME` or `eks:eks-cluster-name=NAME`, NAME being the cluster's name, launched at " +
		"least 3 minutes ago, whose ID no NodeClaim's providerID and no Node's providerID names",
	NotOn: "instances of other clusters in the VPC; an unknown cluster name; instances launched under 3 minutes ago " +
		"(their NodeClaim may have been read before its providerID was set, or garbage collection's next pass is " +
		"still to come) or at an unknown time; stopped or " +
		"terminated instances; the cluster-tag DescribeInstances, NodeClaims or Nodes not readable",
	Why: "a leaked instance holds subnet addresses that new nodes then lack, and costs money; Karpenter's garbage " +
		"collection terminates such instances once they are 30 seconds old, on its next pass (every 10 seconds for its " +
		"first 20 passes, then every 2 minutes), unless Karpenter is not running or the instance lacks one of the tags " +
		"it lists by (`karpenter.sh/nodepool`, `karpenter.k8s.aws/ec2nodeclass`, `eks:eks-cluster-name`)",
	Remedy: "terminate it (`aws ec2 terminate-instances --instance-ids ID`) if nothing should own it; check that " +
		"Karpenter runs with the cluster's name",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/utils/utils.go (GetTags: kubernetes.io/cluster/NAME, karpenter.sh/nodepool, eks:eks-cluster-name)",
		"aws/karpenter-provider-aws pkg/providers/instance/instance.go (List: the tag filters garbage collection uses)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclaim/garbagecollection/controller.go (30-second grace; next pass after 10 seconds, after 2 minutes past the 20th)",
		"aws/karpenter-provider-aws pkg/controllers/nodeclaim/tagging/controller.go (karpenter.sh/nodeclaim after registration)",
	},
	Verified: []Verified{
		{UpstreamKarpenter, "pkg/controllers/nodeclaim/garbagecollection/controller.go (Reconcile)",
			"an instance no NodeClaim's providerID names is deleted once its creation is more than 30 seconds ago; the controller requeues after 10 seconds for its first 20 passes, then after 2 minutes"},
		{UpstreamKarpenter, "pkg/providers/instance/instance.go (List, instanceStateFilter)",
			"it lists instances with tag keys karpenter.sh/nodepool and karpenter.k8s.aws/ec2nodeclass and tag eks:eks-cluster-name=CLUSTER, pending, running, stopping, stopped or shutting-down"},
		{UpstreamKarpenter, "pkg/utils/utils.go (GetTags)",
			"Karpenter tags its instances kubernetes.io/cluster/NAME=owned, karpenter.sh/nodepool, eks:eks-cluster-name and karpenter.k8s.aws/ec2nodeclass"},
		{UpstreamKarpenter, "pkg/controllers/nodeclaim/tagging/controller.go (isTaggable)",
			"karpenter.sh/nodeclaim is tagged only once the NodeClaim has a node name"},
	},
}

// instanceOrphaned finds running instances Karpenter launched for this cluster that no
// NodeClaim and no Node names. They hold subnet addresses (which new nodes then lack) and
// cost money; Karpenter's garbage collection normally terminates them within 2.5 minutes, so one
// that stays means Karpenter is not running, cannot reach EC2, or does not see it (it lists
// only instances carrying its NodePool, EC2NodeClass and eks:eks-cluster-name tags).
var instanceOrphaned = Check{
	Spec: specInstanceOrphaned,
	Run: func(x *Index) []Finding {
		s := x.Snapshot
		if s.ClusterName == "" {
			return nil
		}
		named := map[string]bool{}
		for _, c := range s.NodeClaims {
			if p, err := ParseProviderID(c.ProviderID); err == nil {
				named[p.InstanceID] = true
			}
		}
		for _, n := range x.Nodes {
			if n.ProviderErr == nil {
				named[n.Provider.InstanceID] = true
			}
		}
		var out []Finding
		for _, id := range sortedKeys(x.Instances) {
			in := x.Instances[id]
			if named[id] || !launchedForCluster(in, s.ClusterName) || in.State != "pending" && in.State != "running" ||
				in.LaunchTime.IsZero() || s.Taken.Sub(in.LaunchTime) < orphanGrace {
				continue
			}
			out = append(out, orphanFinding(s, in))
		}
		return out
	},
}

// launchedForCluster reports whether Karpenter launched the instance for the named cluster: a
// NodePool (or provisioner) tag and the cluster's tag.
func launchedForCluster(in *snapshot.Instance, cluster string) bool {
	if in.Tags[tagNodePool] == "" && in.Tags[tagProvisionerName] == "" {
		return false
	}
	_, owned := in.Tags[tagClusterPrefix+cluster]
	return owned || in.Tags[tagEKSClusterName] == cluster
}

// orphanFinding describes one leaked instance with the addresses it holds.
func orphanFinding(s *snapshot.Snapshot, in *snapshot.Instance) Finding {
	pool := in.Tags[tagNodePool]
	poolText := "NodePool " + pool
	if pool == "" {
		poolText = "provisioner " + in.Tags[tagProvisionerName]
	}
	msg := fmt.Sprintf("instance %s (%s, %s, launched %s ago at %s, %s) was launched by Karpenter for cluster %s "+
		"but no NodeClaim or Node names it; it holds %s", in.ID, orUnknown(in.Type), in.State,
		ago(s.Taken.Sub(in.LaunchTime)), in.LaunchTime.UTC().Format(time.RFC3339), poolText, s.ClusterName, heldAddressesText(in))
	var missing []string
	for _, k := range []string{tagNodePool, tagNodeClass} {
		if in.Tags[k] == "" {
			missing = append(missing, k)
		}
	}
	if in.Tags[tagEKSClusterName] != s.ClusterName {
		missing = append(missing, tagEKSClusterName+"="+s.ClusterName)
	}
	if len(missing) > 0 {
		msg += "; Karpenter's garbage collection will not remove it: it lists only instances tagged " +
			tagNodePool + ", " + tagNodeClass + " and " + tagEKSClusterName + ", and this one lacks " + strings.Join(missing, ", ")
	} else {
		msg += "; Karpenter's garbage collection terminates such instances once they are 30 seconds old, at most 2 " +
			"minutes later, so Karpenter is not running or cannot reach EC2"
	}
	return Finding{
		Resource: "instance/" + in.ID,
		Message:  msg,
		Remedy: fmt.Sprintf("if no NodeClaim should own it, terminate it (the command); then check that Karpenter runs "+
			"with the cluster name %s", s.ClusterName),
		Commands: []Command{{Argv: []string{"aws", "ec2", "terminate-instances", "--instance-ids", in.ID},
			Changes: "instance/" + in.ID}},
	}
}

// heldAddressesText lists the IPv4 addresses and prefixes the instance's ENIs hold, by subnet:
// "3 addresses in subnet-0aaa (10.0.1.10, 10.0.1.11, 10.0.1.12) and 16 in 1 prefix ...".
func heldAddressesText(in *snapshot.Instance) string {
	type held struct {
		ips      []string
		prefixes []string
		total    int64
	}
	by := map[string]*held{}
	get := func(subnet string) *held {
		if by[subnet] == nil {
			by[subnet] = &held{}
		}
		return by[subnet]
	}
	for _, e := range in.ENIs {
		h := get(cmp.Or(e.SubnetID, in.SubnetID))
		ips := sortedUnique(append([]string{e.PrimaryIP}, e.PrivateIPs...))
		h.ips = append(h.ips, ips...)
		h.total += int64(len(ips))
		for _, p := range e.IPv4Prefixes {
			h.prefixes = append(h.prefixes, p)
			if pf, err := netip.ParsePrefix(p); err == nil && pf.Addr().Is4() {
				h.total += int64(1) << (32 - pf.Bits())
			}
		}
	}
	if len(in.ENIs) == 0 && in.PrivateIP != "" {
		h := get(in.SubnetID)
		h.ips, h.total = []string{in.PrivateIP}, 1
	}
	if len(by) == 0 {
		return "no addresses karpnet knows of"
	}
	var parts []string
	for _, subnet := range sortedKeys(by) {
		h := by[subnet]
		part := fmt.Sprintf("%s in %s (%s", countText(h.total, "address", "addresses"), orUnknown(subnet), abbreviate(sortedUnique(h.ips), 5))
		if len(h.prefixes) > 0 {
			part += "; " + countText(len(h.prefixes), "prefix", "prefixes") + " " + abbreviate(sortedUnique(h.prefixes), 3)
		}
		parts = append(parts, part+")")
	}
	return strings.Join(parts, ", ")
}
