// Package ec2xml reads EC2's XML answers into the AWS SDK's types in one pass over their
// bytes, keeping only what karpnet converts, as the SDK's own deserializer reads them: its
// tests and fuzz target hold it to that deserializer. It says nothing of what to ask EC2 for
// and keeps no state: the buffers answers are read into, and the interner that shares their
// repeated values, are the caller's.
package ec2xml

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
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
	r := reader{b: body, intern: intern}
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
				r.instance(name, empty, &in)
				res.Instances = append(res.Instances, in)
			})
		default:
			r.skip(name, empty)
		}
	})
}

func (r *reader) instance(name []byte, empty bool, in *types.Instance) {
	r.children(name, empty, func(name []byte, empty bool) {
		switch string(r.lower(name)) {
		case "instanceid":
			in.InstanceId = r.str(name, empty)
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
						ip.Primary = &b
					default:
						r.skip(name, empty)
					}
				})
				ni.PrivateIpAddresses = append(ni.PrivateIpAddresses, ip)
			})
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

// reader reads an XML document in place. Once bad is set (it gave up), every method
// returns at once and what it returns is not used.
type reader struct {
	b   []byte
	i   int
	bad bool
	// fold holds a name in lower case for lower.
	fold [48]byte
	// open are the names of the elements skip is inside.
	open [][]byte
	// intern holds the values shared and sharedValue return.
	intern *snapshot.Interner
}

// lower returns name in ASCII lower case, nil for a name longer than any karpnet reads,
// valid until the next call: it is only compared (string(r.lower(name)) == "item" copies
// nothing).
func (r *reader) lower(name []byte) []byte {
	if len(name) > len(r.fold) {
		return nil
	}
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		r.fold[i] = c
	}
	return r.fold[:len(name)]
}

// root reads up to the first element's start tag and returns its name; a declaration
// before it must be XML 1.0 in UTF-8.
func (r *reader) root() (name []byte, empty bool) {
	r.space()
	if bytes.HasPrefix(r.b[r.i:], []byte("<?xml")) {
		end := bytes.Index(r.b[r.i:], []byte("?>"))
		if end < 0 || !plainDeclaration(r.b[r.i:r.i+end+2]) {
			r.bad = true
			return nil, false
		}
		r.i += end + 2
		r.space()
	}
	if r.i >= len(r.b) || r.b[r.i] != '<' {
		r.bad = true
		return nil, false
	}
	r.i++
	return r.startTag()
}

// plainDeclaration reports whether decl is an XML declaration for version 1.0, in UTF-8
// or with no encoding.
func plainDeclaration(decl []byte) bool {
	rest, ok := bytes.CutPrefix(decl, []byte(`<?xml version="1.0"`))
	if !ok {
		return false
	}
	if enc, ok := bytes.CutPrefix(rest, []byte(` encoding="`)); ok {
		if len(enc) < 5 || !bytes.EqualFold(enc[:5], []byte("utf-8")) {
			return false
		}
		rest = enc[5:]
		if !bytes.HasPrefix(rest, []byte(`"`)) {
			return false
		}
		rest = rest[1:]
	}
	return string(rest) == "?>"
}

func (r *reader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n':
			r.i++
		default:
			return
		}
	}
}

// children calls visit for each child element of the element just opened (named name,
// empty when it was <name/>), and reads its end tag. visit must read the child through.
func (r *reader) children(name []byte, empty bool, visit func(name []byte, empty bool)) {
	if empty || r.bad {
		return
	}
	for !r.bad {
		child, childEmpty, more := r.next(name)
		if !more {
			return
		}
		visit(child, childEmpty)
	}
}

// items calls visit for each child named item (the members of an EC2 list) and skips the
// others.
func (r *reader) items(name []byte, empty bool, visit func(name []byte, empty bool)) {
	r.children(name, empty, func(name []byte, empty bool) {
		if string(r.lower(name)) == "item" {
			visit(name, empty)
			return
		}
		r.skip(name, empty)
	})
}

// next reads the text up to the next tag inside the element named parent: a start tag is
// read and its name returned; parent's end tag is read and more is false.
func (r *reader) next(parent []byte) (name []byte, empty, more bool) {
	r.text(nil)
	if r.bad || r.i+1 >= len(r.b) {
		r.bad = true
		return nil, false, false
	}
	r.i++ // '<'
	if r.b[r.i] == '/' {
		r.i++
		r.endTag(parent)
		return nil, false, false
	}
	name, empty = r.startTag()
	return name, empty, !r.bad
}

// startTag reads a start tag after its '<': the name, attributes (skipped) and '>' or '/>'.
func (r *reader) startTag() (name []byte, empty bool) {
	name = r.name()
	for !r.bad {
		hadSpace := r.i
		r.space()
		if r.i >= len(r.b) {
			r.bad = true
			break
		}
		switch r.b[r.i] {
		case '>':
			r.i++
			return name, false
		case '/':
			if r.i+1 < len(r.b) && r.b[r.i+1] == '>' {
				r.i += 2
				return name, true
			}
			r.bad = true
		default:
			if hadSpace == r.i {
				r.bad = true
				break
			}
			r.attribute()
		}
	}
	return nil, false
}

// attribute reads name="value" (or 'value'), checking the value's text.
func (r *reader) attribute() {
	if !nameStart(r.b[r.i]) {
		r.bad = true
		return
	}
	for r.i < len(r.b) && (nameByte(r.b[r.i]) || r.b[r.i] == ':') {
		r.i++
	}
	r.space()
	if r.i+1 >= len(r.b) || r.b[r.i] != '=' {
		r.bad = true
		return
	}
	r.i++
	r.space()
	if r.i >= len(r.b) || r.b[r.i] != '"' && r.b[r.i] != '\'' {
		r.bad = true
		return
	}
	quote := r.b[r.i]
	r.i++
	end := bytes.IndexByte(r.b[r.i:], quote)
	if end < 0 {
		r.bad = true
		return
	}
	value := r.b[r.i : r.i+end]
	if bytes.IndexByte(value, '<') >= 0 || bytes.IndexByte(value, '&') >= 0 || !plainText(value) {
		r.bad = true
		return
	}
	r.i += end + 1
}

// endTag reads an end tag after its "</", which must close want.
func (r *reader) endTag(want []byte) {
	name := r.name()
	r.space()
	if r.bad || r.i >= len(r.b) || r.b[r.i] != '>' || !bytes.Equal(name, want) {
		r.bad = true
		return
	}
	r.i++
}

// name reads an element name: ASCII letters, digits, '_', '-' and '.', not starting with a
// digit, '-' or '.'.
func (r *reader) name() []byte {
	start := r.i
	for r.i < len(r.b) && nameByte(r.b[r.i]) {
		r.i++
	}
	if r.i == start || !nameStart(r.b[start]) {
		r.bad = true
		return nil
	}
	return r.b[start:r.i]
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

func nameStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

// text reads text up to the next '<', appending it unescaped to to (when not nil).
func (r *reader) text(to []byte) []byte {
	for r.i < len(r.b) && !r.bad {
		c := r.b[r.i]
		switch {
		case c == '<':
			return to
		case c == '&':
			to = r.entity(to)
			continue
		case c >= utf8.RuneSelf:
			ch, size := utf8.DecodeRune(r.b[r.i:])
			if !validChar(ch, size) {
				r.bad = true
				return to
			}
			if to != nil {
				to = append(to, r.b[r.i:r.i+size]...)
			}
			r.i += size
			continue
		case c < ' ' && c != '\t' && c != '\n':
			r.bad = true // carriage returns (which XML turns into newlines) and control characters
			return to
		}
		if to != nil {
			to = append(to, c)
		}
		r.i++
	}
	return to
}

// validChar reports whether a decoded rune is a character XML allows (and was valid UTF-8).
func validChar(ch rune, size int) bool {
	switch {
	case ch == utf8.RuneError && size == 1:
		return false
	case ch < 0xD800:
		return true
	case ch < 0xE000:
		return false
	case ch <= 0xFFFD:
		return true
	default:
		return ch >= 0x10000 && ch <= 0x10FFFF
	}
}

// plainText reports whether b is text XML allows, with no carriage return.
func plainText(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < ' ' && c != '\t' && c != '\n' {
				return false
			}
			i++
			continue
		}
		ch, size := utf8.DecodeRune(b[i:])
		if !validChar(ch, size) {
			return false
		}
		i += size
	}
	return true
}

// entity reads an entity or character reference after its '&'.
func (r *reader) entity(to []byte) []byte {
	end := bytes.IndexByte(r.b[r.i:min(len(r.b), r.i+12)], ';')
	if end < 0 {
		r.bad = true
		return to
	}
	ref := r.b[r.i+1 : r.i+end]
	r.i += end + 1
	var ch rune
	switch string(ref) {
	case "lt":
		ch = '<'
	case "gt":
		ch = '>'
	case "amp":
		ch = '&'
	case "apos":
		ch = '\''
	case "quot":
		ch = '"'
	default:
		if len(ref) < 2 || ref[0] != '#' {
			r.bad = true
			return to
		}
		base, digits := 10, ref[1:]
		if digits[0] == 'x' {
			base, digits = 16, digits[1:]
		}
		n, err := strconv.ParseUint(string(digits), base, 32)
		if err != nil || n > utf8.MaxRune || !validChar(rune(n), 0) || n == '\r' {
			r.bad = true
			return to
		}
		ch = rune(n)
		if ch < ' ' && ch != '\t' && ch != '\n' {
			r.bad = true
			return to
		}
	}
	if to != nil {
		to = utf8.AppendRune(to, ch)
	}
	return to
}

// value reads the text of the element just opened and its end tag: an element with a child,
// a comment or CDATA in it makes the reader give up.
func (r *reader) value(name []byte, empty bool) string {
	return r.readValue(name, empty, false)
}

// sharedValue reads a value as value does, the interner's copy of it.
func (r *reader) sharedValue(name []byte, empty bool) string {
	return r.readValue(name, empty, true)
}

// shared reads a value as str does, pointing to the interner's copy of it.
func (r *reader) shared(name []byte, empty bool) *string {
	v := r.sharedValue(name, empty)
	if r.bad {
		return nil
	}
	return aws.String(v)
}

// readValue reads the text of the element just opened, interned when shared.
func (r *reader) readValue(name []byte, empty, shared bool) string {
	if empty || r.bad {
		return ""
	}
	start := r.i
	end := bytes.IndexByte(r.b[start:], '<')
	if end < 0 {
		r.bad = true
		return ""
	}
	raw := r.b[start : start+end]
	var v string
	if bytes.IndexByte(raw, '&') < 0 {
		if !plainText(raw) {
			r.bad = true
			return ""
		}
		if shared {
			v = r.intern.Bytes(raw)
		} else {
			v = string(raw)
		}
		r.i = start + end
	} else if text := r.text(make([]byte, 0, len(raw))); shared {
		v = r.intern.Bytes(text)
	} else {
		v = string(text)
	}
	if r.bad || r.i+1 >= len(r.b) || r.b[r.i+1] != '/' {
		r.bad = true
		return ""
	}
	r.i += 2
	r.endTag(name)
	return v
}

// str reads a value as the SDK keeps it: a pointer, to "" for an empty element.
func (r *reader) str(name []byte, empty bool) *string {
	v := r.value(name, empty)
	if r.bad {
		return nil
	}
	return aws.String(v)
}

// int32 reads an integer value as the SDK does (parsed as 64 bits, kept as 32).
func (r *reader) int32(name []byte, empty bool) *int32 {
	v := r.value(name, empty)
	if r.bad {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		r.bad = true
		return nil
	}
	return aws.Int32(int32(n))
}

// skip reads the element just opened through its end tag, whatever it holds (up to
// maxDepth levels).
func (r *reader) skip(name []byte, empty bool) {
	if empty || r.bad {
		return
	}
	r.open = append(r.open[:0], name)
	for len(r.open) > 0 && !r.bad {
		child, childEmpty, more := r.next(r.open[len(r.open)-1])
		switch {
		case !more:
			r.open = r.open[:len(r.open)-1]
		case !childEmpty:
			if len(r.open) == maxDepth {
				r.bad = true
				return
			}
			r.open = append(r.open, child)
		}
	}
}
