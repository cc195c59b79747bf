"""Network interface patches for moto 5.2.1: types, network cards, secondary addresses, prefixes.

What moto lacks, and what is patched here:

* every interface is InterfaceType "interface": CreateNetworkInterface and RunInstances ignore
  InterfaceType (efa, efa-only, trunk, branch). The type is now kept, and an efa-only
  interface has no IP address at all, as in EC2.
* Ipv4PrefixCount is ignored: interfaces now get aligned /28 prefixes from their subnet
  (see karpnet_moto_addresses), shown as ipv4PrefixSet.
* SecondaryPrivateIpAddressCount draws addresses at random without reserving them (and
  RunInstances ignores it): addresses now come from the subnet's allocator.
* attachments are always on network card 0, and an instance keys its interfaces by device
  index alone, so a second card's device 0 replaced the primary interface. Interfaces are now
  keyed by (card, device); card 0 keeps moto's plain integer keys so moto's own
  `instance.nics[0]` still finds the primary interface. NetworkCardIndex is honoured by
  RunInstances and AttachNetworkInterface and shown in the attachment.
* DeleteNetworkInterface never returns the interface's addresses to the subnet.
* AssignPrivateIpAddresses with SecondaryPrivateIpAddressCount picks each address at random, checked
  only against the interface's addresses from before the call, so two can be one address (or
  another interface's): they are now distinct, still drawn at random.

RunInstances itself (and placement) is patched in karpnet_moto_instances.
"""

from moto.ec2.exceptions import EC2ClientError, InvalidParameterCombination
from moto.ec2.models.elastic_network_interfaces import (
    Attachment,
    NetworkInterface,
    NetworkInterfaceBackend,
)
from moto.ec2.models.instances import Instance
from moto.ec2.responses.elastic_network_interfaces import ElasticNetworkInterfaces
from moto.ec2.utils import add_tag_specification, random_eni_attach_id, random_private_ip
from moto.core.responses import ActionResult
from moto.core.utils import utcnow

import karpnet_moto_addresses as addresses

# INTERFACE_TYPES are the InterfaceType values EC2 accepts on an interface.
INTERFACE_TYPES = ("interface", "efa", "efa-only", "trunk", "branch")


def apply():
    """Applies every interface patch."""
    _patch_network_interface()
    _patch_backend()
    _patch_instance_attachments()
    _patch_responses()


def nic_key(card, device):
    """The key of an interface in Instance.nics: the device index alone on card 0."""
    card, device = int(card or 0), int(device)
    return device if card == 0 else (card, device)


def configure(eni, interface_type="interface", prefix_count=0, secondary_count=0):
    """Gives a new interface its type, secondary addresses and prefixes, all or nothing."""
    interface_type = check_type(interface_type)
    prefix_count, secondary_count = int(prefix_count or 0), int(secondary_count or 0)
    eni.interface_type = interface_type
    try:
        if interface_type == "efa-only":
            if prefix_count or secondary_count:
                raise InvalidParameterCombination(
                    "An efa-only network interface cannot have IP addresses or prefixes."
                )
            _drop_addresses(eni)
            return
        for _ in range(secondary_count):
            ip = addresses.allocate_ip(eni.subnet, eni)
            eni.private_ip_addresses.append({"Primary": False, "PrivateIpAddress": ip})
        for _ in range(prefix_count):
            eni.karpnet_ipv4_prefixes.append(addresses.allocate_prefix(eni.subnet))
    except EC2ClientError:
        release(eni)
        eni.ec2_backend.enis.pop(eni.id, None)
        raise


def check_type(interface_type):
    """Returns interface_type, "interface" when empty, or raises EC2's error if unknown."""
    interface_type = interface_type or "interface"
    if interface_type not in INTERFACE_TYPES:
        raise EC2ClientError(
            "InvalidParameterValue",
            f"Value ({interface_type}) for parameter interfaceType is invalid.",
        )
    return interface_type


def release(eni):
    """Returns an interface's addresses and prefixes to its subnet."""
    for item in eni.private_ip_addresses:
        addresses.release_ip(eni.subnet, item["PrivateIpAddress"])
    for prefix in eni.karpnet_ipv4_prefixes:
        addresses.release_prefix(eni.subnet, prefix)
    eni.karpnet_ipv4_prefixes = []


def _drop_addresses(eni):
    """Removes every IPv4 address from an interface (an efa-only interface has none)."""
    for item in eni.private_ip_addresses:
        addresses.release_ip(eni.subnet, item["PrivateIpAddress"])
    eni.private_ip_addresses = []
    eni.private_ip_address = None
    eni.private_dns_name = None


def _patch_network_interface():
    """Adds the fields moto's serializer looks up for ipv4PrefixSet and networkCardIndex."""
    original_init = NetworkInterface.__init__

    def __init__(self, *args, **kwargs):
        self.karpnet_ipv4_prefixes = []
        self.network_card_index = None
        original_init(self, *args, **kwargs)

    def ipv4_prefixes(self):
        # Read for both InstanceNetworkInterface and NetworkInterface (ipv4PrefixSet).
        return [{"Ipv4Prefix": p} for p in self.karpnet_ipv4_prefixes]

    NetworkInterface.__init__ = __init__
    NetworkInterface.ipv4_prefixes = property(ipv4_prefixes)

    original_attachment_init = Attachment.__init__

    def attachment_init(self, eni):
        original_attachment_init(self, eni)
        self.network_card_index = eni.network_card_index or 0

    Attachment.__init__ = attachment_init


def _patch_backend():
    """Backend create/delete/attach: allocated addresses, types and network cards."""
    original_create = NetworkInterfaceBackend.create_network_interface
    original_delete = NetworkInterfaceBackend.delete_network_interface

    def create_network_interface(
        self, subnet, private_ip_address, private_ip_addresses=None, *args, **kwargs
    ):
        interface_type = check_type(kwargs.pop("interface_type", None))
        prefix_count = kwargs.pop("ipv4_prefix_count", None)
        secondary_count = kwargs.pop("secondary_ips_count", None)
        if isinstance(subnet, str):
            subnet = self.get_subnet(subnet)
        if isinstance(private_ip_address, list):
            private_ip_address = private_ip_address[0] if private_ip_address else None
        if private_ip_address:
            if private_ip_address not in subnet._subnet_ips:
                addresses.claim_ip(subnet, private_ip_address, None)
        elif not private_ip_addresses:
            # moto would pick a random, unreserved address.
            private_ip_address = addresses.allocate_ip(subnet, None)
        eni = original_create(
            self, subnet, private_ip_address, private_ip_addresses, *args, **kwargs
        )
        for item in eni.private_ip_addresses:
            subnet._subnet_ips[item["PrivateIpAddress"]] = eni
        configure(eni, interface_type, prefix_count, secondary_count)
        return eni

    def delete_network_interface(self, eni_id):
        eni = self.enis.get(eni_id)
        original_delete(self, eni_id)
        if eni is not None:
            release(eni)

    def attach_network_interface(self, eni_id, instance_id, device_index, network_card_index=0):
        eni = self.get_network_interface(eni_id)
        instance = self.get_instance(instance_id)
        instance.attach_eni(eni, device_index, network_card_index)
        return eni.attachment

    original_assign = NetworkInterfaceBackend.assign_private_ip_addresses

    def assign_private_ip_addresses(self, eni_id, private_ip_addresses=None, secondary_ips_count=None):
        # moto picks each address at random and checks it only against the interface's
        # addresses from before the call, so two picks can be one address, or another
        # interface's: still at random (tests choose primary addresses by hand), but distinct.
        if private_ip_addresses or not secondary_ips_count:
            return original_assign(self, eni_id, private_ip_addresses, secondary_ips_count)
        eni = self.get_network_interface(eni_id)
        taken = {item.get("PrivateIpAddress") for item in eni.private_ip_addresses}
        taken.update(eni.subnet._subnet_ips)
        for _ in range(int(secondary_ips_count)):
            ip = random_private_ip(eni.subnet.cidr_block)
            while ip in taken:
                ip = random_private_ip(eni.subnet.cidr_block)
            taken.add(ip)
            eni.private_ip_addresses.append({"Primary": False, "PrivateIpAddress": ip})
        return eni

    NetworkInterfaceBackend.create_network_interface = create_network_interface
    NetworkInterfaceBackend.delete_network_interface = delete_network_interface
    NetworkInterfaceBackend.attach_network_interface = attach_network_interface
    NetworkInterfaceBackend.assign_private_ip_addresses = assign_private_ip_addresses


def _patch_instance_attachments():
    """Instance.attach_eni/detach_eni keyed by (card, device) instead of device alone."""

    def attach_eni(self, eni, device_index, network_card_index=0):
        key = nic_key(network_card_index, device_index)
        if self.nics.get(key) not in (None, eni):
            raise EC2ClientError(
                "InvalidParameterValue",
                f"Instance '{self.id}' already has an interface attached at device index "
                f"'{int(device_index)}' on network card '{int(network_card_index or 0)}'.",
            )
        self.nics[key] = eni
        eni.instance = self
        eni.attachment_id = random_eni_attach_id()
        eni.attach_time = utcnow()
        eni.status = "in-use"
        eni.device_index = int(device_index)
        eni.network_card_index = int(network_card_index or 0)
        return eni.attachment_id

    def detach_eni(self, eni):
        self.nics.pop(nic_key(eni.network_card_index, eni.device_index), None)
        eni.instance = None
        eni.attachment_id = None
        eni.attach_time = None
        eni.status = "available"
        eni.device_index = None
        eni.network_card_index = None

    Instance.attach_eni = attach_eni
    Instance.detach_eni = detach_eni


def _patch_responses():
    """CreateNetworkInterface and AttachNetworkInterface read the parameters moto drops."""

    def create_network_interface(self):
        subnet = self.ec2_backend.get_subnet(self._get_param("SubnetId"))
        private_ip_address = self._get_param("PrivateIpAddress")
        ipv6_addresses = [i["Ipv6Address"] for i in self._get_param("Ipv6Addresses", [])]
        tags = add_tag_specification(self._get_param("TagSpecifications", []))
        self.error_on_dryrun()
        if private_ip_address:
            addresses.claim_ip(subnet, private_ip_address, None)
        eni = self.ec2_backend.create_network_interface(
            subnet,
            private_ip_address,
            self._get_param("PrivateIpAddresses", []),
            self._get_param("Groups", []),
            self._get_param("Description"),
            tags,
            ipv6_addresses=ipv6_addresses,
            ipv6_address_count=self._get_int_param("Ipv6AddressCount", 0),
            secondary_ips_count=self._get_int_param("SecondaryPrivateIpAddressCount", 0),
            interface_type=self._get_param("InterfaceType"),
            ipv4_prefix_count=self._get_int_param("Ipv4PrefixCount", 0),
        )
        return ActionResult({"NetworkInterface": eni})

    def attach_network_interface(self):
        eni_id = self._get_param("NetworkInterfaceId")
        instance_id = self._get_param("InstanceId")
        device_index = self._get_int_param("DeviceIndex")
        card = self._get_int_param("NetworkCardIndex", 0)
        self.error_on_dryrun()
        attachment = self.ec2_backend.attach_network_interface(
            eni_id, instance_id, device_index, card
        )
        return ActionResult(
            {"AttachmentId": attachment.attachment_id, "NetworkCardIndex": card}
        )

    ElasticNetworkInterfaces.create_network_interface = create_network_interface
    ElasticNetworkInterfaces.attach_network_interface = attach_network_interface
