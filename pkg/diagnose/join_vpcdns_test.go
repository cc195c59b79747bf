package diagnose

import (
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestVPCDNSDisabled(t *testing.T) {
	on, off := true, false
	vpc := func(support, hostnames *bool) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.VPCs = []snapshot.VPC{{ID: "vpc-0abc", CIDR: "10.0.0.0/16", DHCPOptionsID: "default", DNSSupport: support, DNSHostnames: hostnames}}
		}
	}
	cmd := func(flag string) Command {
		return Command{Argv: []string{"aws", "ec2", "modify-vpc-attribute", "--vpc-id", "vpc-0abc", flag, `{"Value":true}`},
			Changes: "vpc/vpc-0abc", Affects: "the VPC's resolver serves every instance in it: 1 node (m5.large)"}
	}
	const remedy = "turn the attributes on, one a call (the commands); DNS hostnames can be enabled only with DNS support on, so DNS support comes first"
	runCheckCases(t, vpcDNSDisabled, []checkCase{
		{name: "no VPC read is silent"},
		{name: "DNS support and hostnames on are healthy", edit: vpc(&on, &on)},
		{name: "attributes not read (denied) are unknown, not off", edit: vpc(nil, nil)},
		{
			name: "DNS support off is critical",
			edit: vpc(&off, &on),
			want: []Finding{{ID: "vpc-dns-disabled", Severity: Critical, Resource: "vpc/vpc-0abc",
				Message: "VPC vpc-0abc has enableDnsSupport off: the Amazon DNS server answers nothing there, so its nodes " +
					"(1 node) resolve neither the cluster's endpoint nor ECR, STS and EC2, and new nodes never register",
				Remedy: remedy, Commands: []Command{cmd("--enable-dns-support")}}},
		},
		{
			name: "both off: support first, then hostnames",
			edit: vpc(&off, &off),
			want: []Finding{{ID: "vpc-dns-disabled", Severity: Critical, Resource: "vpc/vpc-0abc",
				Message: "VPC vpc-0abc has enableDnsSupport off: the Amazon DNS server answers nothing there, so its nodes " +
					"(1 node) resolve neither the cluster's endpoint nor ECR, STS and EC2, and new nodes never register; " +
					"enableDnsHostnames is off too",
				Remedy: remedy, Commands: []Command{cmd("--enable-dns-support"), cmd("--enable-dns-hostnames")}}},
		},
		{
			name: "DNS hostnames off is a warning",
			edit: vpc(&on, &off),
			want: []Finding{{ID: "vpc-dns-disabled", Severity: Warning, Resource: "vpc/vpc-0abc",
				Message: "VPC vpc-0abc has enableDnsHostnames off (its nodes: 1 node): EKS requires DNS hostnames and DNS " +
					"resolution in the cluster's VPC, and a private cluster endpoint resolves there only with both on " +
					"(karpnet reads no EKS API, so it does not know whether the endpoint is private)",
				Remedy: remedy, Commands: []Command{cmd("--enable-dns-hostnames")}}},
		},
	})
}

func TestDHCPOptionsCustomDNS(t *testing.T) {
	set := func(servers ...string) func(*snapshot.Snapshot) {
		return func(s *snapshot.Snapshot) {
			s.VPCs = []snapshot.VPC{{ID: "vpc-0abc", CIDR: "10.0.0.0/16", DHCPOptionsID: "dopt-0corp"}}
			s.DHCPOptions = []snapshot.DHCPOptions{{ID: "dopt-0corp", DomainNameServers: servers}}
		}
	}
	runCheckCases(t, dhcpOptionsCustomDNS, []checkCase{
		{name: "no set read is silent"},
		{name: "AmazonProvidedDNS is healthy", edit: set("AmazonProvidedDNS")},
		{name: "custom servers after AmazonProvidedDNS are healthy", edit: set("10.9.0.10", "AmazonProvidedDNS")},
		{name: "the VPC's own Route 53 Resolver address is healthy", edit: set("10.0.0.2")},
		{name: "the resolver's link-local address is healthy", edit: set("169.254.169.253")},
		{name: "a VPC without a set gets AmazonProvidedDNS", edit: func(s *snapshot.Snapshot) {
			s.VPCs = []snapshot.VPC{{ID: "vpc-0abc", DHCPOptionsID: "default"}}
		}},
		{
			name: "corporate DNS servers are information, with the read-only Route 53 command",
			edit: set("10.9.0.10", "10.9.1.10"),
			want: []Finding{{ID: "dhcp-options-custom-dns", Severity: Info, Resource: "vpc/vpc-0abc",
				Message: "VPC vpc-0abc (its nodes: 1 node) hands out DHCP options set dopt-0corp, whose domain-name-servers " +
					"are 10.9.0.10, 10.9.1.10, not AmazonProvidedDNS: its nodes resolve through those servers, which must " +
					"forward the cluster's endpoint and AWS service names to the Route 53 Resolver (a Resolver inbound " +
					"endpoint or a forwarder makes this fine; karpnet reads no Route 53 and cannot tell)",
				Remedy: "check that those servers forward to the Route 53 Resolver, and list the private hosted zones " +
					"associated with the VPC (the read-only command): a private cluster's endpoint zone must be among them; " +
					"if the servers do not forward, associate a DHCP options set whose domain-name-servers include AmazonProvidedDNS",
				Commands: []Command{{Argv: []string{"aws", "route53", "list-hosted-zones-by-vpc", "--vpc-id", "vpc-0abc",
					"--vpc-region", "us-west-2"}, ReadOnly: true}}}},
		},
	})
}
