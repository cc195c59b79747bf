// Package ec2xml reads EC2's XML answers into the AWS SDK's types in one pass over their
// bytes, keeping only what karpnet converts, as the SDK's own deserializer reads them: its
// tests and fuzz target hold it to that deserializer. It says nothing of what to ask EC2 for
// and keeps no state: the buffers answers are read into, and the interner that shares their
// repeated values, are the caller's.
package ec2xml

import (
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	smithytime "github.com/aws/smithy-go/time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// A DescribeInstances answer of 1,000 instances is about 6 MB of XML, most of it elements
// karpnet never reads (block devices, metadata options, DNS names), and the SDK's decoder,
// built on encoding/xml, spends about 185 µs of CPU an instance on it: at 100,000 nodes that
// is most of a collection's CPU. ReadInstances reads the same answer in one pass over its
// bytes and keeps only the fields karpnet converts (pkg/collect's ec2Instance), the
// reservations' owners and the nextToken. It reads elements as the SDK does (names matched without regard to case, list
// members named item, a value the text of an element without children, unknown elements
// skipped, a repeated value replaced, a repeated list appended to) and parses the values it
// keeps with the same functions. Anything it is not sure of (a comment, CDATA, a namespace
// prefix, a non-ASCII name, a carriage return, a malformed tag or entity, an unparsable
// number, boolean or time) makes it give up, and the SDK decodes the answer instead: only the
// values of elements karpnet does not read are not checked. The caller gives the answer to
// the SDK's deserializer when ReadInstances gives up.

// maxDepth bounds the nesting ReadInstances follows inside an element it skips.
const maxDepth = 256

// ReadInstances decodes a DescribeInstances answer; ok is false when it gave up. The
// values that repeat across instances (types, zones, subnet, VPC and security group IDs, tags,
// states) are taken from intern (nil: each its own copy).
func ReadInstances(body []byte, intern *snapshot.Interner) (reservations []types.Reservation, nextToken *string, ok bool) {
	return ReadInstancesExcept(body, intern, nil)
}

// ReadInstancesExcept is ReadInstances that leaves out, undecoded, every instance whose ID
// skip reports (nil: none): an instance already read is read past from its instanceId on
// (EC2 writes it first), so a second read of the same instances costs no decoding.
func ReadInstancesExcept(body []byte, intern *snapshot.Interner, skip func(id string) bool) (
	reservations []types.Reservation, nextToken *string, ok bool,
) {
	r := reader{b: body, intern: intern, skipID: skip}
	root, empty := r.root()
	if r.bad {
		return nil, nil, false
	}
	r.children(root, empty, func(name []byte, empty bool) {
		switch string(r.lower(name)) {
		case "nexttoken":
			nextToken = r.str(name, empty)
		case "reservationset":
			r.items(name, empty, func(name []byte, empty bool) {
				var res types.Reservation
				r.reservation(name, empty, &res)
				reservations = append(reservations, res)
			})
		default:
			r.skip(name, empty)
		}
	})
	if r.bad {
		return nil, nil, false
	}
	return reservations, nextToken, true
}

func (r *reader) reservation(name []byte, empty bool, res *types.Reservation) {
	r.children(name, empty, func(name []byte, empty bool) {
		switch string(r.lower(name)) {
		case "ownerid":
			res.OwnerId = r.shared(name, empty)
		case "instancesset":
			r.items(name, empty, func(name []byte, empty bool) {
				var in types.Instance
				if r.instance(name, empty, &in) {
					res.Instances = append(res.Instances, in)
				}
			})
		default:
			r.skip(name, empty)
		}
	})
}

// instance reads one instance into in; it returns false when skipID left it out.
func (r *reader) instance(name []byte, empty bool, in *types.Instance) bool {
	drop := false
	r.children(name, empty, func(name []byte, empty bool) {
		if drop {
			if string(r.lower(name)) == "instanceid" {
				// A second instanceId replaces the first: unsure which instance this is, give up.
				if id := r.value(name, empty); !r.skipID(id) {
					r.bad = true
				}
				return
			}
			r.skip(name, empty)
			return
		}
		switch string(r.lower(name)) {
		case "instanceid":
			in.InstanceId = r.str(name, empty)
			drop = r.skipID != nil && in.InstanceId != nil && r.skipID(*in.InstanceId)
		case "instancetype":
			in.InstanceType = types.InstanceType(r.sharedValue(name, empty))
		case "vpcid":
			in.VpcId = r.shared(name, empty)
		case "subnetid":
			in.SubnetId = r.shared(name, empty)
		case "privateipaddress":
			in.PrivateIpAddress = r.str(name, empty)
		case "ipaddress":
			in.PublicIpAddress = r.str(name, empty)
		case "instancelifecycle":
			in.InstanceLifecycle = types.InstanceLifecycleType(r.sharedValue(name, empty))
		case "capacityreservationid":
			in.CapacityReservationId = r.str(name, empty)
		case "launchtime":
			v := r.value(name, empty)
			if r.bad {
				return
			}
			t, err := smithytime.ParseDateTime(v)
			if err != nil {
				r.bad = true
				return
			}
			in.LaunchTime = &t
		case "instancestate":
			if in.State == nil {
				in.State = &types.InstanceState{}
			}
			r.children(name, empty, func(name []byte, empty bool) {
				if string(r.lower(name)) == "name" {
					in.State.Name = types.InstanceStateName(r.sharedValue(name, empty))
					return
				}
				r.skip(name, empty)
			})
		case "placement":
			if in.Placement == nil {
				in.Placement = &types.Placement{}
			}
			r.placement(name, empty, in.Placement)
		case "groupset":
			in.SecurityGroups = r.groups(name, empty, in.SecurityGroups)
		case "tagset":
			r.items(name, empty, func(name []byte, empty bool) {
				var t types.Tag
				r.children(name, empty, func(name []byte, empty bool) {
					switch string(r.lower(name)) {
					case "key":
						t.Key = r.shared(name, empty)
					case "value":
						t.Value = r.shared(name, empty)
					default:
						r.skip(name, empty)
					}
				})
				in.Tags = append(in.Tags, t)
			})
		case "networkinterfaceset":
			r.items(name, empty, func(name []byte, empty bool) {
				var ni types.InstanceNetworkInterface
				r.eni(name, empty, &ni)
				in.NetworkInterfaces = append(in.NetworkInterfaces, ni)
			})
		default:
			r.skip(name, empty)
		}
	})
	return !drop
}

func (r *reader) placement(name []byte, empty bool, p *types.Placement) {
	r.children(name, empty, func(name []byte, empty bool) {
		switch string(r.lower(name)) {
		case "availabilityzone":
			p.AvailabilityZone = r.shared(name, empty)
		case "availabilityzoneid":
			p.AvailabilityZoneId = r.shared(name, empty)
		case "groupname":
			p.GroupName = r.shared(name, empty)
		case "groupid":
			p.GroupId = r.shared(name, empty)
		case "partitionnumber":
			p.PartitionNumber = r.int32(name, empty)
		case "tenancy":
			p.Tenancy = types.Tenancy(r.sharedValue(name, empty))
		default:
			r.skip(name, empty)
		}
	})
}

func (r *reader) groups(name []byte, empty bool, to []types.GroupIdentifier) []types.GroupIdentifier {
	r.items(name, empty, func(name []byte, empty bool) {
		var g types.GroupIdentifier
		r.children(name, empty, func(name []byte, empty bool) {
			switch string(r.lower(name)) {
			case "groupid":
				g.GroupId = r.shared(name, empty)
			case "groupname":
				g.GroupName = r.shared(name, empty)
			default:
				r.skip(name, empty)
			}
		})
		to = append(to, g)
	})
	return to
}

func (r *reader) eni(name []byte, empty bool, ni *types.InstanceNetworkInterface) {
	r.children(name, empty, func(name []byte, empty bool) {
		switch string(r.lower(name)) {
		case "networkinterfaceid":
			ni.NetworkInterfaceId = r.str(name, empty)
		case "interfacetype":
			ni.InterfaceType = r.shared(name, empty)
		case "subnetid":
			ni.SubnetId = r.shared(name, empty)
		case "privateipaddress":
			ni.PrivateIpAddress = r.str(name, empty)
		case "description":
			ni.Description = r.shared(name, empty)
		case "status":
			ni.Status = types.NetworkInterfaceStatus(r.sharedValue(name, empty))
		case "groupset":
			ni.Groups = r.groups(name, empty, ni.Groups)
		case "attachment":
			if ni.Attachment == nil {
				ni.Attachment = &types.InstanceNetworkInterfaceAttachment{}
			}
			r.children(name, empty, func(name []byte, empty bool) {
				switch string(r.lower(name)) {
				case "deviceindex":
					ni.Attachment.DeviceIndex = r.int32(name, empty)
				case "networkcardindex":
					ni.Attachment.NetworkCardIndex = r.int32(name, empty)
				default:
					r.skip(name, empty)
				}
			})
		case "privateipaddressesset":
			r.ips = append(r.ips[:0], ni.PrivateIpAddresses...)
			r.items(name, empty, func(name []byte, empty bool) {
				var ip types.InstancePrivateIpAddress
				r.children(name, empty, func(name []byte, empty bool) {
					switch string(r.lower(name)) {
					case "privateipaddress":
						ip.PrivateIpAddress = r.str(name, empty)
					case "primary":
						v := r.value(name, empty)
						if r.bad {
							return
						}
						b, err := strconv.ParseBool(v)
						if err != nil {
							r.bad = true
							return
						}
						ip.Primary = boolOf(b)
					default:
						r.skip(name, empty)
					}
				})
				r.ips = append(r.ips, ip)
			})
			if len(r.ips) > 0 {
				ni.PrivateIpAddresses = slices.Clone(r.ips)
			}
			clear(r.ips) // holds no address past the interface
		case "ipv4prefixset":
			r.items(name, empty, func(name []byte, empty bool) {
				var p types.InstanceIpv4Prefix
				r.only(name, empty, "ipv4prefix", func(v *string) { p.Ipv4Prefix = v })
				ni.Ipv4Prefixes = append(ni.Ipv4Prefixes, p)
			})
		case "ipv6prefixset":
			r.items(name, empty, func(name []byte, empty bool) {
				var p types.InstanceIpv6Prefix
				r.only(name, empty, "ipv6prefix", func(v *string) { p.Ipv6Prefix = v })
				ni.Ipv6Prefixes = append(ni.Ipv6Prefixes, p)
			})
		case "ipv6addressesset":
			r.items(name, empty, func(name []byte, empty bool) {
				var a types.InstanceIpv6Address
				r.only(name, empty, "ipv6address", func(v *string) { a.Ipv6Address = v })
				ni.Ipv6Addresses = append(ni.Ipv6Addresses, a)
			})
		default:
			r.skip(name, empty)
		}
	})
}

// only reads the children of an element, passing the value of those named key (in lower case)
// to set and skipping the others.
func (r *reader) only(name []byte, empty bool, key string, set func(*string)) {
	r.children(name, empty, func(name []byte, empty bool) {
		if string(r.lower(name)) == key {
			if v := r.str(name, empty); v != nil {
				set(v)
			}
			return
		}
		r.skip(name, empty)
	})
}

// true and false are the values boolOf points to.
var (
	trueValue  = true
	falseValue = false
)

// boolOf returns a pointer to a shared b: one per address was an allocation each. Nothing
// writes through what a DescribeInstances answer decodes to.
func boolOf(b bool) *bool {
	if b {
		return &trueValue
	}
	return &falseValue
}
