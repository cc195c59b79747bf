package collect

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"golang.org/x/sync/errgroup"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// What else holds addresses (snapshot.InterfaceRecord): in the main Region, the subnets
// prefixes may be carved from (snapshot.PrefixCarving) have every interface and every CIDR
// reservation read; in every VPC read for its way out, the interfaces left available are read.
// Both keep only the interfaces that are not an instance's the snapshot holds.
//
// Requests: for every ec2FilterBatch prefix subnets one DescribeNetworkInterfaces call of
// ceil(interfaces/1,000) pages (every interface of those subnets, the nodes' own included,
// comes back), and one GetSubnetCidrReservations call per subnet (it takes one SubnetId);
// none when nothing carves prefixes. For every ec2FilterBatch VPCs one DescribeNetworkInterfaces
// call for the available interfaces, usually one page.

// ec2Addresses gathers what the address reads return.
type ec2Addresses struct {
	interfaces   []snapshot.InterfaceRecord
	reservations []snapshot.CIDRReservation
	// subnetsRead and reservedRead are the subnets whose interfaces and whose reservations were
	// read in full; vpcsRead the VPCs whose available interfaces were.
	subnetsRead, reservedRead, vpcsRead ec2IDSet
	// owners are the instances the available interfaces name, read by ID (describeOwners).
	owners []snapshot.InterfaceOwner
}

// ec2InstanceENIs returns the IDs of the instances' interfaces, and how many each subnet holds.
func ec2InstanceENIs(instances []snapshot.Instance) (ids map[string]bool, perSubnet map[string]int) {
	ids, perSubnet = map[string]bool{}, map[string]int{}
	for i := range instances {
		for _, eni := range instances[i].ENIs {
			ids[eni.ID] = true
			perSubnet[eni.SubnetID]++
		}
	}
	return ids, perSubnet
}

// ec2PrefixSubnets returns the subnets of read whose every interface and reservation the
// snapshot needs (snapshot.PrefixCarving): all of them when prefixes may be carved from any,
// else those named that were read; sorted.
func ec2PrefixSubnets(s *snapshot.Snapshot, read []snapshot.Subnet) []string {
	all, named := s.PrefixCarving()
	if !all && len(named) == 0 {
		return nil
	}
	ids := ec2IDSet{}
	for i := range read {
		if id := read[i].ID; all || slices.Contains(named, id) {
			ids.add(id)
		}
	}
	return ids.sorted()
}

// ec2MaxReservationSubnets is the most subnets whose CIDR reservations one collection reads,
// one GetSubnetCidrReservations each: as many subnets as one selector reads
// (ec2MaxIDsPerSource), and as many as a VPC holds by default. Past it, the subnets left are a
// gap and not counted among those whose addresses are known.
const ec2MaxReservationSubnets = ec2MaxIDsPerSource

// ec2SpareReservations is how many pages past each subnet's first the GetSubnetCidrReservations
// calls of one collection in one Region follow together: a subnet holds a few reservations,
// which come back on one page, so an endpoint whose NextTokens never end costs at most one
// request per subnet plus these, instead of ec2MaxPages per subnet.
const ec2SpareReservations = ec2MaxPages

// ec2SpareReservationPages counts the follow-up pages left to the reservation reads of one
// collection in one Region.
type ec2SpareReservationPages struct {
	mu   sync.Mutex
	left int
}

// take reports whether one more follow-up page may be asked for, counting it.
func (p *ec2SpareReservationPages) take() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.left <= 0 {
		return false
	}
	p.left--
	return true
}

// reservationPages returns the follow-up pages the reservation reads in region share, made
// with ec2SpareReservations on first use.
func (r *ec2Result) reservationPages(region string) *ec2SpareReservationPages {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spareReservations == nil {
		r.spareReservations = map[string]*ec2SpareReservationPages{}
	}
	p := r.spareReservations[region]
	if p == nil {
		p = &ec2SpareReservationPages{left: ec2SpareReservations}
		r.spareReservations[region] = p
	}
	return p
}

// ec2ReservationPagesError is a subnet's reservations still paging when the follow-up pages
// the collection's reservation reads share had all been spent.
type ec2ReservationPagesError struct {
	subnet string
	pages  int
}

func (e *ec2ReservationPagesError) Error() string {
	return fmt.Sprintf("GetSubnetCidrReservations of %s did not end after %d pages: the reads of every subnet had "+
		"followed the %d pages past their first that karpnet follows in one collection", e.subnet, e.pages, ec2SpareReservations)
}

// ec2ReservationSubnetsError is more subnets whose reservations are needed than a collection reads.
type ec2ReservationSubnetsError struct {
	subnets int
}

func (e *ec2ReservationSubnetsError) Error() string {
	return fmt.Sprintf("%d subnets carve prefixes; karpnet reads the CIDR reservations of the first %d (sorted by ID), "+
		"the %d others are not counted", e.subnets, ec2MaxReservationSubnets, e.subnets-ec2MaxReservationSubnets)
}

// ec2TooManyError is an answer page with more items than its MaxResults allowed, which EC2
// never sends: the call fails rather than hold what an endpoint makes up.
type ec2TooManyError struct {
	action string
	got    int
}

func (e *ec2TooManyError) Error() string {
	return fmt.Sprintf("%s answered %d items on one page, more than the %d asked for", e.action, e.got, ec2PageSize)
}

// subnetAddressTasks adds to g the reads of every interface and CIDR reservation of subnets:
// one DescribeNetworkInterfaces by subnet-id per ec2FilterBatch subnets, following NextToken
// for ec2MaxPages pages plus one per 1,000 interfaces the instances already read hold there,
// and one GetSubnetCidrReservations per subnet, for the first ec2MaxReservationSubnets of them
// (the others are a gap), with ec2SpareReservationPages follow-up pages shared. Interfaces of
// other subnets, and those whose ID is in known (the instances' own), are not kept. A failed
// call is a gap on its own source.
func (r *ec2Result) subnetAddressTasks(ctx context.Context, g *errgroup.Group, call ec2Call, subnets []string,
	known map[string]bool, perSubnet map[string]int) {
	for _, batch := range ec2Batches(subnets, ec2FilterBatch) {
		enis := 0
		for _, id := range batch {
			enis += perSubnet[id]
		}
		asked := ec2Set(batch)
		g.Go(func() error {
			out, err := r.readInterfaces(ctx, call, ec2Filter("subnet-id", batch), ec2MaxPages+enis/ec2PageSize,
				func(n types.NetworkInterface) bool {
					return asked[aws.ToString(n.SubnetId)] && !known[aws.ToString(n.NetworkInterfaceId)]
				})
			r.add(snapshot.SourceSubnetInterfaces, call.region, err, func() {
				r.addresses.interfaces = append(r.addresses.interfaces, out...)
				ec2AddIDs(&r.addresses.subnetsRead, batch...)
			})
			return nil
		})
	}
	reserved := subnets
	if len(reserved) > ec2MaxReservationSubnets {
		reserved = subnets[:ec2MaxReservationSubnets]
		r.fail(snapshot.SourceCIDRReservations, call.region, &ec2ReservationSubnetsError{subnets: len(subnets)})
	}
	spare := r.reservationPages(call.region)
	for _, subnet := range reserved {
		g.Go(func() error {
			out, err := call.cidrReservations(ctx, subnet, spare)
			r.add(snapshot.SourceCIDRReservations, call.region, err, func() {
				for _, v := range out {
					r.addresses.reservations = append(r.addresses.reservations, ec2CIDRReservation(v))
				}
				ec2AddIDs(&r.addresses.reservedRead, subnet)
			})
			return nil
		})
	}
}

// availableTasks adds to g the reads of the interfaces left available in vpcs: one
// DescribeNetworkInterfaces by vpc-id and status=available per ec2FilterBatch VPCs. Interfaces
// of other VPCs or in another status, and those whose ID is in known, are not kept.
func (r *ec2Result) availableTasks(ctx context.Context, g *errgroup.Group, call ec2Call, vpcs []string, known map[string]bool) {
	for _, batch := range ec2Batches(vpcs, ec2FilterBatch) {
		asked := ec2Set(batch)
		g.Go(func() error {
			filters := append(ec2Filter("vpc-id", batch), ec2Filter("status", []string{snapshot.InterfaceAvailable})...)
			out, err := r.readInterfaces(ctx, call, filters, ec2MaxPages, func(n types.NetworkInterface) bool {
				return string(n.Status) == snapshot.InterfaceAvailable && asked[aws.ToString(n.VpcId)] &&
					!known[aws.ToString(n.NetworkInterfaceId)]
			})
			r.add(snapshot.SourceAvailableInterfaces, call.region, err, func() {
				r.addresses.interfaces = append(r.addresses.interfaces, out...)
				ec2AddIDs(&r.addresses.vpcsRead, batch...)
			})
			return nil
		})
	}
}

// describeOwners reads by ID, in any state, the instances that the interfaces left available in
// vpcs name in their instance_id tag and that read does not hold: one DescribeInstances by
// instance-id filter per ec2FilterBatch IDs, none when there are none. An instance EC2 no
// longer has is kept with no state. A terminated instance stays visible for about an hour, and
// eni-leaked counts the time its interfaces were left from its termination.
func (r *ec2Result) describeOwners(ctx context.Context, call ec2Call, vpcs []string, read map[string]bool) {
	ids := r.ownersToRead(vpcs, read)
	var g errgroup.Group
	g.SetLimit(ec2Concurrency)
	for _, batch := range ec2Batches(ids, ec2FilterBatch) {
		g.Go(func() error {
			out, err := call.instances(ctx, batch)
			r.add(snapshot.SourceInterfaceOwners, call.region, err, func() {
				found := make(map[string]*snapshot.Instance, len(out))
				for i := range out {
					found[out[i].ID] = &out[i]
				}
				for _, id := range batch {
					o := snapshot.InterfaceOwner{ID: id}
					if v := found[id]; v != nil {
						o.State, o.StateTransitionReason = v.State, v.StateTransitionReason
					}
					r.addresses.owners = append(r.addresses.owners, o)
				}
			})
			return nil
		})
	}
	_ = g.Wait() // tasks report through r.add and never return an error
}

// ownersToRead returns, sorted, the instance IDs that the interfaces left available in vpcs
// name in their instance_id tag and that read does not hold.
func (r *ec2Result) ownersToRead(vpcs []string, read map[string]bool) []string {
	in := ec2Set(vpcs)
	ids := ec2IDSet{}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range r.addresses.interfaces {
		id := v.Tags[snapshot.TagCNIInstanceID]
		if v.Status == snapshot.InterfaceAvailable && in[v.VpcID] && !read[id] && snapshot.ValidInstanceID(id) {
			ids.add(id)
		}
	}
	return ids.sorted()
}

// readInterfaces runs one paged DescribeNetworkInterfaces and converts the interfaces keep
// accepts; a page longer than its MaxResults fails the call.
func (r *ec2Result) readInterfaces(ctx context.Context, call ec2Call, filters []types.Filter, maxPages int,
	keep func(types.NetworkInterface) bool) ([]snapshot.InterfaceRecord, error) {
	var out []snapshot.InterfaceRecord
	err := call.interfacesWhere(ctx, filters, maxPages, func(page []types.NetworkInterface) error {
		if len(page) > ec2PageSize {
			return &ec2TooManyError{action: "DescribeNetworkInterfaces", got: len(page)}
		}
		for _, n := range page {
			if keep(n) {
				out = append(out, ec2InterfaceRecord(n))
			}
		}
		return nil
	})
	return out, err
}

// ec2Set returns ids as a set.
func ec2Set(ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// ec2AddIDs adds ids to *set, making it on first use.
func ec2AddIDs(set *ec2IDSet, ids ...string) {
	if *set == nil {
		*set = ec2IDSet{}
	}
	set.add(ids...)
}

// fillAddresses puts the interfaces in s, sorted and unique by ID, without those of the
// instances s holds (the instances the search by cluster tag found were not known when the
// interfaces were read); the reservations; the subnets whose interfaces and reservations were
// both read; and the VPCs whose available interfaces were.
func (r *ec2Result) fillAddresses(s *snapshot.Snapshot) {
	own, _ := ec2InstanceENIs(s.Instances)
	interfaces := slices.DeleteFunc(r.addresses.interfaces, func(v snapshot.InterfaceRecord) bool { return own[v.ID] })
	s.Interfaces = ec2SortUnique(interfaces, func(v snapshot.InterfaceRecord) string { return v.ID })
	s.CIDRReservations = ec2SortUnique(r.addresses.reservations, func(v snapshot.CIDRReservation) string { return v.ID })
	both := ec2IDSet{}
	for id := range r.addresses.subnetsRead {
		if _, ok := r.addresses.reservedRead[id]; ok {
			both.add(id)
		}
	}
	if len(both) > 0 {
		s.AddressSubnets = both.sorted()
	}
	if len(r.addresses.vpcsRead) > 0 {
		s.AvailableVPCs = r.addresses.vpcsRead.sorted()
	}
	held := ec2InstanceIDs(s.Instances)
	owners := slices.DeleteFunc(r.addresses.owners, func(o snapshot.InterfaceOwner) bool { return held[o.ID] })
	s.InterfaceOwners = ec2SortUnique(owners, func(o snapshot.InterfaceOwner) string { return o.ID })
}
