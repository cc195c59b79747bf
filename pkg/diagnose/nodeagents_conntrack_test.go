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
	const remedy = "set the timeouts on each of them: aws ec2 modify-network-interface-attribute --network-interface-id ENI " +
		"--connection-tracking-specification TcpEstablishedTimeout=350,UdpTimeout=30 (an interface the CNI attaches later " +
		"starts without them again; the VPC CNI's support is aws/amazon-vpc-cni-k8s#3666)"
	runCheckCases(t, connectionTrackingNotInherited, []checkCase{
		{name: "a class without connectionTracking is silent", edit: attach(cni)},
		{name: "only the launch template's interface is clean", edit: set},
		{
			name: "an interface the VPC CNI attached has EC2's defaults",
			edit: edits(set, attach(cni)),
			want: []Finding{{ID: "connection-tracking-not-inherited", Severity: Info, Node: nodeA, Resource: "node/" + nodeA,
				Message: "EC2NodeClass default sets connectionTracking (tcpEstablishedTimeout 350 s, udpTimeout 30 s), which " +
					"Karpenter applies only to the interfaces of its launch template; eni-0cni (device 1, attached by the VPC " +
					"CNI: EC2's defaults) has other timeouts: connections of the pods on them are tracked for those",
				Remedy: remedy}},
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
			name: "a trunk the resource controller attached",
			edit: edits(set, attach(snapshot.ENI{ID: "eni-0trunk", InterfaceType: "trunk", DeviceIndex: 2,
				ConnectionTracking: snapshot.ConnectionTracking{TCPEstablishedTimeout: 432000}})),
			want: []Finding{{ID: "connection-tracking-not-inherited", Severity: Info, Node: nodeA, Resource: "node/" + nodeA,
				Message: "EC2NodeClass default sets connectionTracking (tcpEstablishedTimeout 350 s, udpTimeout 30 s), which " +
					"Karpenter applies only to the interfaces of its launch template; eni-0trunk (device 2, the VPC resource " +
					"controller's trunk: tcpEstablishedTimeout 432000 s) has other timeouts: connections of the pods on them are " +
					"tracked for those",
				Remedy: remedy}},
		},
	})
}
