"""NAT gateways for moto 5.2.1, addressed from their subnet as EC2 does.

moto gives a NAT gateway's network interface a random 10.x address, which
karpnet_moto_addresses then refuses as outside the subnet (and which EC2 would never give).
The interface's address comes from the subnet's own allocator instead.
"""

from moto.ec2.models import nat_gateways


def apply():
    """Patches NatGateway: no random address, so the interface takes the subnet's next free one."""
    nat_gateways.random_private_ip = lambda *args, **kwargs: None
