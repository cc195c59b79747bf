package diagnose

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// SubjectVPC is one of the cluster's VPCs (vpc/ID).
const SubjectVPC = kinds.VPC

// vpcDNSDocs is the EKS User Guide's statement of the VPC's DNS requirement.
const vpcDNSDocs = "https://docs.aws.amazon.com/eks/latest/userguide/network_reqs.html (Cluster VPC requirements: DNS hostname and DNS resolution support, or nodes cannot register)"

var specVPCDNSDisabled = &Spec{
	ID:       "vpc-dns-disabled",
	Severity: Critical,
	Lower:    []Severity{Warning},
	Family:   FamilyJoin,
	Needs:    []string{snapshot.SourceVPCAttributes},
	Examines: []string{SubjectVPC},
	Title:    "a node VPC has DNS resolution or DNS hostnames turned off",
	FiresWhen: "a VPC of the nodes' subnets answers DescribeVpcAttribute with `enableDnsSupport` false (critical: the " +
		"Amazon DNS server answers nothing in the VPC) or `enableDnsHostnames` false (warning: EKS requires it, and a " +
		"cluster's private endpoint resolves in the VPC only with both on)",
	NotOn: "VPCs with both attributes on; attributes karpnet could not read (a gap of ec2:DescribeVpcAttribute, or a " +
		"snapshot written before karpnet read them): unknown, never off; karpnet calls no EKS API, so it does not know " +
		"whether the cluster's endpoint is private",
	Why: "nodes resolve the cluster's endpoint, ECR, STS and EC2 through the VPC's resolver: with DNS resolution off " +
		"nothing resolves and new nodes never register; a private endpoint's name lives in a Route 53 private hosted " +
		"zone that answers only in a VPC with DNS support and DNS hostnames on",
	Remedy: "turn the attribute on (`aws ec2 modify-vpc-attribute --enable-dns-support`, then `--enable-dns-hostnames`; " +
		"one attribute a call)",
	Scope: "the VPC's own attribute: every node and instance in the VPC resolves through it; the command's Affects names " +
		"the nodes; nothing narrower exists",
	Sources: []string{
		vpcDNSDocs,
		"https://docs.aws.amazon.com/vpc/latest/userguide/AmazonDNS-concepts.html (DNS attributes for your VPC; private hosted zones need both)",
		"kubernetes-sigs/karpenter#2981, terraform-aws-modules/terraform-aws-eks#3687 (nodes of a private cluster never register)",
	},
	Verified: []Verified{
		{UpstreamAWSDocs, "eks/latest/userguide/network_reqs.html (VPC requirements and considerations)",
			"the cluster's VPC must have DNS hostname and DNS resolution support, or nodes cannot register with the cluster"},
		{UpstreamAWSDocs, "vpc/latest/userguide/AmazonDNS-concepts.html (Amazon DNS server)",
			"the Route 53 Resolver (AmazonProvidedDNS) answers at 169.254.169.253 and at the VPC's primary IPv4 CIDR base plus two"},
		{UpstreamEC2API, "api_op_DescribeVpcAttribute.go, types/types.go (AttributeBooleanValue)",
			"DescribeVpcAttribute answers one attribute of one VPC a call: enableDnsSupport or enableDnsHostnames, each a Value boolean"},
		{UpstreamEC2API, "api_op_ModifyVpcAttribute.go (ModifyVpcAttributeInput)",
			"one attribute is modified a request; DNS hostnames can be enabled only when DNS support is enabled"},
	},
}

// vpcDNSDisabled finds a node VPC whose DNS attributes are off. The nodes resolve the cluster's
// endpoint and the AWS services they join through through the VPC's Amazon DNS server: with
// enableDnsSupport off it answers nothing, and the EKS User Guide requires enableDnsHostnames
// too (a private endpoint's hosted zone resolves only with both). An attribute karpnet could
// not read is unknown, never off.
var vpcDNSDisabled = Check{
	Spec: specVPCDNSDisabled,
	Run: func(x *Index) []Finding {
		var out []Finding
		for _, v := range x.Snapshot.VPCs {
			supportOff := v.DNSSupport != nil && !*v.DNSSupport
			hostnamesOff := v.DNSHostnames != nil && !*v.DNSHostnames
			if !supportOff && !hostnamesOff {
				continue
			}
			nodes := vpcNodes(x, v.ID)
			f := Finding{Resource: SubjectVPC + "/" + v.ID}
			var cmds []Command
			if supportOff {
				f.Message = fmt.Sprintf("VPC %s has enableDnsSupport off: the Amazon DNS server answers nothing there, so "+
					"its nodes (%s) resolve neither the cluster's endpoint nor ECR, STS and EC2, and new nodes never register",
					v.ID, nodes)
				if hostnamesOff {
					f.Message += "; enableDnsHostnames is off too"
				}
				cmds = append(cmds, vpcAttributeOn(x, v.ID, "--enable-dns-support"))
			} else {
				f.Severity = Warning
				f.Message = fmt.Sprintf("VPC %s has enableDnsHostnames off (its nodes: %s): EKS requires DNS hostnames and "+
					"DNS resolution in the cluster's VPC, and a private cluster endpoint resolves there only with both on "+
					"(karpnet reads no EKS API, so it does not know whether the endpoint is private)", v.ID, nodes)
			}
			if hostnamesOff {
				cmds = append(cmds, vpcAttributeOn(x, v.ID, "--enable-dns-hostnames"))
			}
			f.Remedy = "turn the attributes on, one a call (the commands); DNS hostnames can be enabled only with DNS support " +
				"on, so DNS support comes first"
			f.Commands = cmds
			out = append(out, f)
		}
		return out
	},
}

// vpcAttributeOn is the aws ec2 modify-vpc-attribute command that turns flag on in vpc.
func vpcAttributeOn(x *Index, vpc, flag string) Command {
	return Command{
		Argv:    []string{"aws", "ec2", "modify-vpc-attribute", "--vpc-id", vpc, flag, jsonArg(map[string]bool{"Value": true})},
		Changes: SubjectVPC + "/" + vpc,
		Affects: "the VPC's resolver serves every instance in it: " + nodesAffected(x, "vpc-dns/"+vpc, func(n *NodeInfo) bool {
			return nodeVPC(n) == vpc
		}),
	}
}

// nodeVPC returns the VPC of a node's instance, else of its subnet; "" when neither was read.
func nodeVPC(n *NodeInfo) string {
	if n.Instance != nil && n.Instance.VpcID != "" {
		return n.Instance.VpcID
	}
	if n.Subnet != nil {
		return n.Subnet.VpcID
	}
	return ""
}

// vpcNodes says how many nodes run in vpc.
func vpcNodes(x *Index, vpc string) string {
	n := 0
	for _, node := range x.checkedNodes() {
		if nodeVPC(node) == vpc {
			n++
		}
	}
	return countText(n, "node", "nodes")
}

var specDHCPOptionsCustomDNS = &Spec{
	ID:       "dhcp-options-custom-dns",
	Severity: Info,
	Family:   FamilyJoin,
	Needs:    []string{snapshot.SourceDescribeDhcpOptions},
	Examines: []string{SubjectVPC},
	Title:    "a node VPC's DHCP options hand out DNS servers other than the Amazon DNS server",
	FiresWhen: "the DHCP options set of a VPC of the nodes' subnets has `domain-name-servers` without " +
		"`AmazonProvidedDNS`, 169.254.169.253 or the VPC's own resolver (its primary CIDR's base address plus two)",
	NotOn: "AmazonProvidedDNS (a VPC without a DHCP options set gets it too); servers that include the VPC's resolver; " +
		"sets karpnet could not read. Info, not a warning: a Route 53 Resolver inbound endpoint or a DNS server that " +
		"forwards the cluster's zones to the Route 53 Resolver makes custom servers fine, and karpnet reads no Route 53",
	Why: "nodes resolve through the servers the DHCP options set names: one that does not forward to the Route 53 " +
		"Resolver never answers for a private cluster endpoint's private hosted zone (or for compute.internal names), " +
		"and new nodes of a private cluster never register",
	Remedy: "check that the servers forward the cluster's endpoint zone and amazonaws.com to the Route 53 Resolver, and " +
		"which private hosted zones are associated with the VPC (`aws route53 list-hosted-zones-by-vpc`, read-only); " +
		"otherwise add AmazonProvidedDNS to the set's domain-name-servers (a new DHCP options set, associated with the " +
		"VPC)",
	Sources: []string{
		"https://docs.aws.amazon.com/vpc/latest/userguide/VPC_DHCP_Options.html (domain-name-servers: AmazonProvidedDNS or up to four servers)",
		"https://docs.aws.amazon.com/vpc/latest/userguide/AmazonDNS-concepts.html (the Route 53 Resolver's addresses)",
		"https://aws.amazon.com/blogs/compute/enabling-dns-resolution-for-amazon-eks-cluster-endpoints (the endpoint's private hosted zone answers in the node VPC only)",
		"kubernetes-sigs/karpenter#2981, terraform-aws-modules/terraform-aws-eks#3687",
	},
	Verified: []Verified{
		{UpstreamAWSDocs, "vpc/latest/userguide/VPC_DHCP_Options.html (DHCP option sets)",
			"domain-name-servers holds AmazonProvidedDNS or the addresses of up to four DNS servers; the default set specifies AmazonProvidedDNS"},
		{UpstreamAWSDocs, "vpc/latest/userguide/AmazonDNS-concepts.html (Amazon DNS server)",
			"the Route 53 Resolver (AmazonProvidedDNS) answers at 169.254.169.253 and at the VPC's primary IPv4 CIDR base plus two"},
		{UpstreamEC2API, "types/types.go (Vpc.DhcpOptionsId, DhcpOptions.DhcpConfigurations)",
			"a VPC names its DHCP options set (\"default\" for none); a set's configurations are keys such as domain-name-servers with a list of values"},
	},
}

// dhcpOptionsCustomDNS finds a node VPC whose DHCP options set hands its instances DNS servers
// other than the Amazon DNS server. A private cluster's endpoint name lives in a Route 53
// private hosted zone associated with the VPC, which only the VPC's resolver answers: servers
// that do not forward to it leave new nodes unable to register. Whether they forward, and
// which hosted zones the VPC has, karpnet cannot see (it reads no Route 53), so this is
// information with the read-only command that tells.
var dhcpOptionsCustomDNS = Check{
	Spec: specDHCPOptionsCustomDNS,
	Run: func(x *Index) []Finding {
		s := x.Snapshot
		var out []Finding
		for _, v := range s.VPCs {
			i := slices.IndexFunc(s.DHCPOptions, func(o snapshot.DHCPOptions) bool { return o.ID == v.DHCPOptionsID })
			if i < 0 || len(s.DHCPOptions[i].DomainNameServers) == 0 {
				continue
			}
			servers := s.DHCPOptions[i].DomainNameServers
			if slices.ContainsFunc(servers, func(server string) bool { return amazonDNS(server, v.CIDR) }) {
				continue
			}
			argv := []string{"aws", "route53", "list-hosted-zones-by-vpc", "--vpc-id", v.ID}
			if s.Region != "" {
				argv = append(argv, "--vpc-region", s.Region)
			}
			out = append(out, Finding{
				Resource: SubjectVPC + "/" + v.ID,
				Message: fmt.Sprintf("VPC %s (its nodes: %s) hands out DHCP options set %s, whose domain-name-servers are %s, "+
					"not AmazonProvidedDNS: its nodes resolve through those servers, which must forward the cluster's "+
					"endpoint and AWS service names to the Route 53 Resolver (a Resolver inbound endpoint or a forwarder makes "+
					"this fine; karpnet reads no Route 53 and cannot tell)", v.ID, vpcNodes(x, v.ID), v.DHCPOptionsID,
					strings.Join(servers, ", ")),
				Remedy: "check that those servers forward to the Route 53 Resolver, and list the private hosted zones associated " +
					"with the VPC (the read-only command): a private cluster's endpoint zone must be among them; if the servers " +
					"do not forward, associate a DHCP options set whose domain-name-servers include AmazonProvidedDNS",
				Commands: []Command{{Argv: argv, ReadOnly: true}},
			})
		}
		return out
	},
}

// amazonDNS reports whether server is the Amazon DNS server: AmazonProvidedDNS, its link-local
// address, or the VPC's primary CIDR base address plus two.
func amazonDNS(server, vpcCIDR string) bool {
	server = strings.TrimSpace(server)
	if strings.EqualFold(server, snapshot.AmazonProvidedDNS) || server == "169.254.169.253" || server == "fd00:ec2::253" {
		return true
	}
	p, err := netip.ParsePrefix(vpcCIDR)
	if err != nil || !p.Addr().Is4() {
		return false
	}
	b := p.Masked().Addr().As4()
	sum := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	sum += 2
	resolver := netip.AddrFrom4([4]byte{byte(sum >> 24), byte(sum >> 16), byte(sum >> 8), byte(sum)})
	return server == resolver.String()
}
