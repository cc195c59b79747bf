"""Subnet address accounting for moto 5.2.1, as EC2 does it.

moto hands out instance primary addresses from a per-subnet allocator, but gives every
other address (a standalone ENI's primary address, SecondaryPrivateIpAddressCount) at
random from the CIDR without reserving it, so two interfaces can share an address. It has no
IPv4 prefixes at all. These helpers put every address and every /28 prefix through the
subnet's own allocator, and make AvailableIpAddressCount fall by 16 for each prefix.

Prefixes are taken from the top of the subnet downwards and addresses from the bottom
upwards, so the two only meet when the subnet is nearly full, as in EC2. A prefix never holds
an address EC2 reserves (the network address, the next three and the broadcast address).
"""

import ipaddress

from moto.ec2.exceptions import EC2ClientError
from moto.ec2.models.subnets import Subnet

# PREFIX_LENGTH is the length of the IPv4 prefixes EC2 delegates to an interface.
PREFIX_LENGTH = 28
# PREFIX_SIZE is how many subnet addresses one such prefix takes.
PREFIX_SIZE = 2 ** (32 - PREFIX_LENGTH)


def apply():
    """Patches moto's Subnet: a full subnet answers EC2's error, prefixes count as used."""
    _patch_exhaustion()
    _patch_available_count()


def allocate_ip(subnet, owner):
    """Takes the next free address of subnet for owner (an instance or an interface)."""
    return subnet.get_available_subnet_ip(instance=owner)


def claim_ip(subnet, ip, owner):
    """Reserves an address the caller chose for owner, or fails as EC2 does."""
    if ipaddress.ip_address(ip) not in subnet.cidr:
        raise EC2ClientError(
            "InvalidParameterValue",
            f"Address {ip} does not fall within the subnet's address range",
        )
    if ip in subnet._subnet_ips or ipaddress.ip_address(ip) in subnet._reserved_ips:
        raise EC2ClientError("InvalidIPAddress.InUse", f"Address {ip} is in use.")
    subnet.request_ip(ip, instance=owner)


def release_ip(subnet, ip):
    """Returns an address to the subnet; unknown addresses are ignored."""
    subnet.del_subnet_ip(ip)


def allocate_prefix(subnet):
    """Reserves a free, aligned /28 of subnet and returns it as a CIDR string."""
    net = subnet.cidr
    if net.version != 4 or net.prefixlen > PREFIX_LENGTH:
        raise _insufficient_cidr(subnet)
    taken = _taken(subnet)
    for block in reversed(list(net.subnets(new_prefix=PREFIX_LENGTH))):
        if block.network_address == net.network_address:
            continue  # holds the network address and the three EC2 reserves after it
        if block.broadcast_address == net.broadcast_address:
            continue  # holds the broadcast address
        if any(address in taken for address in block):
            continue
        # Reserved addresses are skipped by moto's allocator, so instances never get them.
        subnet._reserved_ips.update(block)
        return str(block)
    raise _insufficient_cidr(subnet)


def release_prefix(subnet, prefix):
    """Returns a prefix taken by allocate_prefix to the subnet."""
    subnet._reserved_ips.difference_update(ipaddress.ip_network(prefix))


def _taken(subnet):
    """Every address of subnet that is in use, reserved, or queued for reuse."""
    taken = set(subnet._reserved_ips) | set(subnet.aws_reserved_ips)
    for ip in list(subnet._subnet_ips) + list(subnet._unused_ips):
        taken.add(ipaddress.ip_address(ip))
    for eni in subnet.ec2_backend.get_all_network_interfaces():
        if eni.subnet.id != subnet.id:
            continue
        for item in eni.private_ip_addresses:
            taken.add(ipaddress.ip_address(item["PrivateIpAddress"]))
    return taken


def _insufficient_cidr(subnet):
    return EC2ClientError(
        "InsufficientCidrBlocks",
        f"There are not enough free cidr blocks in the specified subnet '{subnet.id}' "
        "to satisfy the request.",
    )


def _patch_exhaustion():
    """moto raises a bare StopIteration (HTTP 500) when a subnet runs out of addresses."""
    original = Subnet.get_available_subnet_ip

    def get_available_subnet_ip(self, instance):
        try:
            return original(self, instance)
        except StopIteration:
            raise EC2ClientError(
                "InsufficientFreeAddressesInSubnet",
                f"There are not enough free addresses in subnet '{self.id}' to satisfy "
                "the requested number of instances.",
            ) from None

    Subnet.get_available_subnet_ip = get_available_subnet_ip


def _patch_available_count():
    """moto counts each interface address as used; a /28 prefix takes 16 more."""
    original = Subnet.available_ip_address_count

    def available_ip_address_count(self):
        prefixes = sum(
            len(getattr(eni, "karpnet_ipv4_prefixes", ()))
            for eni in self.ec2_backend.get_all_network_interfaces()
            if eni.subnet.id == self.id
        )
        return original.fget(self) - PREFIX_SIZE * prefixes

    Subnet.available_ip_address_count = property(available_ip_address_count)
