package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestInternKeepsValuesAndSharesCopies interns a decoded snapshot: it must equal the same file
// decoded without interning, and equal strings of nodes and instances seen after the value
// was seen once must then share one copy.
func TestInternKeepsValuesAndSharesCopies(t *testing.T) {
	data, err := os.ReadFile("testdata/full.json")
	if err != nil {
		t.Fatal(err)
	}
	var got, want Snapshot
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(got.Nodes) == 0 || len(got.Instances) == 0 || len(got.NodeClaims) == 0 {
		t.Fatalf("testdata/full.json has %d nodes, %d instances, %d NodeClaims: want some of each", len(got.Nodes), len(got.Instances), len(got.NodeClaims))
	}
	// Two more copies of the first node, instance and NodeClaim, decoded apart, so that every
	// string of the last two is the second and third sight of a value: the copy of the second
	// is the one kept.
	for range 2 {
		got.Nodes = append(got.Nodes, decoded(t, got.Nodes[0]))
		want.Nodes = append(want.Nodes, decoded(t, want.Nodes[0]))
		got.Instances = append(got.Instances, decoded(t, got.Instances[0]))
		want.Instances = append(want.Instances, decoded(t, want.Instances[0]))
		got.NodeClaims = append(got.NodeClaims, decoded(t, got.NodeClaims[0]))
		want.NodeClaims = append(want.NodeClaims, decoded(t, want.NodeClaims[0]))
	}
	got.Intern()
	if !reflect.DeepEqual(got, want) {
		t.Fatal("interning changed the snapshot's values")
	}
	a, b := got.Nodes[len(got.Nodes)-2], got.Nodes[len(got.Nodes)-1]
	for k, v := range a.Labels {
		if !sameCopy(v, b.Labels[k]) {
			t.Errorf("label %s of two nodes: %q and %q are two copies, want one", k, v, b.Labels[k])
		}
		for kb := range b.Labels {
			if kb == k && !sameCopy(k, kb) {
				t.Errorf("label key %s of two nodes is two copies, want one", k)
			}
		}
	}
	ia, ib := got.Instances[len(got.Instances)-2], got.Instances[len(got.Instances)-1]
	if !sameCopy(ia.Zone, ib.Zone) || !sameCopy(ia.Type, ib.Type) || !sameCopy(ia.SubnetID, ib.SubnetID) {
		t.Errorf("zone, type and subnet of two instances are separate copies, want one each")
	}
	ca, cb := got.NodeClaims[len(got.NodeClaims)-2], got.NodeClaims[len(got.NodeClaims)-1]
	if len(ca.Conditions) > 0 && !sameCopy(ca.Conditions[0].Type, cb.Conditions[0].Type) {
		t.Errorf("condition types of two NodeClaims are separate copies, want one")
	}
}

// decoded returns v encoded and decoded again: equal, sharing no string with v.
func decoded[T any](t *testing.T, v T) T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameCopy(a, b string) bool { return a == b && unsafe.StringData(a) == unsafe.StringData(b) }

// TestReadInternsEachElement: Read interns the nodes, instances and NodeClaims as it decodes
// them, so two nodes read from a file share their label strings.
func TestReadInternsEachElement(t *testing.T) {
	data, err := os.ReadFile("testdata/full.json")
	if err != nil {
		t.Fatal(err)
	}
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	s.Nodes = append(s.Nodes, s.Nodes[0], s.Nodes[0])
	s.Instances = append(s.Instances, s.Instances[0], s.Instances[0])
	var buf bytes.Buffer
	if err := Write(&buf, &s); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	a, b := got.Nodes[len(got.Nodes)-2], got.Nodes[len(got.Nodes)-1]
	if len(a.Labels) == 0 {
		t.Fatal("the first node of testdata/full.json has no labels")
	}
	for k, v := range a.Labels {
		if !sameCopy(v, b.Labels[k]) {
			t.Errorf("label %s of two nodes read: %q and %q are two copies, want one", k, v, b.Labels[k])
		}
	}
	ia, ib := got.Instances[len(got.Instances)-2], got.Instances[len(got.Instances)-1]
	if !sameCopy(ia.Zone, ib.Zone) || !sameCopy(ia.SubnetID, ib.SubnetID) {
		t.Errorf("zone and subnet of two instances read are separate copies, want one each")
	}
}

// TestInternerKeepsWhatRepeats: a value seen once stays out of the interner's table, whether
// it comes as a string or as bytes; seen again, it joins, and every later copy is that one.
func TestInternerKeepsWhatRepeats(t *testing.T) {
	x := NewInterner()
	for i := range 100_000 {
		var n corev1.Node
		n.Labels = map[string]string{"kubernetes.io/hostname": fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", i/256, i%256)}
		x.Node(&n)
		if got := x.Bytes(fmt.Appendf(nil, "general-%05d", i)); got != fmt.Sprintf("general-%05d", i) {
			t.Fatalf("Bytes gave %q back", got)
		}
	}
	if n := len(x.in.strs); n != 1 {
		t.Fatalf("after 200,000 values of one node each and one key seen 100,000 times the table holds %d, want 1", n)
	}
	first, second, third := x.Bytes([]byte("m5.large")), x.Bytes([]byte("m5.large")), x.Bytes([]byte("m5.large"))
	if sameCopy(first, second) || !sameCopy(second, third) {
		t.Errorf("a value seen three times: first and second one copy %v, second and third %v; want no, yes",
			sameCopy(first, second), sameCopy(second, third))
	}
	s := []string{"us-west-2a", "us-west-2a", "us-west-2a"}
	for i := range s {
		s[i] = string([]byte(s[i])) // copies of their own
		x.in.str(&s[i])
	}
	if sameCopy(s[0], s[1]) || !sameCopy(s[1], s[2]) {
		t.Errorf("a string seen three times: the second and third are not the one copy kept")
	}
}

// TestInternSharesEqualResourceLists: nodes whose capacity (or allocatable) lists are equal,
// quantity by quantity and format by format, share one map; a list that differs in a value or
// a format keeps its own, and what prints is unchanged.
func TestInternSharesEqualResourceLists(t *testing.T) {
	list := func(kv ...string) corev1.ResourceList {
		l := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	node := func(capacity corev1.ResourceList) corev1.Node {
		return corev1.Node{Status: corev1.NodeStatus{Capacity: capacity, Allocatable: list("pods", "29", "cpu", "1930m")}}
	}
	s := Snapshot{Nodes: []corev1.Node{
		node(list("cpu", "2", "memory", "7936Mi", "pods", "29")),
		node(list("pods", "29", "memory", "7936Mi", "cpu", "2")),     // equal: shared
		node(list("cpu", "2", "memory", "7936Mi", "pods", "110")),    // another value
		node(list("cpu", "2", "memory", "8321499136", "pods", "29")), // the same memory, written in DecimalSI
		node(list("cpu", "2", "memory", "7936Mi")),                   // fewer resources
	}}
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	s.Intern()
	if got, _ := json.Marshal(s); !bytes.Equal(got, want) {
		t.Fatalf("interning changed what prints:\n got %s\nwant %s", got, want)
	}
	same := func(a, b corev1.ResourceList) bool {
		return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
	}
	n := s.Nodes
	if !same(n[0].Status.Capacity, n[1].Status.Capacity) {
		t.Error("two equal capacity lists are two maps, want one")
	}
	for i := 2; i < len(n); i++ {
		if same(n[0].Status.Capacity, n[i].Status.Capacity) {
			t.Errorf("node %d's capacity %v shares the map of %v", i, n[i].Status.Capacity, n[0].Status.Capacity)
		}
	}
	for i := 1; i < len(n); i++ {
		if !same(n[0].Status.Allocatable, n[i].Status.Allocatable) {
			t.Errorf("node %d's allocatable list %v is a map of its own, want the one of node 0", i, n[i].Status.Allocatable)
		}
	}
}

// TestInternSharesANodesOwnValues: a node's own values, seen once each in the whole cluster,
// are one copy within it: the host name of its name, label and address, the address of an
// instance and of its primary interface.
func TestInternSharesANodesOwnValues(t *testing.T) {
	const name, ip = "ip-10-0-9-9.us-west-2.compute.internal", "10.0.9.9"
	fresh := func(s string) string { return string([]byte(s)) }
	s := &Snapshot{
		Nodes: []corev1.Node{{
			ObjectMeta: metav1.ObjectMeta{Name: fresh(name), Labels: map[string]string{corev1.LabelHostname: fresh(name)}},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fresh(ip)}, {Type: corev1.NodeInternalDNS, Address: fresh(name)}}},
		}},
		Instances: []Instance{{ID: "i-0aaaaaaaaaaaaaaa9", PrivateIP: fresh(ip),
			ENIs: []ENI{{PrimaryIP: fresh(ip), PrivateIPs: []string{fresh(ip), "10.0.9.10"}}}}},
	}
	s.Intern()
	n, v := s.Nodes[0], s.Instances[0]
	if !sameCopy(n.Labels[corev1.LabelHostname], n.Name) || !sameCopy(n.Status.Addresses[1].Address, n.Name) {
		t.Error("the node's hostname label or InternalDNS address is a copy of its name of its own")
	}
	if !sameCopy(v.ENIs[0].PrimaryIP, v.PrivateIP) || !sameCopy(v.ENIs[0].PrivateIPs[0], v.PrivateIP) {
		t.Error("the primary interface's address is a copy of the instance's of its own")
	}
	if n.Status.Addresses[0].Address != ip || v.ENIs[0].PrivateIPs[1] != "10.0.9.10" {
		t.Error("interning changed a value")
	}
}

// TestInternSharesEqualClaimLabels: NodeClaims whose labels (or requests, or capacity) are
// equal share one map; a claim with other labels keeps its own, and so does one with a value
// Bound may cut.
func TestInternSharesEqualClaimLabels(t *testing.T) {
	labels := func(zone string) map[string]string {
		return map[string]string{"karpenter.sh/nodepool": "general", "topology.kubernetes.io/zone": zone,
			"node.kubernetes.io/instance-type": "m5.large"}
	}
	long := labels("us-west-2a")
	long["note"] = strings.Repeat("x", 1<<16)
	s := &Snapshot{NodeClaims: []NodeClaim{
		{Name: "a", Labels: labels("us-west-2a"), Requests: map[string]string{"cpu": "1"}},
		{Name: "b", Labels: labels("us-west-2a"), Requests: map[string]string{"cpu": "1"}},
		{Name: "c", Labels: labels("us-west-2b"), Requests: map[string]string{"cpu": "2"}},
		{Name: "d", Labels: long},
		{Name: "e", Labels: maps.Clone(long)},
	}}
	want := decoded(t, *s)
	s.Intern()
	if !reflect.DeepEqual(*s, want) {
		t.Fatal("interning changed the NodeClaims' values")
	}
	same := func(a, b map[string]string) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	c := s.NodeClaims
	if !same(c[0].Labels, c[1].Labels) || !same(c[0].Requests, c[1].Requests) {
		t.Error("two NodeClaims with equal labels and requests keep a map each, want one")
	}
	if same(c[0].Labels, c[2].Labels) || same(c[0].Requests, c[2].Requests) {
		t.Error("NodeClaims with other labels or requests share a map")
	}
	if same(c[3].Labels, c[4].Labels) {
		t.Error("labels with a value of 64 KiB are shared: Bound, cutting it for one NodeClaim, would cut it for both")
	}
}

// TestInternSharesEqualSecurityGroupLists: instances and interfaces with equal security group
// lists share one, cut to its length, so that appending to one never writes into another's.
func TestInternSharesEqualSecurityGroupLists(t *testing.T) {
	groups := func(ids ...string) []GroupRef {
		out := make([]GroupRef, 0, 8)
		for _, id := range ids {
			out = append(out, GroupRef{ID: id, Name: "name-" + id})
		}
		return out
	}
	s := &Snapshot{Instances: []Instance{
		{ID: "i-1", SecurityGroups: groups("sg-1", "sg-2"), ENIs: []ENI{{ID: "eni-1", SecurityGroups: groups("sg-1", "sg-2")}}},
		{ID: "i-2", SecurityGroups: groups("sg-1", "sg-2"), ENIs: []ENI{{ID: "eni-2", SecurityGroups: groups("sg-2", "sg-1")}}},
	}}
	want := decoded(t, *s)
	s.Intern()
	if !reflect.DeepEqual(*s, want) {
		t.Fatal("interning changed the instances' values")
	}
	a, b := s.Instances[0], s.Instances[1]
	if &a.SecurityGroups[0] != &b.SecurityGroups[0] || &a.SecurityGroups[0] != &a.ENIs[0].SecurityGroups[0] {
		t.Error("equal security group lists are kept apart, want one")
	}
	if &b.ENIs[0].SecurityGroups[0] == &a.SecurityGroups[0] {
		t.Error("lists in another order are shared")
	}
	if cap(a.SecurityGroups) != len(a.SecurityGroups) {
		t.Errorf("a shared list has room past its end (%d of %d): an append would write into the others", len(a.SecurityGroups), cap(a.SecurityGroups))
	}
}

// TestPack: packed strings keep their values and share one allocation.
func TestPack(t *testing.T) {
	ss := []string{string([]byte("10.0.0.1")), "", string([]byte("10.0.0.12")), string([]byte("10.0.0.123"))}
	want := slices.Clone(ss)
	Pack(ss)
	if !slices.Equal(ss, want) {
		t.Fatalf("Pack changed the values: %q, want %q", ss, want)
	}
	first := unsafe.StringData(ss[0])
	if unsafe.StringData(ss[2]) != (*byte)(unsafe.Add(unsafe.Pointer(first), 8)) ||
		unsafe.StringData(ss[3]) != (*byte)(unsafe.Add(unsafe.Pointer(first), 17)) {
		t.Error("packed strings are not one allocation, one after another")
	}
}
