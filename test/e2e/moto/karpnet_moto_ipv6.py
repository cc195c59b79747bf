"""IPv6 patches for moto 5.2.1: subnet IPv6 CIDR state and /80 prefixes on interfaces.

What moto lacks, and what is patched here:

* DescribeSubnets shows ipv6CidrBlockState.state as the text of a dict
  ("{'State': 'associated'}") instead of "associated".
* AssignIpv6Addresses ignores Ipv6PrefixCount: the VPC CNI of an IPv6 cluster asks for one
  /80 prefix on the primary interface and gives pods addresses from it. Prefixes are now
  taken in order from the subnet's /64 and shown as ipv6PrefixSet, on the interface and on
  the instance's interfaces alike.
"""

import ipaddress

from moto.core.responses import ActionResult
from moto.ec2.exceptions import EC2ClientError
from moto.ec2.models.elastic_network_interfaces import NetworkInterface
from moto.ec2.models.subnets import Subnet
from moto.ec2.responses.elastic_network_interfaces import ElasticNetworkInterfaces

# PREFIX_LENGTH is the length of the IPv6 prefixes EC2 delegates to an interface.
PREFIX_LENGTH = 80


def apply():
    """Applies every IPv6 patch."""
    _patch_subnet_state()
    _patch_prefixes()


def _patch_subnet_state():
    def ipv6_cidr_block_association_set(self):
        return [
            {
                "ipv6CidrBlock": a["ipv6CidrBlock"],
                "associationId": a["associationId"],
                "ipv6CidrBlockState": {"state": a["ipv6CidrBlockState"]["State"]},
            }
            for a in self.ipv6_cidr_block_associations.values()
            if a["ipv6CidrBlockState"]["State"] == "associated"
        ]

    Subnet.ipv6_cidr_block_association_set = property(ipv6_cidr_block_association_set)


def allocate_prefix(subnet):
    """Reserves the next free /80 of the subnet's first IPv6 CIDR, as a CIDR string."""
    blocks = [a["ipv6CidrBlock"] for a in subnet.ipv6_cidr_block_associations.values()
              if a["ipv6CidrBlockState"]["State"] == "associated"]
    if not blocks:
        raise EC2ClientError(
            "InvalidParameterValue",
            f"The subnet '{subnet.id}' does not have an IPv6 CIDR block associated with it.",
        )
    net = ipaddress.IPv6Network(blocks[0])
    taken = getattr(subnet, "karpnet_ipv6_prefixes", set())
    subnet.karpnet_ipv6_prefixes = taken
    size = 1 << (128 - PREFIX_LENGTH)
    # The first /80 is left to the interfaces' own addresses.
    for i in range(1, 1 << (PREFIX_LENGTH - net.prefixlen)):
        prefix = ipaddress.IPv6Network((int(net.network_address) + i * size, PREFIX_LENGTH))
        if str(prefix) not in taken:
            taken.add(str(prefix))
            return str(prefix)
    raise EC2ClientError("InsufficientCidrBlocks", "There aren't sufficient free Ipv6 prefixes in the subnet.")


def _patch_prefixes():
    original_init = NetworkInterface.__init__

    def __init__(self, *args, **kwargs):
        self.karpnet_ipv6_prefixes = []
        original_init(self, *args, **kwargs)

    def ipv6_prefixes(self):
        # Read for both InstanceNetworkInterface and NetworkInterface (ipv6PrefixSet).
        return [{"Ipv6Prefix": p} for p in self.karpnet_ipv6_prefixes]

    NetworkInterface.__init__ = __init__
    NetworkInterface.ipv6_prefixes = property(ipv6_prefixes)

    original_assign = ElasticNetworkInterfaces.assign_ipv6_addresses

    def assign_ipv6_addresses(self):
        prefix_count = self._get_int_param("Ipv6PrefixCount", 0)
        if not prefix_count:
            return original_assign(self)
        eni = self.ec2_backend.get_network_interface(self._get_param("NetworkInterfaceId"))
        assigned = [allocate_prefix(eni.subnet) for _ in range(prefix_count)]
        eni.karpnet_ipv6_prefixes.extend(assigned)
        return ActionResult({"AssignedIpv6Prefixes": assigned, "NetworkInterfaceId": eni.id})

    ElasticNetworkInterfaces.assign_ipv6_addresses = assign_ipv6_addresses
