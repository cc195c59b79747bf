package snapshot_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// full returns a snapshot with every section filled in.
func full() *snapshot.Snapshot {
	taken := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	maxPods := int32(110)
	s := snapshot.New(taken)
	s.Context, s.Cluster, s.Region = "demo", "arn:aws:eks:us-west-2:111122223333:cluster/demo", "us-west-2"
	s.Nodes = []corev1.Node{{
		ObjectMeta: metav1.ObjectMeta{
			Name:              "ip-10-0-12-34.us-west-2.compute.internal",
			Labels:            map[string]string{snapshot.LabelNodePool: "default", corev1.LabelTopologyZone: "us-west-2a"},
			CreationTimestamp: metav1.NewTime(taken.Add(-time.Hour)),
		},
		Spec: corev1.NodeSpec{ProviderID: "aws:///us-west-2a/i-0123456789abcdef0"},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{
				corev1.ResourcePods:     resource.MustParse("29"),
				corev1.ResourceMemory:   resource.MustParse("7910788Ki"),
				"vpc.amazonaws.com/efa": resource.MustParse("1"),
			},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.12.34"}},
		},
	}}
	s.NodeClaims = []snapshot.NodeClaim{{
		Name: "default-x7k2p", APIVersion: "karpenter.sh/v1", Labels: map[string]string{snapshot.LabelNodePool: "default"},
		NodeClassRef: snapshot.NodeClassRef{Group: snapshot.AWSGroup, Kind: snapshot.KindEC2NodeClass, Name: "default"},
		ProviderID:   "aws:///us-west-2a/i-0123456789abcdef0", NodeName: "ip-10-0-12-34.us-west-2.compute.internal",
		Conditions: []snapshot.Condition{{Type: "Ready", Status: "True", LastTransitionTime: taken.Add(-time.Hour)}},
	}}
	s.NodePools = []snapshot.NodePool{{
		Name: "default", APIVersion: "karpenter.sh/v1beta1", NodeClassRef: snapshot.NodeClassRef{Name: "default"},
		Requirements: []snapshot.Requirement{{Key: corev1.LabelTopologyZone, Operator: "In", Values: []string{"us-west-2a"}}},
		Kubelet:      &snapshot.Kubelet{MaxPodsExpression: "min(250, max_pods)"},
	}}
	s.NodeClasses = []snapshot.EC2NodeClass{{
		Name: "default", APIVersion: "karpenter.k8s.aws/v1", AMIFamily: "AL2023",
		SubnetSelectorTerms:      []snapshot.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
		AssociatePublicIPAddress: new(bool), IPPrefixCount: &maxPods,
		NetworkInterfaces:      []snapshot.NetworkInterface{{InterfaceType: "interface"}, {NetworkCardIndex: 1, InterfaceType: "efa-only"}},
		PlacementGroupSelector: &snapshot.PlacementGroupSelector{Name: "training"},
		Kubelet:                &snapshot.Kubelet{MaxPods: &maxPods},
		StatusSubnets:          []snapshot.SubnetStatus{{ID: "subnet-0abc", Zone: "us-west-2a", ZoneID: "usw2-az1"}},
		StatusSecurityGroups:   []snapshot.SecurityGroupStatus{{ID: "sg-0abc", Name: "node"}},
		Conditions:             []snapshot.Condition{{Type: "SubnetsReady", Status: "False", Reason: "SubnetsNotFound", Message: "SubnetSelector did not match any Subnets"}},
	}}
	s.ENIConfigs = []snapshot.ENIConfig{{Name: "us-west-2a", Subnet: "subnet-0pod", SecurityGroups: []string{"sg-0abc"}}}
	s.AWSNode = &snapshot.AWSNode{Image: "amazon-k8s-cni:v1.23.1", Env: map[string]string{"ENABLE_PREFIX_DELEGATION": "true"}}
	s.SandboxFailures = []snapshot.SandboxFailure{{Node: "ip-10-0-12-34.us-west-2.compute.internal", Namespace: "default", Pod: "web-0",
		Message: "failed to assign an IP address to container", Count: 3, LastSeen: taken.Add(-time.Minute)}}
	s.Instances = []snapshot.Instance{{
		ID: "i-0123456789abcdef0", Type: "m5.large", State: "running", Zone: "us-west-2a", ZoneID: "usw2-az1",
		VpcID: "vpc-0abc", SubnetID: "subnet-0abc", PrivateIP: "10.0.12.34", SecurityGroups: []snapshot.GroupRef{{ID: "sg-0abc", Name: "node"}},
		ENIs: []snapshot.ENI{{ID: "eni-0abc", InterfaceType: "interface", SubnetID: "subnet-0abc", PrimaryIP: "10.0.12.34",
			PrivateIPs: []string{"10.0.12.34"}, IPv4Prefixes: []string{"10.0.13.0/28"}, IPv6Prefixes: []string{"2600:1f14::/80"}, Status: "in-use"}},
		Placement:  snapshot.Placement{GroupName: "training", GroupID: "pg-0abc", PartitionNumber: 2, Tenancy: "default"},
		LaunchTime: taken.Add(-time.Hour), Tags: map[string]string{"Name": "ip-10-0-12-34"},
	}}
	s.Subnets = []snapshot.Subnet{{ID: "subnet-0abc", VpcID: "vpc-0abc", CIDR: "10.0.0.0/19", Zone: "us-west-2a", ZoneID: "usw2-az1", AvailableIPs: 8000}}
	s.SecurityGroups = []snapshot.SecurityGroup{{ID: "sg-0abc", Name: "node",
		Inbound:  []snapshot.Rule{{Protocol: "-1", GroupIDs: []string{"sg-0abc"}}, {Protocol: "tcp", FromPort: 443, ToPort: 443, CIDRs: []string{"10.0.0.0/16"}}},
		Outbound: []snapshot.Rule{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}, IPv6CIDRs: []string{"::/0"}, PrefixListIDs: []string{"pl-0abc"}}}}}
	s.PlacementGroups = []snapshot.PlacementGroup{{ID: "pg-0abc", Name: "training", Strategy: "partition", PartitionCount: 3, State: "available"}}
	s.InstanceTypes = []snapshot.InstanceType{{Name: "m5.large", Hypervisor: "nitro", VCPUs: 2, MaxENIs: 3,
		NetworkCards: []snapshot.NetworkCard{{MaxENIs: 3}}, IPv4PerENI: 10, IPv6PerENI: 10, NetworkPerformance: "Up to 10 Gigabit"}}
	s.Gaps = []snapshot.Gap{{Source: snapshot.SourceDescribePlacementGroups, Reason: "UnauthorizedOperation", Remedy: "allow ec2:DescribePlacementGroups"}}
	return s
}

func TestWriteGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, full()); err != nil {
		t.Fatal(err)
	}
	testutil.Assert(t, filepath.Join("testdata", "full.json"), buf.String())
}

func TestRoundTrip(t *testing.T) {
	for name, s := range map[string]*snapshot.Snapshot{"full": full(), "empty": snapshot.New(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC))} {
		for _, compress := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "", true: "/gzip"}[compress], func(t *testing.T) {
				var buf bytes.Buffer
				if err := snapshot.Write(&buf, s); err != nil {
					t.Fatal(err)
				}
				data := buf.Bytes()
				if compress {
					data = gzipped(t, data)
				}
				got, err := snapshot.Read(bytes.NewReader(data))
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if diff := cmp.Diff(s, got); diff != "" {
					t.Errorf("Read(Write(s)) differs (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// corrupt returns a copy of data with the byte at i flipped.
func corrupt(data []byte, i int) []byte {
	out := bytes.Clone(data)
	out[i] ^= 0xff
	return out
}

func TestReadRefuses(t *testing.T) {
	minimal, err := os.ReadFile(filepath.Join("testdata", "minimal.json"))
	if err != nil {
		t.Fatal(err)
	}
	zipped := gzipped(t, minimal)
	tests := []struct {
		name string
		file string // in testdata; or data
		data []byte
		want string
	}{
		{name: "empty file", file: "empty.json", want: "the file is empty or truncated"},
		{name: "truncated JSON", file: "truncated.json", want: "the file is empty or truncated"},
		{name: "not JSON", file: "not-json.yaml", want: "not valid JSON at byte 1: invalid character 'k'"},
		{name: "wrong kind", file: "wrong-kind.json", want: `kind is "Report", not "Snapshot": is this a karpnet snapshot?`},
		{name: "wrong apiVersion", file: "wrong-api-version.json", want: `apiVersion "karpnet/v2" is not "karpnet/v1alpha1"`},
		{name: "newer format", file: "newer-format.json", want: "format version 3 is newer than this karpnet reads (2): upgrade karpnet"},
		{name: "no format version", file: "no-format-version.json", want: "format version 0 is not valid"},
		{name: "wrong field type", file: "wrong-field-type.json", want: `malformed: field "nodes" holds a JSON string`},
		{name: "trailing garbage", file: "trailing-garbage.json", want: "malformed: unexpected data after the snapshot"},
		{name: "two documents", file: "two-documents.json", want: "malformed: unexpected data after the snapshot"},
		{name: "missing taken", file: "missing-taken.json", want: "malformed: it has no taken time"},
		{name: "gzip truncated", data: zipped[:len(zipped)/2], want: "the file is empty or truncated"},
		{name: "gzip header only", data: zipped[:2], want: "reading gzip header"},
		{name: "gzip of not JSON", data: gzipped(t, []byte("hello")), want: "not valid JSON at byte 1"},
		{name: "gzip without its checksum", data: zipped[:len(zipped)-8], want: "the file is empty or truncated"},
		{name: "gzip with a wrong checksum", data: corrupt(zipped, len(zipped)-8), want: "malformed: gzip: invalid checksum"},
		{name: "gzip then garbage", data: append(bytes.Clone(zipped), "garbage after the gzip stream"...), want: "malformed: 29 bytes of unexpected data after the gzip stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data
			if tt.file != "" {
				var err error
				if data, err = os.ReadFile(filepath.Join("testdata", tt.file)); err != nil {
					t.Fatal(err)
				}
			}
			s, err := snapshot.Read(bytes.NewReader(data))
			if err == nil {
				t.Fatalf("Read: got a snapshot taken %v, want error %q", s.Taken, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read: got error %q, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestReadAccepts(t *testing.T) {
	for _, file := range []string{"minimal.json", "full.json"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range [][]byte{data, gzipped(t, data), append(data, "\n\t \n"...)} {
				s, err := snapshot.Read(bytes.NewReader(in))
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if s.Kind != snapshot.Kind || s.FormatVersion != 1 || s.Taken.IsZero() {
					t.Errorf("Read: got kind %q format %d taken %v", s.Kind, s.FormatVersion, s.Taken)
				}
			}
		})
	}
}

// FuzzRead checks that Read never panics and that whatever it accepts survives Write and Read.
func FuzzRead(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue // a directory such as testdata/fuzz
		}
		f.Add(data)
		f.Add(gzipped(f, data))
	}
	// Many tiny objects, plain and gzipped: what the element bound and the expansion check
	// stop at larger counts.
	tiny := []byte(`{"kind":"Snapshot","apiVersion":"karpnet/v1alpha1","formatVersion":1,"taken":"2026-11-20T09:30:00Z",` +
		`"subnets":[` + strings.Repeat(`{"id":"s"},`, 2000) + `{"id":"s"}],"nodes":[` +
		strings.Repeat(`{"metadata":{"name":"n"}},`, 2000) + `{"metadata":{"name":"n"}}]}`)
	f.Add(tiny)
	f.Add(gzipped(f, tiny))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := snapshot.Read(bytes.NewReader(data))
		one, oneErr := snapshot.ReadSequential(data, snapshot.DefaultMaxBytes)
		// A gzip stream that expands too much is noticed after a read, whose size is the
		// reader's: the sizes it gives, and what else is read before it, may differ; that the
		// input is refused may not.
		const bomb = "the gzip stream expands more than"
		if err != nil && oneErr != nil && (strings.HasPrefix(err.Error(), bomb) || strings.HasPrefix(oneErr.Error(), bomb)) {
			oneErr = err
		}
		if fmt.Sprint(err) != fmt.Sprint(oneErr) || !reflect.DeepEqual(s, one) {
			t.Fatalf("Read with lists decoded apart differs from one element at a time: error %v, one at a time %v", err, oneErr)
		}
		if err != nil {
			if s != nil {
				t.Errorf("Read returned a snapshot with error %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := snapshot.Write(&buf, s); err != nil {
			t.Fatalf("Write of an accepted snapshot: %v", err)
		}
		again, err := snapshot.Read(&buf)
		if err != nil {
			t.Fatalf("Read of a written snapshot: %v\n%s", err, buf.Bytes())
		}
		// Write leaves out empty lists and maps, so an empty one comes back nil.
		if diff := cmp.Diff(s, again, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Read(Write(Read(data))) differs (-first +second):\n%s", diff)
		}
	})
}
