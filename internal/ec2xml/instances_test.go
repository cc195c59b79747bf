package ec2xml

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// motoAnswer is a DescribeInstances answer as moto writes it.
const motoAnswer = "testdata/describe-instances-moto.xml"

// sdkInstances decodes body with the SDK's own DescribeInstances deserializer, as a 200
// answer.
func sdkInstances(body []byte) (*ec2.DescribeInstancesOutput, error) {
	client := ec2sim.NewClient("http://ec2.invalid", "us-west-2", func(o *ec2.Options) {
		o.HTTPClient = smithyhttp.ClientDoFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/xml"}},
				Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
		})
		o.RetryMaxAttempts = 1
	})
	return client.DescribeInstances(context.Background(), &ec2.DescribeInstancesInput{})
}

// kept prints what karpnet keeps of an answer: the nextToken (nil apart from empty), each
// reservation's owner, and every instance field by field as snapshot.Instance holds it.
func kept(p Page) string {
	var b strings.Builder
	next := "<nil>"
	if p.NextToken != nil {
		next = fmt.Sprintf("%q", *p.NextToken)
	}
	fmt.Fprintf(&b, "next=%s\n", next)
	for _, owner := range p.Owners {
		fmt.Fprintf(&b, "owner=%q\n", owner)
	}
	for _, v := range p.Instances {
		fmt.Fprintf(&b, "  %#v\n", v)
	}
	return b.String()
}

// sdkKept is kept of the SDK's decode, its instances converted by Instance.
func sdkKept(out *ec2.DescribeInstancesOutput) string {
	p := Page{NextToken: out.NextToken}
	for _, r := range out.Reservations {
		p.Owners = append(p.Owners, aws.ToString(r.OwnerId))
		for _, in := range r.Instances {
			p.Instances = append(p.Instances, Instance(in))
		}
	}
	return kept(p)
}

// TestReadInstancesAsTheSDKDoes reads answers of every shape karpnet meets (ec2sim's, moto's,
// and hand-written ones in EC2's spelling with what XML allows: indentation, empty elements,
// other case, character references, attributes, repeated elements, unknown nesting) and
// keeps exactly what the SDK's deserializer keeps of them.
func TestReadInstancesAsTheSDKDoes(t *testing.T) {
	sim := ec2sim.New()
	sim.AddInstances(ec2sim.EveryFieldInstances()...)
	sim.SetPageSize(2)
	moto, err := os.ReadFile(motoAnswer)
	if err != nil {
		t.Fatal(err)
	}
	first := sim.Answer(t, ec2sim.DescribeInstances, url.Values{})
	bodies := map[string][]byte{
		"ec2sim":              first,
		"ec2sim last page":    sim.Answer(t, ec2sim.DescribeInstances, url.Values{"NextToken": {simToken(t, first)}}),
		"moto":                moto,
		"no reservations":     []byte(`<?xml version="1.0" encoding="UTF-8"?><DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r</requestId><reservationSet/></DescribeInstancesResponse>`),
		"empty root":          []byte(`<DescribeInstancesResponse/>`),
		"declaration, no enc": []byte(`<?xml version="1.0"?>` + "\n" + `<DescribeInstancesResponse><nextToken>t&#65;&#x42;</nextToken></DescribeInstancesResponse>`),
		"indented": []byte(`<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
    <requestId>59dbff89-35bd-4eac-99ed-be587EXAMPLE</requestId>
    <reservationSet>
        <item>
            <reservationId>r-1</reservationId>
            <ownerId>123456789012</ownerId>
            <groupSet/>
            <instancesSet>
                <item>
                    <instanceId>i-1234567890abcdef0</instanceId>
                    <imageId>ami-1</imageId>
                    <instanceState>
                        <code>16</code>
                        <name>running</name>
                    </instanceState>
                    <privateDnsName>ip-10-0-0-12.us-west-2.compute.internal</privateDnsName>
                    <reason>User initiated (2026-11-30 09:01:02 GMT)</reason>
                    <productCodes/>
                    <instanceType>t3.micro</instanceType>
                    <launchTime>2026-11-30T08:15:42.000Z</launchTime>
                    <placement>
                        <availabilityZone>us-west-2a</availabilityZone>
                        <groupName></groupName>
                        <tenancy>default</tenancy>
                    </placement>
                    <monitoring><state>disabled</state></monitoring>
                    <subnetId>subnet-1</subnetId>
                    <vpcId>vpc-1</vpcId>
                    <privateIpAddress>10.0.0.12</privateIpAddress>
                    <groupSet>
                        <item><groupId>sg-1</groupId><groupName>default</groupName></item>
                    </groupSet>
                    <blockDeviceMapping><item><deviceName>/dev/xvda</deviceName><ebs><volumeId>vol-1</volumeId><attachTime>2026-11-30T08:15:43.000Z</attachTime></ebs></item></blockDeviceMapping>
                    <networkInterfaceSet>
                        <item>
                            <networkInterfaceId>eni-1</networkInterfaceId>
                            <subnetId>subnet-1</subnetId>
                            <description/>
                            <status>in-use</status>
                            <privateIpAddress>10.0.0.12</privateIpAddress>
                            <attachment><attachmentId>eni-attach-1</attachmentId><deviceIndex>0</deviceIndex><networkCardIndex>0</networkCardIndex></attachment>
                            <privateIpAddressesSet>
                                <item><privateIpAddress>10.0.0.12</privateIpAddress><primary>true</primary></item>
                                <item><privateIpAddress>10.0.0.13</privateIpAddress><primary>false</primary></item>
                            </privateIpAddressesSet>
                            <ipv6AddressesSet/>
                            <interfaceType>interface</interfaceType>
                        </item>
                    </networkInterfaceSet>
                    <tagSet>
                        <item><key>Name</key><value>web &amp; api</value></item>
                    </tagSet>
                </item>
            </instancesSet>
        </item>
    </reservationSet>
    <nextToken>eyJ2IjoiMiJ9</nextToken>
</DescribeInstancesResponse>
`),
		"other case, attributes, repeats": []byte(`<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/" a='1'>` +
			`<RESERVATIONSET><item><OwnerId>1</OwnerId><other/><instancesSet><junk><item><instanceId>i-x</instanceId></item></junk>` +
			`<item x="y"><InstanceID>i-1</InstanceID><instanceId>i-2</instanceId><instanceType/><vpcId></vpcId>` +
			`<tagSet><item><key>a</key><value>1</value></item></tagSet><tagSet><item><key>b</key></item><notitem><key>c</key></notitem></tagSet>` +
			`<placement><partitionNumber>+7</partitionNumber></placement><placement><groupId>pg-9</groupId><partitionNumber>4294967298</partitionNumber></placement>` +
			`<deep><a><b><c><d>text &lt; &#x263A;</d></c></b></a><e a="q" b='r'/></deep>` +
			`<networkInterfaceSet><item><attachment><deviceIndex>-1</deviceIndex></attachment><attachment><networkCardIndex>2</networkCardIndex></attachment>` +
			`<privateIpAddressesSet><item><primary>1</primary><privateIpAddress>10.1.1.1</privateIpAddress></item><item><primary>F</primary></item></privateIpAddressesSet>` +
			`<ipv4PrefixSet><item><ipv4Prefix>10.9.0.0/28</ipv4Prefix><ipv4Prefix>10.9.0.16/28</ipv4Prefix></item><item/></ipv4PrefixSet>` +
			`</item></networkInterfaceSet></item></instancesSet></item><item><ownerId>2</ownerId></item></RESERVATIONSET>` +
			`<nextToken></nextToken></DescribeInstancesResponse>trailing text the SDK never reads <<<`),
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			page, ok := ReadInstances(body, nil)
			if !ok {
				t.Fatal("gave up on an answer the SDK reads")
			}
			sdk, err := sdkInstances(body)
			if err != nil {
				t.Fatalf("the SDK refused it: %v", err)
			}
			if got, want := kept(page), sdkKept(sdk); got != want {
				t.Fatalf("kept differently:\n got %s\nwant %s", got, want)
			}
			interned, ok := ReadInstances(body, snapshot.NewInterner())
			if got, want := kept(interned), sdkKept(sdk); !ok || got != want {
				t.Fatalf("interning: read %t, kept differently:\n got %s\nwant %s", ok, got, want)
			}
		})
	}
	if got := len(bodies["ec2sim"]); got < 1000 {
		t.Fatalf("ec2sim's answer is %d bytes: the instances were not in it", got)
	}
}

// TestReadInstancesSharesRepeatedValues: read with a collection's interner, the values that
// repeat across instances (here the subnet, the instance type and a tag) are one copy from
// their second sight on; the instance IDs are not interned.
func TestReadInstancesSharesRepeatedValues(t *testing.T) {
	sim := ec2sim.New()
	for i := range 3 {
		sim.AddInstances(snapshot.Instance{ID: fmt.Sprintf("i-%017x", i), Type: "m5.large", State: "running", Zone: "us-west-2a",
			SubnetID: "subnet-a", Tags: map[string]string{"karpenter.sh/nodepool": "default"}})
	}
	body := sim.Answer(t, ec2sim.DescribeInstances, url.Values{})
	for _, x := range []*snapshot.Interner{nil, snapshot.NewInterner()} {
		page, ok := ReadInstances(body, x)
		if !ok || len(page.Instances) != 3 {
			t.Fatalf("read %v, %d instances", ok, len(page.Instances))
		}
		a, b := page.Instances[1], page.Instances[2]
		same := func(p, q string) bool { return p == q && unsafe.StringData(p) == unsafe.StringData(q) }
		const pool = "karpenter.sh/nodepool"
		shared := same(a.SubnetID, b.SubnetID) && same(a.Type, b.Type) && same(a.Tags[pool], b.Tags[pool])
		if shared != (x != nil) {
			t.Fatalf("with interner %v: repeated values shared = %v", x != nil, shared)
		}
		if unsafe.StringData(a.ID) == unsafe.StringData(b.ID) {
			t.Fatal("two instance IDs share one copy")
		}
	}
}

func simToken(tb testing.TB, body []byte) string {
	tb.Helper()
	token := NextToken(body)
	if token == "" {
		tb.Fatal("ec2sim's first page has no nextToken")
	}
	return token
}

// giveUpCases are answers ReadInstances does not read, each for a reason it gives up for.
func giveUpCases() map[string][]byte {
	wrap := func(instance string) []byte {
		return []byte(`<?xml version="1.0" encoding="UTF-8"?><DescribeInstancesResponse><reservationSet><item><ownerId>1</ownerId>` +
			`<instancesSet><item>` + instance + `</item></instancesSet></item></reservationSet></DescribeInstancesResponse>`)
	}
	return map[string][]byte{
		"comment":               wrap(`<instanceId>i-1</instanceId><!-- note -->`),
		"CDATA":                 wrap(`<instanceId><![CDATA[i-1]]></instanceId>`),
		"prefix":                wrap(`<ec2:instanceId xmlns:ec2="x">i-1</ec2:instanceId>`),
		"carriage return":       wrap("<instanceId>i-1\r\n</instanceId>"),
		"unknown entity":        wrap(`<instanceId>&nbsp;</instanceId>`),
		"control character ref": wrap(`<instanceId>&#1;</instanceId>`),
		"mismatched end":        wrap(`<instanceId>i-1</instanceid>`),
		"unclosed":              wrap(`<instanceId>i-1`),
		"truncated":             wrap(`<instanceId>i-1</instanceId>`)[:120],
		"invalid UTF-8":         wrap("<instanceId>i-\xff</instanceId>"),
		"control character":     wrap("<instanceId>i-\x01</instanceId>"),
		"non-ASCII name":        wrap(`<instanceÏd>i-1</instanceÏd>`),
		"child in a value":      wrap(`<instanceId><b/></instanceId>`),
		"bad number":            wrap(`<placement><partitionNumber>three</partitionNumber></placement>`),
		"bad boolean":           wrap(`<networkInterfaceSet><item><privateIpAddressesSet><item><primary>yes</primary></item></privateIpAddressesSet></item></networkInterfaceSet>`),
		"bad time":              wrap(`<launchTime>yesterday</launchTime>`),
		"empty time":            wrap(`<launchTime/>`),
		"UTF-16 declaration":    []byte(`<?xml version="1.0" encoding="UTF-16"?><DescribeInstancesResponse/>`),
		"doctype":               []byte(`<!DOCTYPE x><DescribeInstancesResponse/>`),
		"attribute no value":    wrap(`<instanceId checked>i-1</instanceId>`),
		"attribute no name":     wrap(`<instanceId ="x">i-1</instanceId>`),
		"too deep": wrap(`<instanceId>i-1</instanceId><x>` + strings.Repeat("<a>", maxDepth+1) +
			strings.Repeat("</a>", maxDepth+1) + `</x>`),
	}
}

// TestReadInstancesGivesUpOnWhatItIsNotSureOf: each answer here is one ReadInstances does not
// read, and leaves to the SDK's deserializer.
func TestReadInstancesGivesUpOnWhatItIsNotSureOf(t *testing.T) {
	for name, body := range giveUpCases() {
		t.Run(name, func(t *testing.T) {
			if _, ok := ReadInstances(body, nil); ok {
				t.Fatal("read an answer it should have given up on")
			}
		})
	}
}

func TestNextToken(t *testing.T) {
	for body, want := range map[string]string{
		`<DescribeInstancesResponse><reservationSet/><nextToken>abc+/=</nextToken></DescribeInstancesResponse>`: "abc+/=",
		`<DescribeInstancesResponse><nextToken>a&amp;b</nextToken></DescribeInstancesResponse>`:                 "a&b",
		`<DescribeInstancesResponse><reservationSet/></DescribeInstancesResponse>`:                              "",
		`<DescribeInstancesResponse><nextToken>cut`:                                                             "",
	} {
		if got := NextToken([]byte(body)); got != want {
			t.Errorf("NextToken(%q) = %q, want %q", body, got, want)
		}
	}
}

// FuzzReadInstances: whatever the answer, ReadInstances does not panic, and when it reads one
// that the SDK reads too, both keep the same, field by field; when it reads one the SDK
// refuses, the refusal is about a value karpnet does not read, never the XML itself.
func FuzzReadInstances(f *testing.F) {
	sim := ec2sim.New()
	sim.AddInstances(ec2sim.EveryFieldInstances()...)
	f.Add(sim.Answer(f, ec2sim.DescribeInstances, url.Values{}))
	if moto, err := os.ReadFile(motoAnswer); err == nil {
		f.Add(moto)
	}
	f.Add([]byte(`<DescribeInstancesResponse><reservationSet><item><instancesSet><item><instanceId>i&amp;1</instanceId></item></instancesSet></item></reservationSet><nextToken>n</nextToken></DescribeInstancesResponse>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		page, ok := ReadInstances(body, nil)
		if !ok {
			return
		}
		sdk, err := sdkInstances(body)
		if err != nil {
			var syntax *xml.SyntaxError
			if errors.As(err, &syntax) {
				t.Fatalf("read XML the SDK finds malformed: %v", err)
			}
			return
		}
		if got, want := kept(page), sdkKept(sdk); got != want {
			t.Fatalf("kept differently:\n got %s\nwant %s", got, want)
		}
		// Leaving out every instance read before changes nothing else.
		first := ""
		skipped, ok := ReadInstancesExcept(body, nil, func(id string) bool {
			if first == "" {
				first = id
			}
			return id != "" && id == first // an instance without an ID is never one read before
		})
		if !ok {
			return // an instance named twice: the SDK reads it instead
		}
		page.Instances = slices.DeleteFunc(page.Instances, func(v snapshot.Instance) bool {
			return first != "" && v.ID == first
		})
		if got, want := kept(skipped), kept(page); got != want {
			t.Fatalf("left out more than %s:\n got %s\nwant %s", first, got, want)
		}
	})
}

// BenchmarkReadInstances reads one DescribeInstances page of 1,000 instances (ec2sim's
// rendering of a node with three ENIs) with the SDK's deserializer and with ReadInstances,
// alone and with an interner, as in a collection.
func BenchmarkReadInstances(b *testing.B) {
	sim := ec2sim.New()
	base := ec2sim.EveryFieldInstances()[0]
	for i := range 1000 {
		in := base
		in.ID = fmt.Sprintf("i-%017x", i)
		sim.AddInstances(in)
	}
	sim.SetPageSize(1000)
	body := sim.Answer(b, ec2sim.DescribeInstances, url.Values{})
	read := map[string]func() (int, error){
		"sdk": func() (int, error) {
			out, err := sdkInstances(body)
			if err != nil {
				return 0, err
			}
			n := 0
			for _, r := range out.Reservations {
				n += len(r.Instances)
			}
			return n, nil
		},
		"karpnet": func() (int, error) {
			p, ok := ReadInstances(body, nil)
			if !ok {
				return 0, errors.New("gave up")
			}
			return len(p.Instances), nil
		},
	}
	intern := snapshot.NewInterner()
	read["karpnet-interned"] = func() (int, error) {
		p, ok := ReadInstances(body, intern)
		if !ok {
			return 0, errors.New("gave up")
		}
		return len(p.Instances), nil
	}
	for _, way := range []string{"sdk", "karpnet", "karpnet-interned"} {
		b.Run(way, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if n, err := read[way](); err != nil || n != 1000 {
					b.Fatalf("%v, %d instances", err, n)
				}
			}
		})
	}
}

// TestReadInstancesExceptLeavesOutWhatWasRead: instances skip names are left out, every other
// one is read as ReadInstances reads it, and so is every other part of the answer.
func TestReadInstancesExceptLeavesOutWhatWasRead(t *testing.T) {
	sim := ec2sim.New()
	base := ec2sim.EveryFieldInstances()
	for i := range 6 {
		in := base[i%len(base)]
		in.ID = fmt.Sprintf("i-%017x", i)
		sim.AddInstances(in)
	}
	body := sim.Answer(t, ec2sim.DescribeInstances, url.Values{})
	want, ok := ReadInstances(body, nil)
	if !ok {
		t.Fatal("ReadInstances gave up")
	}
	even := func(id string) bool { return id[len(id)-1]%2 == 0 }
	got, ok := ReadInstancesExcept(body, nil, even)
	if !ok {
		t.Fatal("ReadInstancesExcept gave up")
	}
	want.Instances = slices.DeleteFunc(want.Instances, func(v snapshot.Instance) bool { return even(v.ID) })
	if n := len(want.Instances); n != 3 {
		t.Fatalf("the answer holds %d odd instances, want 3", n)
	}
	if g, w := kept(got), kept(want); g != w {
		t.Errorf("read differently:\n got %s\nwant %s", g, w)
	}
}
