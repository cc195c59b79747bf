package diagnose

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// cniInheritsTracking is the first VPC CNI release whose ipamd copies the primary interface's
// connection-tracking settings into every interface it creates (amazon-vpc-cni-k8s#3666,
// setConnectionTrackingSettings in pkg/awsutils/awsutils.go).
var cniInheritsTracking = cniVersion{1, 22, 1}

var specConnectionTrackingNotInherited = &Spec{
	ID:       "connection-tracking-not-inherited",
	Severity: Info,
	Family:   FamilyNodeAgents,
	Examines: []string{SubjectNode},
	Title:    "interfaces attached after launch lack the EC2NodeClass's connection-tracking timeouts",
	FiresWhen: "the node's EC2NodeClass sets `spec.connectionTracking` (Karpenter v1.13+) and an interface that was not " +
		"in Karpenter's launch template (one the VPC CNI, Cilium or the VPC resource controller attached later) has " +
		"other timeouts in its `ConnectionTrackingConfiguration`",
	NotOn: "classes without connectionTracking; the primary interface and the class's `networkInterfaces`, which " +
		"Karpenter configures; efa-only interfaces, which Karpenter leaves out; EKS Auto Mode nodes; the VPC CNI's " +
		"interfaces that have the timeouts, as aws-node v1.22.1 and later gives every interface it creates the primary " +
		"interface's",
	Why: "Karpenter applies the timeouts only in its launch template: pods on the interfaces a CNI attaches later keep " +
		"EC2's defaults (TCP established 432,000 s on most types), so idle connections fill the conntrack allowance the " +
		"class was meant to protect",
	Remedy: "for the VPC CNI's interfaces, aws-node v1.22.1 or later and then replace the node (its ipamd copies the " +
		"primary interface's timeouts into the interfaces it creates); for Cilium's and trunk interfaces, set the " +
		"timeouts on each (`aws ec2 modify-network-interface-attribute --connection-tracking-specification`), or keep " +
		"pods on the launch template's interfaces",
	Sources: []string{
		"aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go (ConnectionTracking: launch-template interfaces only), pkg/providers/launchtemplate/launchtemplate.go",
		"aws/karpenter-provider-aws website/content/en/docs/concepts/nodeclasses.md (spec.connectionTracking)",
		"aws/amazon-vpc-cni-k8s#3666 (connection tracking on the interfaces the VPC CNI attaches, v1.22.1)",
		"docs.aws.amazon.com/AWSEC2/latest/APIReference/API_InstanceNetworkInterface.html (ConnectionTrackingConfiguration)",
	},
	Verified: []Verified{
		{UpstreamVPCCNI, "pkg/awsutils/awsutils.go (setConnectionTrackingSettings, DescribeAllENIs, createENIInput), " +
			"pkg/ipamd/ipamd.go (nodeInit, nodeIPPoolReconcile)", "each time ipamd describes the node's ENIs (at start " +
			"and in its pool reconciles) it keeps the primary interface's (card 0, device 0) set ConnectionTrackingConfiguration " +
			"timeouts and passes them as ConnectionTrackingSpecification to every CreateNetworkInterface; present at " +
			"v1.23.0, first released in v1.22.1 (#3666, absent at v1.22.0)"},
		{UpstreamVPCCNI, "pkg/awsutils/awsutils.go (createENI)", "the interfaces ipamd creates are described " +
			"aws-K8S-INSTANCE"},
	},
}

// connectionTrackingNotInherited finds the interfaces of a node whose EC2NodeClass sets
// connection-tracking timeouts that were not in Karpenter's launch template and have other
// timeouts: a CNI attached them later, without the class's settings. The VPC CNI gives its
// interfaces the primary interface's timeouts from v1.22.1 on, so for its interfaces the way
// out is that release and a new node; Cilium's and the resource controller's take them by hand.
var connectionTrackingNotInherited = Check{
	Spec: specConnectionTrackingNotInherited,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, n := range x.checkedNodes() {
			c := n.Class
			if c == nil || c.ConnectionTracking == nil || n.AutoMode() || x.cniInstanceGone(n) {
				continue
			}
			want := *c.ConnectionTracking
			launched := map[[2]int32]bool{{0, 0}: true}
			for _, ni := range c.NetworkInterfaces {
				launched[[2]int32{ni.NetworkCardIndex, ni.DeviceIndex}] = true
			}
			var bad, cni, other []string
			primaryTracks := false
			for _, e := range n.instanceENIs() {
				if e.NetworkCardIndex == 0 && e.DeviceIndex == 0 {
					primaryTracks = tracks(e.ConnectionTracking, want)
				}
				if e.InterfaceType == interfaceEFAOnly || launched[[2]int32{e.NetworkCardIndex, e.DeviceIndex}] || tracks(e.ConnectionTracking, want) {
					continue
				}
				bad = append(bad, fmt.Sprintf("%s (device %d, %s: %s)", e.ID, e.DeviceIndex, attachedBy(e), trackingText(e.ConnectionTracking)))
				if e.InterfaceType != interfaceTrunk && strings.HasPrefix(e.Description, cniENIDescription) {
					cni = append(cni, e.ID)
				} else {
					other = append(other, e.ID)
				}
			}
			if len(bad) == 0 {
				continue
			}
			msg := fmt.Sprintf("%s sets connectionTracking (%s), which Karpenter applies only to the interfaces of its "+
				"launch template; %s %s other timeouts: connections of the pods on them are tracked for those", n.ClassLabel(),
				trackingText(want), abbreviate(bad, 3), plural(len(bad), "has", "have"))
			var remedies []string
			var commands []Command
			if len(cni) > 0 {
				why, fix := x.cniTrackingFix(n, primaryTracks)
				msg += "; " + why
				remedies = append(remedies, fix)
				commands = append(commands, replaceNodeCommands(n)...)
			}
			if len(other) > 0 {
				for _, id := range other {
					commands = append(commands, Command{Argv: []string{"aws", "ec2", "modify-network-interface-attribute",
						"--network-interface-id", id, "--connection-tracking-specification", trackingSpec(want)},
						Changes: "network-interface/" + id + " (node/" + n.Name() + ")"})
				}
				remedies = append(remedies, "set the timeouts on "+plural(len(other), "the interface", "each interface")+
					" the VPC CNI did not create ("+strings.Join(other, ", ")+"; one attached later starts without them again)")
			}
			out = append(out, Finding{Node: n.Name(), Resource: nodeRef(n.Name()), Message: msg,
				Remedy: strings.Join(remedies, "; "), Commands: commands})
		}
		return out
	},
}

// cniTrackingFix says why the VPC CNI's interfaces of a node lack the class's timeouts and what
// gives them those: aws-node v1.22.1 or later, whose ipamd copies the primary interface's
// settings into the interfaces it creates, and a new node, whose interfaces it then creates.
func (x *Index) cniTrackingFix(n *NodeInfo, primaryTracks bool) (why, fix string) {
	image := ""
	if a := x.Snapshot.AWSNode; a != nil {
		image = a.Image
	}
	v, ok := parseCNIVersion(image)
	switch {
	case !ok:
		return "aws-node gives the interfaces it creates the primary interface's timeouts from v1.22.1 on, and " +
				"karpnet could not read its version",
			replaceNodeProse(n, "on aws-node v1.22.1 or later (aws/amazon-vpc-cni-k8s#3666)")
	case v.less(cniInheritsTracking):
		return fmt.Sprintf("aws-node v%s does not give the interfaces it creates the primary interface's timeouts "+
				"(v1.22.1 and later do)", v),
			fmt.Sprintf("upgrade aws-node from v%s to v1.22.1 or later (aws/amazon-vpc-cni-k8s#3666), then %s", v,
				replaceNodeProse(n, "so ipamd creates its interfaces with them"))
	case !primaryTracks:
		return fmt.Sprintf("aws-node v%s copies the primary interface's timeouts, and this node's primary interface "+
				"lacks them: the node predates the class's connectionTracking", v),
			replaceNodeProse(n, "so it launches with them")
	}
	return fmt.Sprintf("aws-node v%s copies the primary interface's timeouts into the interfaces it creates, so these "+
			"were created before it ran on the node", v),
		replaceNodeProse(n, "so ipamd creates its interfaces with them")
}

// tracks reports whether an interface has every timeout want sets.
func tracks(have, want snapshot.ConnectionTracking) bool {
	return (want.TCPEstablishedTimeout == 0 || have.TCPEstablishedTimeout == want.TCPEstablishedTimeout) &&
		(want.UDPStreamTimeout == 0 || have.UDPStreamTimeout == want.UDPStreamTimeout) &&
		(want.UDPTimeout == 0 || have.UDPTimeout == want.UDPTimeout)
}

// trackingField is one timeout: its name in the EC2NodeClass and in the AWS CLI, and its value.
type trackingField struct {
	name, cli string
	v         int32
}

// trackingFields returns the timeouts that are set, in the order EC2 lists them.
func trackingFields(c snapshot.ConnectionTracking) []trackingField {
	var out []trackingField
	for _, f := range []trackingField{{"tcpEstablishedTimeout", "TcpEstablishedTimeout", c.TCPEstablishedTimeout},
		{"udpStreamTimeout", "UdpStreamTimeout", c.UDPStreamTimeout}, {"udpTimeout", "UdpTimeout", c.UDPTimeout}} {
		if f.v != 0 {
			out = append(out, f)
		}
	}
	return out
}

// trackingText writes timeouts as "tcpEstablishedTimeout 350 s, udpTimeout 30 s", or says
// they are EC2's defaults.
func trackingText(c snapshot.ConnectionTracking) string {
	var parts []string
	for _, f := range trackingFields(c) {
		parts = append(parts, fmt.Sprintf("%s %d s", f.name, f.v))
	}
	if len(parts) == 0 {
		return "EC2's defaults"
	}
	return strings.Join(parts, ", ")
}

// trackingSpec writes timeouts in the AWS CLI's shorthand.
func trackingSpec(c snapshot.ConnectionTracking) string {
	var parts []string
	for _, f := range trackingFields(c) {
		parts = append(parts, fmt.Sprintf("%s=%d", f.cli, f.v))
	}
	return strings.Join(parts, ",")
}

// ciliumENIDescription begins the description of every interface Cilium's operator creates
// ("Cilium-CNI (INSTANCE-ID)", cilium/cilium pkg/aws/ipam/node.go).
const ciliumENIDescription = "Cilium-CNI"

// attachedBy says what attached an interface after launch, as far as its type and
// description tell.
func attachedBy(e snapshot.ENI) string {
	switch {
	case e.InterfaceType == interfaceTrunk:
		return "the VPC resource controller's trunk"
	case strings.HasPrefix(e.Description, cniENIDescription):
		return "attached by the VPC CNI"
	case strings.HasPrefix(e.Description, ciliumENIDescription):
		return "attached by Cilium"
	}
	return "attached after launch"
}
