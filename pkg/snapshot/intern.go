package snapshot

import (
	"hash/maphash"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// interner makes equal strings share one copy. Decoding gives every string of every node its
// own copy, and most of a node's strings repeat across nodes (label and tag keys, zones,
// instance types, subnet and security group IDs, condition types): at 100,000 nodes the copies
// are hundreds of MiB. Only what repeats is interned, so the table stays small: a value joins
// it the second time it is seen (seen), and the copies seen before that stay their own. Values
// of one node each (host names, NodeClaim names in tags, addresses) never join it: at 100,000
// nodes they were 200,000 of its entries, and every lookup paid for a table that large.
// The nodes' capacity and allocatable resources repeat too, whole: nodes of one instance type
// and AMI have the same lists, two maps of Quantity a node (about 120 MiB at 100,000 nodes).
//
// The values of one node repeat within it too: its host name is its name, a label and two
// addresses; an instance's address is its primary interface's. Those share the node's (or
// instance's) copy. (A table of every node's values, to share them with its NodeClaim and
// instance as well, cost a tenth of reading a snapshot for a sixteenth of its memory.)
type interner struct {
	strs map[string]string
	seen *seenOnce
	res  *resourceLists
	maps *stringMaps
	sgs  map[uint64][][]GroupRef
}

func newInterner() interner {
	return interner{strs: map[string]string{}, seen: &seenOnce{seed: maphash.MakeSeed()},
		res: &resourceLists{lists: map[string]corev1.ResourceList{}}, maps: &stringMaps{byHash: map[uint64][]map[string]string{}},
		sgs: map[uint64][][]GroupRef{}}
}

func (in interner) str(p *string) {
	if *p == "" {
		return
	}
	if v, ok := in.strs[*p]; ok {
		*p = v
		return
	}
	if in.seen.again(maphash.String(in.seen.seed, *p)) {
		in.strs[*p] = *p
	}
}

// same makes *p the copy of own when it equals it.
func same(p *string, own string) {
	if *p == own {
		*p = own
	}
}

// seenOnceSlots is how many values seenOnce remembers (a power of two): 512 KiB of hashes.
const seenOnceSlots = 1 << 16

// seenOnce remembers the hashes of values seen once, one a slot by the hash's low bits: a
// value whose slot a value seen later took is seen for a first time again, so a value
// seen again only far apart may stay out of the table, which costs a copy, never a value.
type seenOnce struct {
	seed  maphash.Seed
	slots [seenOnceSlots]uint64
}

// again reports whether the value of hash h was seen before, and remembers it otherwise.
func (s *seenOnce) again(h uint64) bool {
	slot := &s.slots[h&(seenOnceSlots-1)]
	if *slot == h {
		return true
	}
	*slot = h
	return false
}

// maxResourceLists bounds how many different resource lists are shared; past it a list is
// kept as it is.
const maxResourceLists = 4096

// resourceLists holds one copy of each resource list seen, by its key (resourceKey).
type resourceLists struct {
	lists       map[string]corev1.ResourceList
	key, number []byte
	names       []string
}

// resources returns the list seen before that is equal to l, or l. Lists are shared, not
// copied: nothing writes to a node's resources once it is read.
func (in interner) resources(l corev1.ResourceList) corev1.ResourceList {
	if len(l) == 0 {
		return l
	}
	t := in.res
	key, ok := t.resourceKey(l)
	if !ok {
		return l
	}
	if v, found := t.lists[string(key)]; found {
		return v
	}
	if len(t.lists) < maxResourceLists {
		t.lists[string(key)] = l
	}
	return l
}

// resourceKey writes into t.key what tells resource lists apart: each name with its quantity
// as it prints (canonical, in its format), in the order of the names. A list too long gives no
// key.
func (t *resourceLists) resourceKey(l corev1.ResourceList) ([]byte, bool) {
	if len(l) > 64 {
		return nil, false
	}
	t.names = t.names[:0]
	for name := range l {
		t.names = append(t.names, string(name))
	}
	slices.Sort(t.names)
	t.key = t.key[:0]
	for _, name := range t.names {
		q := l[corev1.ResourceName(name)]
		t.key = append(t.key, name...)
		t.key = append(t.key, '=')
		number, suffix := q.CanonicalizeBytes(t.number[:0])
		t.key = append(append(append(t.key, number...), suffix...), 0)
		t.number = number[:0]
	}
	return t.key, true
}

// typed interns a string of a named string type, such as corev1.NodeConditionType.
func typed[T ~string](in interner, p *T) {
	s := string(*p)
	in.str(&s)
	*p = T(s)
}

// strMap interns m's keys and values in place and returns m. Assigning to a key already in a
// map puts the key given in place of the one there (Go does so for string keys), so m keeps its
// size and no second map is made.
func (in interner) strMap(m map[string]string) map[string]string {
	for k, v := range m {
		in.str(&k)
		in.str(&v)
		m[k] = v
	}
	return m
}

func (in interner) groups(gs []GroupRef) {
	for i := range gs {
		in.str(&gs[i].ID)
		in.str(&gs[i].Name)
	}
}

func (in interner) conditions(cs []Condition) {
	for i := range cs {
		c := &cs[i]
		in.str(&c.Type)
		in.str(&c.Status)
		in.str(&c.Reason)
		in.str(&c.Message)
	}
}

// Intern makes the repeated strings of the nodes, NodeClaims and instances of s, and of every
// cluster it holds, share one copy each. Values do not change. Read and a live collection
// (Interner) do it as they decode.
func (s *Snapshot) Intern() {
	s.internWith(newInterner())
}

func (s *Snapshot) internWith(in interner) {
	for i := range s.Nodes {
		internNode(in, &s.Nodes[i])
	}
	for i := range s.NodeClaims {
		internClaim(in, &s.NodeClaims[i])
	}
	for i := range s.Instances {
		internInstance(in, &s.Instances[i])
	}
	for i := range s.Clusters {
		s.Clusters[i].internWith(in)
	}
}

func internNode(in interner, n *corev1.Node) {
	n.Labels, n.Annotations = in.strMap(n.Labels), in.strMap(n.Annotations)
	if h, ok := n.Labels[corev1.LabelHostname]; ok && h == n.Name {
		n.Labels[corev1.LabelHostname] = n.Name
	}
	for i := range n.OwnerReferences {
		in.str(&n.OwnerReferences[i].APIVersion)
		in.str(&n.OwnerReferences[i].Kind)
	}
	for i := range n.Spec.Taints {
		t := &n.Spec.Taints[i]
		in.str(&t.Key)
		in.str(&t.Value)
		typed(in, &t.Effect)
	}
	n.Status.Capacity, n.Status.Allocatable = in.resources(n.Status.Capacity), in.resources(n.Status.Allocatable)
	for i := range n.Status.Addresses {
		typed(in, &n.Status.Addresses[i].Type)
		same(&n.Status.Addresses[i].Address, n.Name)
	}
	for i := range n.Status.Conditions {
		c := &n.Status.Conditions[i]
		typed(in, &c.Type)
		typed(in, &c.Status)
		in.str(&c.Reason)
		in.str(&c.Message)
	}
	ni := &n.Status.NodeInfo
	for _, p := range []*string{&ni.KernelVersion, &ni.OSImage, &ni.ContainerRuntimeVersion, &ni.KubeletVersion,
		&ni.OperatingSystem, &ni.Architecture} {
		in.str(p)
	}
}

func internClaim(in interner, c *NodeClaim) {
	in.str(&c.APIVersion)
	c.Labels = in.sharedMap(in.strMap(c.Labels))
	in.str(&c.NodeClassRef.Group)
	in.str(&c.NodeClassRef.Kind)
	in.str(&c.NodeClassRef.Name)
	c.Requests, c.Capacity = in.sharedMap(in.strMap(c.Requests)), in.sharedMap(in.strMap(c.Capacity))
	in.conditions(c.Conditions)
}

func internInstance(in interner, v *Instance) {
	for _, p := range []*string{&v.Type, &v.State, &v.Zone, &v.ZoneID, &v.VpcID, &v.SubnetID, &v.Lifecycle,
		&v.Placement.GroupName, &v.Placement.GroupID, &v.Placement.Tenancy} {
		in.str(p)
	}
	v.SecurityGroups = in.sharedGroups(v.SecurityGroups)
	v.Tags = in.strMap(v.Tags)
	for i := range v.ENIs {
		e := &v.ENIs[i]
		same(&e.PrimaryIP, v.PrivateIP)
		if len(e.PrivateIPs) > 0 {
			same(&e.PrivateIPs[0], e.PrimaryIP)
		}
		in.str(&e.InterfaceType)
		in.str(&e.SubnetID)
		in.str(&e.Status)
		e.SecurityGroups = in.sharedGroups(e.SecurityGroups)
	}
}

// Interner shares repeated strings across the nodes, NodeClaims and instances given to it, as
// Read does, for a collection that builds a snapshot piece by piece from several goroutines:
// each piece is interned as it is decoded, so the copies are garbage at once. Its methods are
// safe for concurrent use; on a nil *Interner they do nothing.
type Interner struct {
	mu sync.Mutex
	in interner
}

// NewInterner returns an empty Interner, for one collection.
func NewInterner() *Interner { return &Interner{in: newInterner()} }

// Bytes returns b as a string, the one copy of it the interner holds (made when it is seen
// again): a decoder that interns as it reads allocates nothing for a value seen before.
func (x *Interner) Bytes(b []byte) string {
	if x == nil {
		return string(b)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if v, ok := x.in.strs[string(b)]; ok {
		return v
	}
	s := string(b)
	if x.in.seen.again(maphash.Bytes(x.in.seen.seed, b)) {
		x.in.strs[s] = s
	}
	return s
}

// Node interns the strings of n.
func (x *Interner) Node(n *corev1.Node) {
	if x != nil {
		x.mu.Lock()
		internNode(x.in, n)
		x.mu.Unlock()
	}
}

// Claim interns the strings of c.
func (x *Interner) Claim(c *NodeClaim) {
	if x != nil {
		x.mu.Lock()
		internClaim(x.in, c)
		x.mu.Unlock()
	}
}

// Instance interns the strings of v.
func (x *Interner) Instance(v *Instance) {
	if x != nil {
		x.mu.Lock()
		internInstance(x.in, v)
		x.mu.Unlock()
	}
}
