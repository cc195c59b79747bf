package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestConnectionTrackingNotInherited(t *testing.T) {
	set := func(s *snapshot.Snapshot) {
		s.NodeClasses[0].ConnectionTracking = &snapshot.ConnectionTracking{TCPEstablishedTimeout: 350, UDPTimeout: 30}
		s.Instances[0].ENIs[0].ConnectionTracking = snapshot.ConnectionTracking{TCPEstablishedTimeout: 350, UDPTimeout: 30}
	}
	attach := func(e snapshot.ENI) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { s.Instances[0].ENIs = append(s.Instances[0].ENIs, e) }
	}
	cni := snapshot.ENI{ID: "eni-0cni", InterfaceType: "interface", DeviceIndex: 1, SubnetID: "subnet-0pods",
		Description: "aws-K8S-i-0123456789abcdef0"}
	const msg = "EC2NodeClass default sets connectionTracking (tcpEstablishedTimeout 350 s, udpTimeout 30 s), which " +
		"Karpenter applies only to the interfaces of its launch template; "
	const tail = " other timeouts: connections of the pods on them are tracked for those"
	const cniHas = "eni-0cni (device 1, attached by the VPC CNI: EC2's defaults) has" + tail
	const replace = "by deleting its NodeClaim default-abcde"
	finding := func(message, remedy string) []Finding {
		return []Finding{{ID: "connection-tracking-not-inherited", Severity: Info, Node: nodeA, Resource: "node/" + nodeA,
			Message: msg + message, Remedy: remedy, Commands: claimDeleted("default-abcde", nodeA, "Karpenter")}}
	}
	awsNode := func(image string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) { s.AWSNode.Image = image }
	}
	tracked := cni
	tracked.ConnectionTracking = snapshot.ConnectionTracking{TCPEstablishedTimeout: 350, UDPTimeout: 30}
	runCheckCases(t, connectionTrackingNotInherited, []checkCase{
		{name: "a class without connectionTracking is silent", edit: attach(cni)},
		{name: "only the launch template's interface is clean", edit: set},
		{
			name: "an interface an aws-node older than v1.22.1 attached has EC2's defaults",
			edit: edits(set, attach(cni), awsNode("602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.21.1-eksbuild.3")),
			want: finding(cniHas+"; aws-node v1.21.1 does not give the interfaces it creates the primary interface's "+
				"timeouts (v1.22.1 and later do)", "upgrade aws-node from v1.21.1 to v1.22.1 or later "+
				"(aws/amazon-vpc-cni-k8s#3666), then replace the node so ipamd creates its interfaces with them "+replace),
		},
		{name: "aws-node v1.22.1 gives its interfaces the class's timeouts",
			edit: edits(set, attach(tracked), awsNode("amazon-k8s-cni:v1.22.1"))},
		{
			name: "an interface created before aws-node v1.22.1 ran on the node",
			edit: edits(set, attach(cni), awsNode("amazon-k8s-cni:v1.22.1")),
			want: finding(cniHas+"; aws-node v1.22.1 copies the primary interface's timeouts into the interfaces it "+
				"creates, so these were created before it ran on the node",
				"replace the node so ipamd creates its interfaces with them "+replace),
		},
		{
			name: "a node that predates the class's connectionTracking",
			edit: edits(set, attach(cni), func(s *snapshot.Snapshot) { s.Instances[0].ENIs[0].ConnectionTracking = snapshot.ConnectionTracking{} }),
			want: finding(cniHas+"; aws-node v1.23.1 copies the primary interface's timeouts, and this node's primary "+
				"interface lacks them: the node predates the class's connectionTracking",
				"replace the node so it launches with them "+replace),
		},
		{
			name: "an aws-node image without a version tag",
			edit: edits(set, attach(cni), awsNode("amazon-k8s-cni@sha256:0123")),
			want: finding(cniHas+"; aws-node gives the interfaces it creates the primary interface's timeouts from "+
				"v1.22.1 on, and karpnet could not read its version",
				"replace the node on aws-node v1.22.1 or later (aws/amazon-vpc-cni-k8s#3666) "+replace),
		},
		{name: "an interface set by hand is clean", edit: edits(set, attach(snapshot.ENI{ID: "eni-0cni", InterfaceType: "interface",
			DeviceIndex: 1, ConnectionTracking: snapshot.ConnectionTracking{TCPEstablishedTimeout: 350, UDPTimeout: 30, UDPStreamTimeout: 120}}))},
		{name: "the class's own interfaces and efa-only ones are left out", edit: edits(set, func(s *snapshot.Snapshot) {
			s.NodeClasses[0].NetworkInterfaces = []snapshot.NetworkInterface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
				{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "interface"}}
		}, attach(snapshot.ENI{ID: "eni-0second", InterfaceType: "interface", DeviceIndex: 1,
			ConnectionTracking: snapshot.ConnectionTracking{TCPEstablishedTimeout: 350, UDPTimeout: 30}}),
			attach(snapshot.ENI{ID: "eni-0efa", InterfaceType: "efa-only", NetworkCardIndex: 1}))},
		{
			name: "a trunk the resource controller attached and a Cilium interface",
			edit: edits(set, attach(snapshot.ENI{ID: "eni-0trunk", InterfaceType: "trunk", DeviceIndex: 2,
				ConnectionTracking: snapshot.ConnectionTracking{TCPEstablishedTimeout: 432000}}),
				attach(snapshot.ENI{ID: "eni-0cilium", InterfaceType: "interface", DeviceIndex: 3, Description: "Cilium-CNI (i-0123456789abcdef0)"})),
			want: func() []Finding {
				f := finding("eni-0trunk (device 2, the VPC resource controller's trunk: tcpEstablishedTimeout 432000 s), "+
					"eni-0cilium (device 3, attached by Cilium: EC2's defaults) have"+tail,
					"set the timeouts on each interface the VPC CNI did not create (eni-0trunk, eni-0cilium; one attached "+
						"later starts without them again)")
				f[0].Commands = nil
				for _, id := range []string{"eni-0trunk", "eni-0cilium"} {
					f[0].Commands = append(f[0].Commands, Command{Argv: []string{"aws", "ec2", "modify-network-interface-attribute",
						"--network-interface-id", id, "--connection-tracking-specification", "TcpEstablishedTimeout=350,UdpTimeout=30"},
						Changes: "network-interface/" + id + " (node/" + nodeA + ")"})
				}
				return f
			}(),
		},
	})
}
