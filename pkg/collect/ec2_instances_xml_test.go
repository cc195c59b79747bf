package collect

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/karpnet/kubectl-karpnet/internal/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2SimAnswer returns the raw DescribeInstances answer ec2sim gives to form (one page).
func ec2SimAnswer(tb testing.TB, sim *ec2sim.Server, form url.Values) []byte {
	tb.Helper()
	form.Set("Action", "DescribeInstances")
	form.Set("Version", ec2sim.APIVersion)
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261201/us-west-2/ec2/aws4_request")
	rec := httptest.NewRecorder()
	sim.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("ec2sim answered %d: %s", rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// ec2SimInstances are instances with every field ec2Instance converts, in the shapes karpnet
// meets: several ENIs and network cards (EFA), prefixes, IPv6, a trunk, partition placement,
// Spot, a Capacity Reservation, a public address and tags with characters XML escapes.
func ec2SimInstances() []snapshot.Instance {
	launch := time.Date(2026, 11, 30, 8, 15, 42, 0, time.UTC)
	return []snapshot.Instance{
		{
			ID: "i-0a1", Type: "p5.48xlarge", State: "running", Zone: "us-west-2a", ZoneID: "usw2-az1",
			VpcID: "vpc-1", SubnetID: "subnet-a", PrivateIP: "10.0.1.10", PublicIP: "54.1.2.3", LaunchTime: launch,
			Lifecycle: "spot", CapacityReservationID: "cr-123",
			SecurityGroups: []snapshot.GroupRef{{ID: "sg-2", Name: "node"}, {ID: "sg-1", Name: "cluster & <shared>"}},
			Tags: map[string]string{"kubernetes.io/cluster/prod": "owned", "karpenter.sh/nodepool": "gpu",
				"Name": `a "quoted" 'name' & <more>`, "unicode": "zoë ☃"},
			Placement: snapshot.Placement{GroupName: "pg-cluster", GroupID: "pg-1", PartitionNumber: 3, Tenancy: "default"},
			ENIs: []snapshot.ENI{
				{ID: "eni-0", InterfaceType: "interface", SubnetID: "subnet-a", PrimaryIP: "10.0.1.10",
					PrivateIPs: []string{"10.0.1.10", "10.0.1.11", "10.0.1.12"}, IPv4Prefixes: []string{"10.0.2.16/28"},
					SecurityGroups: []snapshot.GroupRef{{ID: "sg-1"}}, Description: "Primary network interface", Status: "in-use"},
				{ID: "eni-1", InterfaceType: "efa", SubnetID: "subnet-a", PrimaryIP: "10.0.1.20", NetworkCardIndex: 1, DeviceIndex: 1,
					PrivateIPs: []string{"10.0.1.20"}, Status: "in-use"},
				{ID: "eni-2", InterfaceType: "trunk", SubnetID: "subnet-b", PrimaryIP: "10.0.3.5", DeviceIndex: 2,
					IPv6Addresses: []string{"2600:1f14::5"}, IPv6Prefixes: []string{"2600:1f14:0:1::/80"}, Status: "in-use"},
			},
		},
		{ID: "i-0b2", Type: "m5.large", State: "shutting-down", Zone: "us-west-2b", SubnetID: "subnet-b", PrivateIP: "10.0.3.9"},
		{ID: "i-0c3", Type: "c7g.xlarge", State: "pending"},
	}
}

// ec2SDKInstances decodes body with the SDK's own DescribeInstances deserializer (with
// decode, with karpnet's in its place), as a 200 answer.
func ec2SDKInstances(body []byte, decode bool) (*ec2.DescribeInstancesOutput, error) {
	return ec2SDKInstancesIn(context.Background(), body, decode)
}

// ec2SDKInstancesIn is ec2SDKInstances in ctx (which may carry a collection's interner).
func ec2SDKInstancesIn(ctx context.Context, body []byte, decode bool) (*ec2.DescribeInstancesOutput, error) {
	opts := []func(*ec2.Options){func(o *ec2.Options) {
		o.HTTPClient = smithyhttp.ClientDoFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/xml"}},
				Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
		})
		o.RetryMaxAttempts = 1
	}}
	client := ec2sim.NewClient("http://ec2.invalid", "us-west-2", opts...)
	var call []func(*ec2.Options)
	if decode {
		call = append(call, ec2DecodeInstances(&answerBuffers{}))
	}
	return client.DescribeInstances(ctx, &ec2.DescribeInstancesInput{}, call...)
}

// ec2Kept is what karpnet keeps of an answer: each reservation's owner and its instances as
// ec2Instance converts them, and the nextToken.
func ec2Kept(out *ec2.DescribeInstancesOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "next=%q\n", aws.ToString(out.NextToken))
	for _, r := range out.Reservations {
		fmt.Fprintf(&b, "owner=%q\n", aws.ToString(r.OwnerId))
		for _, in := range r.Instances {
			fmt.Fprintf(&b, "  %#v\n", ec2Instance(in))
		}
	}
	return b.String()
}

// TestReadInstancesAsTheSDKDoes reads answers of every shape karpnet meets (ec2sim's, moto's,
// and hand-written ones in EC2's spelling with what XML allows: indentation, empty elements,
// other case, character references, attributes, repeated elements, unknown nesting) and
// keeps exactly what the SDK's deserializer keeps of them.
func TestReadInstancesAsTheSDKDoes(t *testing.T) {
	sim := ec2sim.New()
	sim.AddInstances(ec2SimInstances()...)
	sim.SetPageSize(2)
	moto, err := os.ReadFile("testdata/ec2/describe-instances-moto.xml")
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string][]byte{
		"ec2sim":              ec2SimAnswer(t, sim, url.Values{}),
		"ec2sim last page":    ec2SimAnswer(t, sim, url.Values{"NextToken": {string(ec2SimToken(t, ec2SimAnswer(t, sim, url.Values{})))}}),
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
			reservations, token, ok := ec2ReadInstances(body, nil)
			if !ok {
				t.Fatal("gave up on an answer the SDK reads")
			}
			sdk, err := ec2SDKInstances(body, false)
			if err != nil {
				t.Fatalf("the SDK refused it: %v", err)
			}
			got, want := ec2Kept(&ec2.DescribeInstancesOutput{Reservations: reservations, NextToken: token}), ec2Kept(sdk)
			if got != want {
				t.Fatalf("kept differently:\n got %s\nwant %s", got, want)
			}
			through, err := ec2SDKInstances(body, true)
			if err != nil || ec2Kept(through) != want {
				t.Fatalf("through the client: %v\n%s", err, ec2Kept(through))
			}
			interned, err := ec2SDKInstancesIn(withInterner(t.Context()), body, true)
			if err != nil || ec2Kept(interned) != want {
				t.Fatalf("through the client, interning: %v\n%s", err, ec2Kept(interned))
			}
		})
	}
	if got := len(bodies["ec2sim"]); got < 1000 {
		t.Fatalf("ec2sim's answer is %d bytes: the instances were not in it", got)
	}
}

// TestReadInstancesSharesRepeatedValues: read with a collection's interner, the values that
// repeat across instances (here the subnet, the instance type and a tag) are one copy; the
// instance IDs are not interned.
func TestReadInstancesSharesRepeatedValues(t *testing.T) {
	sim := ec2SimTagged(3, map[string]string{"karpenter.sh/nodepool": "default"})
	body := ec2SimAnswer(t, sim, url.Values{})
	for _, x := range []*snapshot.Interner{nil, snapshot.NewInterner()} {
		reservations, _, ok := ec2ReadInstances(body, x)
		if !ok || len(reservations) != 3 {
			t.Fatalf("read %v, %d reservations", ok, len(reservations))
		}
		a, b := reservations[0].Instances[0], reservations[2].Instances[0]
		same := func(p, q *string) bool { return unsafe.StringData(*p) == unsafe.StringData(*q) }
		shared := same(a.SubnetId, b.SubnetId) && string(a.InstanceType) == string(b.InstanceType) &&
			unsafe.StringData(string(a.InstanceType)) == unsafe.StringData(string(b.InstanceType)) &&
			same(a.Tags[0].Value, b.Tags[0].Value)
		if shared != (x != nil) {
			t.Fatalf("with interner %v: repeated values shared = %v", x != nil, shared)
		}
		if same(a.InstanceId, b.InstanceId) {
			t.Fatal("two instance IDs share one copy")
		}
	}
}

func ec2SimToken(tb testing.TB, body []byte) []byte {
	tb.Helper()
	token := ec2NextToken(body)
	if token == "" {
		tb.Fatal("ec2sim's first page has no nextToken")
	}
	return []byte(token)
}

// TestReadInstancesGivesUpOnWhatItIsNotSureOf: each answer here is one ec2ReadInstances does
// not read; through the client the SDK's deserializer reads it instead, with the same outcome
// as without karpnet's (the same instances, or the same refusal).
func TestReadInstancesGivesUpOnWhatItIsNotSureOf(t *testing.T) {
	wrap := func(instance string) []byte {
		return []byte(`<?xml version="1.0" encoding="UTF-8"?><DescribeInstancesResponse><reservationSet><item><ownerId>1</ownerId>` +
			`<instancesSet><item>` + instance + `</item></instancesSet></item></reservationSet></DescribeInstancesResponse>`)
	}
	cases := map[string][]byte{
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
		"too deep": wrap(`<instanceId>i-1</instanceId><x>` + strings.Repeat("<a>", ec2XMLMaxDepth+1) +
			strings.Repeat("</a>", ec2XMLMaxDepth+1) + `</x>`),
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			if _, _, ok := ec2ReadInstances(body, nil); ok {
				t.Fatal("read an answer it should have given up on")
			}
			sdk, sdkErr := ec2SDKInstances(body, false)
			through, err := ec2SDKInstances(body, true)
			if (sdkErr == nil) != (err == nil) || sdkErr != nil && sdkErr.Error() != err.Error() {
				t.Fatalf("through karpnet's decoder: %v; the SDK alone: %v", err, sdkErr)
			}
			if err == nil && ec2Kept(sdk) != ec2Kept(through) {
				t.Fatalf("kept differently:\n got %s\nwant %s", ec2Kept(through), ec2Kept(sdk))
			}
		})
	}
}

// FuzzReadInstances: whatever the answer, ec2ReadInstances does not panic, and when it reads
// one that the SDK reads too, both keep the same; when it reads one the SDK refuses, the
// refusal is about a value karpnet does not read, never the XML itself.
func FuzzReadInstances(f *testing.F) {
	sim := ec2sim.New()
	sim.AddInstances(ec2SimInstances()...)
	f.Add(ec2SimAnswer(f, sim, url.Values{}))
	if moto, err := os.ReadFile("testdata/ec2/describe-instances-moto.xml"); err == nil {
		f.Add(moto)
	}
	f.Add([]byte(`<DescribeInstancesResponse><reservationSet><item><instancesSet><item><instanceId>i&amp;1</instanceId></item></instancesSet></item></reservationSet><nextToken>n</nextToken></DescribeInstancesResponse>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		reservations, token, ok := ec2ReadInstances(body, nil)
		if !ok {
			return
		}
		sdk, err := ec2SDKInstances(body, false)
		if err != nil {
			var syntax *xml.SyntaxError
			if errors.As(err, &syntax) {
				t.Fatalf("read XML the SDK finds malformed: %v", err)
			}
			return
		}
		got, want := ec2Kept(&ec2.DescribeInstancesOutput{Reservations: reservations, NextToken: token}), ec2Kept(sdk)
		if got != want {
			t.Fatalf("kept differently:\n got %s\nwant %s", got, want)
		}
	})
}

// BenchmarkDecodeInstances decodes one DescribeInstances page of 1,000 instances (ec2sim's
// rendering of a node with three ENIs) with the SDK's deserializer and with karpnet's.
func BenchmarkDecodeInstances(b *testing.B) {
	sim := ec2sim.New()
	base := ec2SimInstances()[0]
	for i := range ec2PageSize {
		in := base
		in.ID = ec2InstanceID(i)
		sim.AddInstances(in)
	}
	sim.SetPageSize(ec2PageSize)
	body := ec2SimAnswer(b, sim, url.Values{})
	for _, way := range []string{"sdk", "karpnet", "karpnet-interned"} {
		b.Run(way, func(b *testing.B) {
			ctx := context.Background()
			if way == "karpnet-interned" {
				ctx = withInterner(ctx) // as in a collection, where the interner holds what repeats
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				out, err := ec2SDKInstancesIn(ctx, body, way != "sdk")
				if err != nil || len(out.Reservations) != ec2PageSize {
					b.Fatalf("%v, %d reservations", err, len(out.Reservations))
				}
			}
		})
	}
}
