"""NAT gateway and interface endpoint addresses for moto 5.2.1, as EC2 gives them.

moto gives the interface of a NAT gateway, and of each subnet of an interface VPC endpoint,
a random 10.x address that need not be in the subnet, which the subnet address accounting
(karpnet_moto_addresses) rightly refuses. EC2 takes the address from the subnet. This patch
lets those interfaces take the subnet's next free address, through the patched
create_network_interface, and keeps it as the NAT gateway's private address.
"""

from moto.ec2.models import nat_gateways, vpcs


def apply():
    """Patches moto's NatGateway and CreateVpcEndpoint: addresses come from the subnet."""
    nat_gateways.random_private_ip = lambda *args, **kwargs: None
    vpcs.random_private_ip = lambda *args, **kwargs: None
    init = nat_gateways.NatGateway.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.private_ip = self._eni.private_ip_address

    nat_gateways.NatGateway.__init__ = __init__
