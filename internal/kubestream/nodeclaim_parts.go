package kubestream

import (
	"github.com/karpnet/kubectl-karpnet/internal/kubeobj"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// claimMetadata reads a NodeClaim's metadata: its name, labels, creation and deletion times.
func (r *jsonReader) claimMetadata(c *snapshot.NodeClaim) {
	if !r.enter() {
		return
	}
	var seen seenMembers
	for name, more := r.member(); more && r.ok; name, more = r.member() {
		switch string(name) {
		case "name":
			r.once(&seen, 0)
			c.Name, _ = r.text()
		case "labels":
			r.once(&seen, 1)
			c.Labels = r.stringMap()
		case "creationTimestamp":
			r.once(&seen, 2)
			c.Created = r.timestamp()
		case "deletionTimestamp":
			r.once(&seen, 3)
			c.Deleting = r.timestamp()
		default:
			r.skip()
		}
	}
}

// claimSpec reads a NodeClaim's spec: its nodeClassRef and resource requests.
func (r *jsonReader) claimSpec(c *snapshot.NodeClaim) {
	if !r.enter() {
		return
	}
	var seen seenMembers
	for name, more := r.member(); more && r.ok; name, more = r.member() {
		switch string(name) {
		case "nodeClassRef":
			r.once(&seen, 0)
			c.NodeClassRef = r.nodeClassRef()
		case "resources":
			r.once(&seen, 1)
			c.Requests = r.requests()
		default:
			r.skip()
		}
	}
}

// nodeClassRef reads a nodeClassRef as kubeobj reads one (kubeobj.NodeClassRefOf).
func (r *jsonReader) nodeClassRef() snapshot.NodeClassRef {
	var v [4]string
	r.texts(nodeClassRefMembers[:], v[:])
	return kubeobj.NodeClassRefOf(v[0], v[1], v[2], v[3])
}

// The members of a nodeClassRef and of a condition that are read, in the order of
// kubeobj.NodeClassRefOf's and kubeobj.ConditionOf's parameters.
var (
	nodeClassRefMembers = [...]string{"group", "kind", "name", "apiVersion"}
	conditionMembers    = [...]string{"type", "status", "reason", "message", "lastTransitionTime"}
)

// texts reads an object whose members named in names are strings into values, at the same
// places; other members are skipped, and a value that is not a string is left empty. It
// returns false when the value at the reader is not an object (skipped).
func (r *jsonReader) texts(names []string, values []string) bool {
	if !r.enter() {
		return false
	}
	var seen seenMembers
	for member, more := r.member(); more && r.ok; member, more = r.member() {
		i := memberIndex(names, member)
		if i < 0 {
			r.skip()
			continue
		}
		r.once(&seen, uint(i))
		values[i], _ = r.text()
	}
	return true
}

// memberIndex is the place of name in names, -1 when it is not there.
func memberIndex(names []string, name []byte) int {
	for i, n := range names {
		if n == string(name) {
			return i
		}
	}
	return -1
}

// requests reads spec.resources: its requests.
func (r *jsonReader) requests() map[string]string {
	if !r.enter() {
		return nil
	}
	var out map[string]string
	var seen seenMembers
	for name, more := r.member(); more && r.ok; name, more = r.member() {
		if string(name) == "requests" {
			r.once(&seen, 0)
			out = r.quantities("")
		} else {
			r.skip()
		}
	}
	return out
}

// claimStatus reads a NodeClaim's status: its providerID, nodeName, the VPC resources of its
// capacity and its conditions.
func (r *jsonReader) claimStatus(c *snapshot.NodeClaim) {
	if !r.enter() {
		return
	}
	var seen seenMembers
	for name, more := r.member(); more && r.ok; name, more = r.member() {
		switch string(name) {
		case "providerID":
			r.once(&seen, 0)
			c.ProviderID, _ = r.text()
		case "nodeName":
			r.once(&seen, 1)
			c.NodeName, _ = r.text()
		case "capacity":
			r.once(&seen, 2)
			c.Capacity = r.quantities(kubeobj.VPCPrefix)
		case "conditions":
			r.once(&seen, 3)
			c.Conditions = r.conditions()
		default:
			r.skip()
		}
	}
}

// conditions reads a list of conditions as kubeobj reads status.conditions: items that are
// not objects, and those without a type, are left out.
func (r *jsonReader) conditions() []snapshot.Condition {
	if r.i >= len(r.b) || r.b[r.i] != '[' {
		r.skip()
		return nil
	}
	var out []snapshot.Condition
	r.i++
	for r.ok {
		r.space()
		if r.i < len(r.b) && r.b[r.i] == ',' {
			r.i++
			r.space()
		}
		if r.i >= len(r.b) || r.b[r.i] == ']' {
			r.i++
			return out
		}
		if cond, ok := r.condition(); ok {
			out = append(out, cond)
		}
	}
	return out
}

// condition reads one item of a conditions list.
func (r *jsonReader) condition() (snapshot.Condition, bool) {
	var v [5]string
	if !r.texts(conditionMembers[:], v[:]) {
		return snapshot.Condition{}, false
	}
	return kubeobj.ConditionOf(v[0], v[1], v[2], v[3], v[4])
}
