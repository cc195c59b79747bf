// Package ec2xml reads EC2's XML answers in one pass over their bytes into karpnet's own
// types, keeping only what karpnet uses, as the SDK's own deserializer reads them and
// Instance converts what it read: its tests and fuzz target hold it to that deserializer. It
// says nothing of what to ask EC2 for and keeps no state: the buffers answers are read into,
// and the interner that shares their repeated values, are the caller's.
package ec2xml

import (
	"strconv"

	smithytime "github.com/aws/smithy-go/time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// A DescribeInstances answer of 1,000 instances is about 6 MB of XML, most of it elements
// karpnet never reads (block devices, DNS names), and the SDK's decoder,
// built on encoding/xml, spends about 185 µs of CPU an instance on it: at 100,000 nodes that
// is most of a collection's CPU. ReadInstances reads the same answer in one pass over its
// bytes into snapshot.Instance (no SDK record in between), with the reservations' owners and
// the nextToken. It reads elements as the SDK does (names matched without regard to case, list
// members named item, a value the text of an element without children, unknown elements
// skipped, a repeated value replaced, a repeated list appended to) and parses the values it
// keeps with the same functions. Anything it is not sure of (a comment, CDATA, a namespace
// prefix, a non-ASCII name, a carriage return, a malformed tag or entity, an unparsable
// number, boolean or time) makes it give up, and the SDK decodes the answer instead: only the
// values of elements karpnet does not read are not checked. The caller gives the answer to
// the SDK's deserializer when ReadInstances gives up.

// maxDepth bounds the nesting ReadInstances follows inside an element it skips.
const maxDepth = 256

// Page is what ReadInstances keeps of a DescribeInstances answer.
type Page struct {
	// Owners are the reservations' owner IDs, in their order ("" for a reservation without
	// one).
	Owners []string
	// Instances are the answer's instances in its order, as Instance converts the SDK's.
	Instances []snapshot.Instance
	NextToken *string
}

// ReadInstances decodes a DescribeInstances answer; ok is false when it gave up. The
// values that repeat across instances (types, zones, subnet, VPC and security group IDs, tags,
// states) are taken from intern (nil: each its own copy).
func ReadInstances(body []byte, intern *snapshot.Interner) (page Page, ok bool) {
	return ReadInstancesExcept(body, intern, nil)
}

// ReadInstancesExcept is ReadInstances that leaves out, undecoded, every instance whose ID
// skip reports (nil: none): an instance already read is read past from its instanceId on
// (EC2 writes it first), so a second read of the same instances costs no decoding.
func ReadInstancesExcept(body []byte, intern *snapshot.Interner, skip func(id string) bool) (page Page, ok bool) {
	r := reader{b: body, intern: intern, skipID: skip}
	root, empty := r.root()
	if r.bad {
		return Page{}, false
	}
	r.children(root, empty, func(name []byte, empty bool) {
		switch string(r.lower(name)) {
		case "nexttoken":
			page.NextToken = r.str(name, empty)
		case "reservationset":
			r.items(name, empty, func(name []byte, empty bool) {
				page.Owners = append(page.Owners, "")
				r.reservation(name, empty, &page)
			})
		default:
			r.skip(name, empty)
		}
	})
	if r.bad {
		return Page{}, false
	}
	return page, true
}

// reservation reads one reservation: its owner into the page's last, its instances appended.
func (r *reader) reservation(name []byte, empty bool, page *Page) {
	r.children(name, empty, func(name []byte, empty bool) {
		switch string(r.lower(name)) {
		case "ownerid":
			page.Owners[len(page.Owners)-1] = r.sharedValue(name, empty)
		case "instancesset":
			r.items(name, empty, func(name []byte, empty bool) {
				var v snapshot.Instance
				if r.instance(name, empty, &v) {
					page.Instances = append(page.Instances, v)
				}
			})
		default:
			r.skip(name, empty)
		}
	})
}

// instance reads one instance into v; it returns false when skipID left it out.
func (r *reader) instance(name []byte, empty bool, v *snapshot.Instance) bool {
	drop := false
	r.tags = r.tags[:0]
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
			v.ID = r.value(name, empty)
			drop = r.skipID != nil && !r.bad && r.skipID(v.ID)
		case "instancetype":
			v.Type = r.sharedValue(name, empty)
		case "vpcid":
			v.VpcID = r.sharedValue(name, empty)
		case "subnetid":
			v.SubnetID = r.sharedValue(name, empty)
		case "privateipaddress":
			v.PrivateIP = r.value(name, empty)
		case "ipaddress":
			v.PublicIP = r.value(name, empty)
		case "instancelifecycle":
			v.Lifecycle = r.sharedValue(name, empty)
		case "capacityreservationid":
			v.CapacityReservationID = r.value(name, empty)
		case "reason":
			v.StateTransitionReason = r.value(name, empty)
		case "launchtime":
			s := r.value(name, empty)
			if r.bad {
				return
			}
			t, err := smithytime.ParseDateTime(s)
			if err != nil {
				r.bad = true
				return
			}
			v.LaunchTime = t.UTC()
		case "instancestate":
			r.children(name, empty, func(name []byte, empty bool) {
				if string(r.lower(name)) == "name" {
					v.State = r.sharedValue(name, empty)
					return
				}
				r.skip(name, empty)
			})
		case "placement":
			r.placement(name, empty, v)
		case "metadataoptions":
			r.children(name, empty, func(name []byte, empty bool) {
				switch string(r.lower(name)) {
				case "httpendpoint":
					v.MetadataOptions.HTTPEndpoint = r.sharedValue(name, empty)
				case "httptokens":
					v.MetadataOptions.HTTPTokens = r.sharedValue(name, empty)
				case "httpputresponsehoplimit":
					v.MetadataOptions.HTTPPutResponseHopLimit = r.int32(name, empty)
				default:
					r.skip(name, empty)
				}
			})
		case "groupset":
			v.SecurityGroups = r.groups(name, empty, v.SecurityGroups)
		case "tagset":
			r.items(name, empty, func(name []byte, empty bool) {
				var t tag
				r.children(name, empty, func(name []byte, empty bool) {
					switch string(r.lower(name)) {
					case "key":
						t.key = r.sharedValue(name, empty)
					case "value":
						t.value = r.sharedValue(name, empty)
					default:
						r.skip(name, empty)
					}
				})
				r.tags = append(r.tags, t)
			})
		case "networkinterfaceset":
			r.items(name, empty, func(name []byte, empty bool) {
				var e snapshot.ENI
				r.eni(name, empty, &e)
				v.ENIs = append(v.ENIs, e)
			})
		default:
			r.skip(name, empty)
		}
	})
	keep := !drop && !r.bad
	if keep {
		sortGroups(v.SecurityGroups)
		v.Tags = tagMap(r.tags)
		sortENIs(v.ENIs)
	}
	clear(r.tags) // holds no tag past the instance
	return keep
}

func (r *reader) placement(name []byte, empty bool, v *snapshot.Instance) {
	r.children(name, empty, func(name []byte, empty bool) {
		switch string(r.lower(name)) {
		case "availabilityzone":
			v.Zone = r.sharedValue(name, empty)
		case "availabilityzoneid":
			v.ZoneID = r.sharedValue(name, empty)
		case "groupname":
			v.Placement.GroupName = r.sharedValue(name, empty)
		case "groupid":
			v.Placement.GroupID = r.sharedValue(name, empty)
		case "partitionnumber":
			v.Placement.PartitionNumber = r.int32(name, empty)
		case "tenancy":
			v.Placement.Tenancy = r.sharedValue(name, empty)
		default:
			r.skip(name, empty)
		}
	})
}

// groups appends the security groups of a groupSet that have an ID.
func (r *reader) groups(name []byte, empty bool, to []snapshot.GroupRef) []snapshot.GroupRef {
	r.items(name, empty, func(name []byte, empty bool) {
		var g snapshot.GroupRef
		r.children(name, empty, func(name []byte, empty bool) {
			switch string(r.lower(name)) {
			case "groupid":
				g.ID = r.sharedValue(name, empty)
			case "groupname":
				g.Name = r.sharedValue(name, empty)
			default:
				r.skip(name, empty)
			}
		})
		to = appendGroup(to, g)
	})
	return to
}

func (r *reader) eni(name []byte, empty bool, e *snapshot.ENI) {
	r.ips = r.ips[:0]
	r.children(name, empty, func(name []byte, empty bool) {
		switch string(r.lower(name)) {
		case "networkinterfaceid":
			e.ID = r.value(name, empty)
		case "interfacetype":
			e.InterfaceType = r.sharedValue(name, empty)
		case "subnetid":
			e.SubnetID = r.sharedValue(name, empty)
		case "privateipaddress":
			e.PrimaryIP = r.value(name, empty)
		case "description":
			// aws-K8S-i-... on every interface the VPC CNI attaches: one of its own each.
			e.Description = r.value(name, empty)
		case "status":
			e.Status = r.sharedValue(name, empty)
		case "groupset":
			e.SecurityGroups = r.groups(name, empty, e.SecurityGroups)
		case "attachment":
			r.children(name, empty, func(name []byte, empty bool) {
				switch string(r.lower(name)) {
				case "deviceindex":
					e.DeviceIndex = r.int32(name, empty)
				case "networkcardindex":
					e.NetworkCardIndex = r.int32(name, empty)
				default:
					r.skip(name, empty)
				}
			})
		case "privateipaddressesset":
			r.items(name, empty, func(name []byte, empty bool) {
				var ip listedIP
				r.children(name, empty, func(name []byte, empty bool) {
					switch string(r.lower(name)) {
					case "privateipaddress":
						ip.addr = r.value(name, empty)
					case "primary":
						s := r.value(name, empty)
						if r.bad {
							return
						}
						b, err := strconv.ParseBool(s)
						if err != nil {
							r.bad = true
							return
						}
						ip.primary = b
					default:
						r.skip(name, empty)
					}
				})
				r.ips = append(r.ips, ip)
			})
		case "ipv4prefixset":
			r.items(name, empty, func(name []byte, empty bool) {
				e.IPv4Prefixes = appendSet(e.IPv4Prefixes, r.only(name, empty, "ipv4prefix"))
			})
		case "ipv6prefixset":
			r.items(name, empty, func(name []byte, empty bool) {
				e.IPv6Prefixes = appendSet(e.IPv6Prefixes, r.only(name, empty, "ipv6prefix"))
			})
		case "ipv6addressesset":
			r.items(name, empty, func(name []byte, empty bool) {
				e.IPv6Addresses = appendSet(e.IPv6Addresses, r.only(name, empty, "ipv6address"))
			})
		case "connectiontrackingconfiguration":
			r.connectionTracking(name, empty, &e.ConnectionTracking)
		default:
			r.skip(name, empty)
		}
	})
	finishENI(e, r.ips)
	clear(r.ips) // holds no address past the interface
}

// only reads the children of an element and returns the value of the last one named key (in
// lower case), "" for none; the others are skipped.
func (r *reader) only(name []byte, empty bool, key string) string {
	var v string
	r.children(name, empty, func(name []byte, empty bool) {
		if string(r.lower(name)) == key {
			v = r.value(name, empty)
			return
		}
		r.skip(name, empty)
	})
	return v
}

// connectionTracking reads an interface's connectionTrackingConfiguration into c.
func (r *reader) connectionTracking(name []byte, empty bool, c *snapshot.ConnectionTracking) {
	r.children(name, empty, func(name []byte, empty bool) {
		var to *int32
		switch string(r.lower(name)) {
		case "tcpestablishedtimeout":
			to = &c.TCPEstablishedTimeout
		case "udpstreamtimeout":
			to = &c.UDPStreamTimeout
		case "udptimeout":
			to = &c.UDPTimeout
		default:
			r.skip(name, empty)
			return
		}
		*to = r.int32(name, empty)
	})
}
