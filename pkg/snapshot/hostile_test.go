package snapshot_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// minimalWith returns the minimal snapshot with extra JSON members added before "nodes".
func minimalWith(members string) []byte {
	return []byte(`{"kind":"Snapshot","apiVersion":"karpnet/v1alpha1","formatVersion":1,"taken":"2026-11-20T09:30:00Z",` +
		members + `"nodes":[]}`)
}

// TestReadRefusesHostile covers files shaped to exhaust memory or time, or to make checks
// compute with numbers that wrap around: each is refused with one line that says what and
// where.
func TestReadRefusesHostile(t *testing.T) {
	type hostile struct {
		name string
		data []byte
		max  int64 // 0: DefaultMaxBytes
		want string
	}
	doc := func(rest string) []byte {
		return []byte(`{"kind":"Snapshot","apiVersion":"karpnet/v1alpha1","formatVersion":1,"taken":"2026-11-20T09:30:00Z",` + rest)
	}
	tests := []hostile{
		{name: "a 2 MiB string, gzipped to a few KiB", data: gzipped(t, minimalWith(`"context":"`+strings.Repeat("a", 2<<20)+`",`)),
			want: "a string at byte 110 is longer than 1 MiB"},
		{name: "2 MiB of whitespace, gzipped", data: gzipped(t, append(minimalWith(""), strings.Repeat(" ", 2<<20)...)),
			want: "more than 1 MiB of whitespace at byte 110"},
		{name: "whitespace inside the object", data: minimalWith(strings.Repeat("\n", 2<<20)), want: "more than 1 MiB of whitespace"},
		{name: "larger than the bound", data: minimalWith(`"notes":["` + strings.Repeat("n", 4096) + `"],`), max: 1024,
			want: "the snapshot is larger than 1Ki uncompressed: pass --snapshot-max-size to read a larger one"},
		{name: "a gzip bomb of small strings", data: gzipped(t, minimalWith(`"notes":[`+strings.Repeat(`"a",`, 17<<20)+`"a"],`)),
			want: "the gzip stream expands more than 200 times (1.0 MiB from "},
		{name: "more tiny nodes than a snapshot of this size holds",
			data: doc(`"nodes":[` + strings.Repeat(`{"metadata":{"name":"n"}},`, 104_857) + `{"metadata":{"name":"n"}}]}`),
			want: "nodes holds more than 104,857 elements, the most a snapshot of at most 1Gi holds (one per 10 KiB): pass --snapshot-max-size to read a larger one"},
		{name: "tiny subnets, with a smaller bound",
			data: doc(`"nodes":[],"subnets":[` + strings.Repeat(`{"id":"s"},`, 10_000) + `{"id":"s"}]}`), max: 1 << 20,
			want: "subnets holds more than 10,000 elements, the most a snapshot of at most 1Mi holds"},
		{name: "a gzip bomb of tiny nodes, refused in its first MiB",
			data: gzipped(t, doc(`"nodes":[`+strings.Repeat(`{"metadata":{"name":"n"}},`, 8<<20/26)+`{"metadata":{"name":"n"}}]}`)),
			want: "the gzip stream expands more than 200 times (1.0 MiB from "},
		{name: "garbage after the gzip stream", data: append(gzipped(t, minimalWith("")), "garbage"...),
			want: "malformed: 7 bytes of unexpected data after the gzip stream"},
		{name: "a creation time that is not a time",
			data: doc(`"nodes":[{"metadata":{"name":"a"}},{"metadata":{"name":"b","creationTimestamp":"yesterday"}}]}`),
			want: `malformed: nodes[1].metadata.creationTimestamp is "yesterday": parsing time`},
		{name: "a sandbox failure's time",
			data: doc(`"nodes":[],"sandboxFailures":[{"node":"a","pod":"p","count":3,"lastSeen":"2026-13-01T00:00:00Z"}]}`),
			want: `malformed: sandboxFailures[0].lastSeen is "2026-13-01T00:00:00Z"`},
		{name: "a quantity that is not one", data: doc(`"nodes":[{"metadata":{"name":"a"},"status":{"capacity":{"pods":"many"}}}]}`),
			want: `malformed: nodes[0].status.capacity.pods is "many"`},
		{name: "pods that wrap around",
			data: doc(`"nodes":[{"metadata":{"name":"a"},"status":{"capacity":{"pods":"99999999999999999999"}}}]}`),
			want: `malformed: nodes[0].status.capacity.pods: 99999999999999999999 is out of range (0 to 10000000)`},
		{name: "negative ENIs", data: doc(`"nodes":[],"instanceTypes":[{"name":"m5.large","maxENIs":-2147483648,"ipv4PerENI":10}]}`),
			want: `malformed: instanceTypes[0].maxENIs: -2147483648 is out of range (0 to 1024)`},
		{name: "a NodeClaim capacity that wraps around",
			data: doc(`"nodes":[],"nodeClaims":[{"name":"c","capacity":{"vpc.amazonaws.com/pod-eni":"1e30"}}]}`),
			want: `malformed: nodeClaims[0].capacity.vpc.amazonaws.com/pod-eni: 1e30 is out of range`},
		{name: "free addresses below zero", data: doc(`"nodes":[],"subnets":[{"id":"subnet-1","availableIPs":-5}]}`),
			want: `malformed: subnets[0].availableIPs: -5 is out of range (0 to 16777216)`},
		{name: "a subnet CIDR with a /99", data: doc(`"nodes":[],"subnets":[{"id":"subnet-1","cidr":"10.0.0.0/16"},{"id":"subnet-2","cidr":"10.0.0.0/99"}]}`),
			want: `malformed: subnets[1].cidr is "10.0.0.0/99": not a CIDR block such as 10.0.0.0/24`},
		{name: "a subnet IPv6 CIDR that is not one", data: doc(`"nodes":[],"subnets":[{"id":"subnet-1","ipv6CIDRs":["2600:1f14::/56","fd00::/200"]}]}`),
			want: `malformed: subnets[0].ipv6CIDRs[1] is "fd00::/200": not a CIDR block`},
		{name: "a network ACL rule number past the last",
			data: doc(`"nodes":[],"networkACLs":[{"id":"acl-1","vpcID":"vpc-1","entries":[{"ruleNumber":100,"protocol":"-1","action":"allow"},{"ruleNumber":40000,"protocol":"6","action":"deny","fromPort":443,"toPort":443}]}]}`),
			want: `malformed: networkACLs[0].entries[1].ruleNumber: 40000 is out of range (1 to 32767)`},
		{name: "a network ACL port past 65535",
			data: doc(`"nodes":[],"networkACLs":[{"id":"acl-1","vpcID":"vpc-1","entries":[{"ruleNumber":100,"protocol":"6","action":"allow","fromPort":1024,"toPort":70000}]}]}`),
			want: `malformed: networkACLs[0].entries[0].toPort: 70000 is out of range (0 to 65535)`},
		{name: "an IMDS hop limit past 64",
			data: doc(`"nodes":[],"instances":[{"id":"i-1","type":"m5.large","state":"running","zone":"us-west-2a","metadataOptions":{"httpPutResponseHopLimit":65}}]}`),
			want: `malformed: instances[0].metadataOptions.httpPutResponseHopLimit: 65 is out of range (0 to 64)`},
		{name: "a node agent's ready count below zero",
			data: doc(`"nodes":[],"agents":[{"name":"aws-node","desired":2,"ready":-1}]}`),
			want: `malformed: agents[0].ready: -1 is out of range`},
		{name: "a NodeClaim creation time that is not a time",
			data: doc(`"nodes":[],"nodeClaims":[{"name":"c","created":"soon"}]}`),
			want: `malformed: nodeClaims[0].created is "soon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			max := tt.max
			if max == 0 {
				max = snapshot.DefaultMaxBytes
			}
			s, err := snapshot.ReadLimited(bytes.NewReader(tt.data), max)
			if err == nil {
				t.Fatalf("ReadLimited: got a snapshot taken %v, want error %q", s.Taken, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadLimited: got error %q, want one containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is more than one line: %q", err)
			}
		})
	}
}
