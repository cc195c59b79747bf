package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// With prefix delegation on, karpnet reads every interface of the demo's subnets and their
// CIDR reservations, and the interfaces left available in the VPC. Besides the nodes' own,
// the demo's subnets hold:
//   - other things' addresses (load balancers, endpoints, other tools' instances), which come
//     as whole /28 prefixes and a few single addresses, so they fragment nothing;
//   - in the pod subnet of zone c, the pod ENIs of another cluster, "analytics", whose VPC CNI
//     runs in secondary-IP mode: their single addresses sit in every /28 block the demo's
//     nodes left free, so the next node's pod ENI there finds no block for its warm prefix;
//   - in the pod subnet of zone a, two pod ENIs the VPC CNI left available when their node
//     was terminated nine days ago; aws-node runs with its leaked-ENI cleanup off.

// fragmentedSubnet is the subnet another cluster's secondary IPs fragment.
const fragmentedSubnet = "pods-c"

// leakedSubnet is the subnet of the ENIs left available.
const leakedSubnet = "pods-a"

// interfaces holds the interfaces the network hands out besides the nodes' ENIs.
type interfaces struct {
	records []snapshot.InterfaceRecord
}

// fill hands out, once the nodes have their addresses, the leaked ENIs, every subnet's other
// holders and the analytics cluster's addresses. The addresses of instances the demo does not
// hold (a node whose instance is gone) are free again first, as EC2 frees them.
func (n *network) fill(instances []snapshot.Instance) *interfaces {
	n.resync(instances)
	ifs := &interfaces{}
	n.leaked(ifs)
	keys := make([]string, 0, len(n.subnets))
	for k := range n.subnets {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s := n.subnets[k]
		count := int(number("others", s.key, uint64(s.pool.usable()/8)))
		if s.free != nil {
			count = max(s.pool.usable()-s.pool.inUse()-int(*s.free), 0)
		}
		n.others(ifs, s, count)
	}
	n.fragment(ifs)
	return ifs
}

// leaked adds the two pod ENIs the VPC CNI left available.
func (n *network) leaked(ifs *interfaces) {
	s := n.subnet(leakedSubnet)
	gone := hexID("i", "terminated-general")
	created := Taken().Add(-9*24*time.Hour - 3*time.Hour)
	for i := range 2 {
		key := fmt.Sprintf("leaked-%d", i)
		ip := s.pool.ip(key)
		ifs.records = append(ifs.records, snapshot.InterfaceRecord{
			ID: hexID("eni", key), VpcID: n.vpcID, SubnetID: s.id, Zone: region + s.zone,
			Status: snapshot.InterfaceAvailable, InterfaceType: "interface", Description: "aws-K8S-" + gone,
			PrivateIPs: []string{ip}, IPv4Prefixes: []string{s.pool.prefix28(key)},
			SecurityGroups: []snapshot.GroupRef{{ID: n.clusterSG, Name: "eks-cluster-sg-demo"}},
			Tags: map[string]string{
				snapshot.TagCNIInstanceID: gone, snapshot.TagCNICreatedAt: created.Add(time.Duration(i) * time.Minute).Format(time.RFC3339),
				snapshot.TagCNIClusterName: clusterName, snapshot.TagENIOwner: snapshot.OwnerVPCCNI,
			},
		})
	}
}

// fragment puts one address of the analytics cluster's pod ENIs in every /28 block of the
// fragmented subnet that is still whole, thirty addresses to an ENI.
func (n *network) fragment(ifs *interfaces) {
	s := n.subnet(fragmentedSubnet)
	var ips []string
	for b := 0; b < s.pool.size/16; b++ {
		if s.pool.blockFree(b * 16) {
			off := b*16 + 5 + int(number("analytics", fmt.Sprint(b), 10))
			s.pool.used[off] = true
			ips = append(ips, s.pool.addr(off))
		}
	}
	for i := 0; i < len(ips); i += 30 {
		key := fmt.Sprintf("analytics-%d", i/30)
		instance := hexID("i", key)
		ifs.records = append(ifs.records, snapshot.InterfaceRecord{
			ID: hexID("eni", key), VpcID: n.vpcID, SubnetID: s.id, Zone: region + s.zone,
			Status: snapshot.InterfaceInUse, InterfaceType: "interface", Description: "aws-K8S-" + instance, InstanceID: instance,
			PrivateIPs: ips[i:min(i+30, len(ips))], SecurityGroups: []snapshot.GroupRef{{ID: hexID("sg", "analytics"), Name: "analytics-pods"}},
			Tags: map[string]string{snapshot.TagCNIInstanceID: instance, snapshot.TagCNIClusterName: "analytics"},
		})
	}
}

// others hands out count addresses of subnet s to the interfaces of other things in the VPC:
// whole /28 prefixes while a block is free, then single addresses, in interfaces of at most
// eight prefixes or thirty addresses.
func (n *network) others(ifs *interfaces, s *subnet, count int) {
	kinds := []struct{ what, desc string }{
		{"elb", "ELB app/demo-ingress/50dc6c495c0c9188"},
		{"vpce", "VPC Endpoint Interface " + hexID("vpce", "ecr")},
		{"tools", "Primary network interface"},
	}
	var prefixes, ips []string
	for count >= 16 && s.pool.anyBlockFree() {
		prefixes = append(prefixes, s.pool.prefix28(fmt.Sprintf("others-%s-%d", s.key, len(prefixes))))
		count -= 16
	}
	for range count {
		ips = append(ips, s.pool.ip(fmt.Sprintf("others-%s-ip-%d", s.key, len(ips))))
	}
	for i := 0; len(prefixes) > 0 || len(ips) > 0; i++ {
		k := kinds[i%len(kinds)]
		key := fmt.Sprintf("%s-%s-%d", k.what, s.key, i)
		r := snapshot.InterfaceRecord{ID: hexID("eni", key), VpcID: n.vpcID, SubnetID: s.id, Zone: region + s.zone,
			Status: snapshot.InterfaceInUse, Description: k.desc, InterfaceType: "interface"}
		switch k.what {
		case "elb":
			r.InterfaceType, r.RequesterManaged = "load_balancer", true
		case "vpce":
			r.InterfaceType, r.RequesterManaged = "vpc_endpoint", true
		default:
			r.InstanceID = hexID("i", key)
		}
		take := min(8, len(prefixes))
		r.IPv4Prefixes, prefixes = prefixes[:take], prefixes[take:]
		take = min(30, len(ips))
		r.PrivateIPs, ips = ips[:take], ips[take:]
		ifs.records = append(ifs.records, r)
	}
}

// resync marks in use exactly the addresses and prefixes of the instances' ENIs.
func (n *network) resync(instances []snapshot.Instance) {
	bySubnet := map[string]*subnet{}
	for _, s := range n.subnets {
		s.pool.used = map[int]bool{}
		bySubnet[s.id] = s
	}
	for _, in := range instances {
		if in.State == "terminated" {
			continue
		}
		for _, e := range in.ENIs {
			s := bySubnet[e.SubnetID]
			if s == nil {
				continue
			}
			for _, ip := range e.PrivateIPs {
				s.pool.take(ip, 1)
			}
			for _, p := range e.IPv4Prefixes {
				s.pool.take(strings.TrimSuffix(p, "/28"), 16)
			}
		}
	}
}

// sorted returns the records sorted by ID.
func (ifs *interfaces) sorted() []snapshot.InterfaceRecord {
	slices.SortFunc(ifs.records, func(a, b snapshot.InterfaceRecord) int { return strings.Compare(a.ID, b.ID) })
	return ifs.records
}
