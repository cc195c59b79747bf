package cluster

import "fmt"

// kind is how a node came to be.
type kind int

const (
	karpenterNode kind = iota
	managedNode
	hybridNode
	// autoNode is an EKS Auto Mode node: named after its instance, launched from a NodeClass.
	autoNode
	// fargateNode is an EKS Fargate node: the Karpenter controller runs on Fargate.
	fargateNode
)

// fault is a deliberate problem planted on one node.
type fault int

const (
	_ fault = iota // the zero fault: none
	// instanceTerminated: the node's instance was terminated out of band; the Node remains.
	instanceTerminated
	// instanceMissing: EC2 does not return the node's instance at all.
	instanceMissing
	// extraSecurityGroup: someone attached a debug security group to the instance by hand.
	extraSecurityGroup
	// wrongTypeLabel: the node's instance-type label was overwritten by hand.
	wrongTypeLabel
	// sandboxFailures: pods on the node cannot get an IP address.
	sandboxFailures
	// consolidating: Karpenter is deleting the node (consolidation): its instance is shutting
	// down. Healthy: nothing must be reported.
	consolidating
	// neverRegistered: the instance launched into a subnet whose route table lost its default
	// route; it runs, but no Node joins, and the NodeClaim waits for its registration TTL.
	neverRegistered
	// leaked: an instance Karpenter launched for the cluster that no NodeClaim names any more.
	leaked
)

// nodePlan is one node of the demo cluster.
type nodePlan struct {
	// key names the node in the generator; every ID and address derives from it.
	key   string
	kind  kind
	pool  string // NodePool, or managed node group
	class string // EC2NodeClass, or NodeClass of an Auto Mode node
	typ   string
	zone  string // a, b or c
	// subnet is the key of the launch subnet.
	subnet string
	spot   bool
	fault  fault
}

// plans lists every node: 18 general, 8 batch, 2 training, 3 managed, 1 hybrid, 2 Auto Mode
// web nodes, a general node Karpenter is consolidating, the Fargate node Karpenter runs on,
// a batch NodeClaim whose node never joined and a batch instance no NodeClaim names. New nodes go last, so the addresses of the others stay as they are.
func plans() []nodePlan {
	var out []nodePlan
	general := []string{"m5.large", "m6i.xlarge", "c6i.xlarge", "m5.xlarge", "m6i.large", "c6i.2xlarge"}
	faults := map[string]fault{
		"general-a-2": instanceTerminated,
		"general-b-4": instanceMissing,
		"general-a-5": extraSecurityGroup,
		"general-b-1": wrongTypeLabel,
	}
	for _, z := range []string{"a", "b", "c"} {
		for i, typ := range general {
			key := fmt.Sprintf("general-%s-%d", z, i)
			p := nodePlan{
				key: key, pool: "general", class: "default", typ: typ, zone: z,
				subnet: "private-" + z, spot: i%3 != 0, fault: faults[key],
			}
			switch key {
			case "general-b-1":
				p.typ = "m5.2xlarge" // its label says m5.xlarge
			case "general-c-1":
				p.subnet = "legacy-c" // launched before the subnet lost its discovery tag
			}
			out = append(out, p)
		}
	}
	batch := []struct{ zone, typ string }{
		{"a", "m5.xlarge"}, {"a", "m6i.xlarge"},
		{"b", "m5.xlarge"}, {"b", "m6i.large"},
		{"c", "m5.2xlarge"}, {"c", "m6i.xlarge"}, {"c", "m5.xlarge"}, {"c", "m4.large"},
	}
	for i, b := range batch {
		p := nodePlan{
			key: fmt.Sprintf("batch-%s-%d", b.zone, i), pool: "batch", class: "batch", typ: b.typ,
			zone: b.zone, subnet: "batch-" + b.zone, spot: true,
		}
		if b.typ == "m4.large" {
			// A Xen type: no prefix delegation, one usable ENI, yet kubelet.maxPods is 110.
			p.fault, p.spot = sandboxFailures, false
		}
		out = append(out, p)
	}
	for i := range 2 {
		out = append(out, nodePlan{
			key: fmt.Sprintf("training-b-%d", i), pool: "training", class: "efa", typ: "p5.48xlarge",
			zone: "b", subnet: "ml-b",
		})
	}
	for _, z := range []string{"a", "b", "c"} {
		out = append(out, nodePlan{
			key: "system-" + z, kind: managedNode, pool: "system", typ: "m5.large", zone: z, subnet: "private-" + z,
		})
	}
	out = append(out, nodePlan{key: "hybrid-0", kind: hybridNode, pool: "edge"})
	// The web NodePool may use every zone, but its NodeClass's pod subnets are tagged only in
	// a and b: the node in c gets no pod addresses.
	for _, w := range []struct{ zone, typ string }{{"a", "c6a.large"}, {"c", "c6a.xlarge"}} {
		out = append(out, nodePlan{
			key: "web-" + w.zone + "-0", kind: autoNode, pool: autoPool, class: autoClass, typ: w.typ,
			zone: w.zone, subnet: "private-" + w.zone,
		})
	}
	out = append(out,
		nodePlan{key: "general-a-6", pool: "general", class: "default", typ: "m5.large", zone: "a", subnet: "private-a",
			spot: true, fault: consolidating},
		nodePlan{key: "karpenter-a-0", kind: fargateNode, zone: "a", subnet: "private-a"},
		nodePlan{key: "batch-c-8", pool: "batch", class: "batch", typ: "m5.xlarge", zone: "c", subnet: "batch-c",
			spot: true, fault: neverRegistered},
		nodePlan{key: "batch-b-9", pool: "batch", class: "batch", typ: "m5.large", zone: "b", subnet: "batch-b",
			spot: true, fault: leaked},
	)
	return out
}
