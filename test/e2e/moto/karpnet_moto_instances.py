"""RunInstances and DescribeInstances patches for moto 5.2.1.

What moto lacks, and what is patched here:

* RunInstances NetworkInterface.N: InterfaceType, NetworkCardIndex, Ipv4PrefixCount and
  SecondaryPrivateIpAddressCount are ignored. Card-0 interfaces are still made by moto's own
  Instance.prep_nics and then given their type, addresses and prefixes; interfaces on other
  network cards (which moto would have put over the card-0 interface with the same device
  index) are made and attached here. The spec is checked first, so a bad request makes
  nothing: the primary interface must not be efa-only, an efa-only interface takes no
  addresses, and a (card, device) pair is used once.
* Placement.GroupName, Placement.GroupId and Placement.PartitionNumber are ignored. The group
  must exist (InvalidPlacementGroup.Unknown otherwise); partition groups get the asked
  partition (1..PartitionCount) or the next one in turn; instances are shown with
  placement groupName, groupId and partitionNumber, and can be filtered with
  placement-group-name.
* the placement never carries availabilityZoneId; it now does, from moto's zone table.
* an instance launched with NetworkInterfaces and no instance-level groups shows an empty
  groupSet; EC2 shows the primary interface's groups, and so does this.
* a RunInstances that fails half way (a subnet runs out of addresses or prefixes) keeps the
  instances made so far; it now leaves nothing behind, as in EC2.
* interfaces made at launch are kept when the instance terminates; in EC2 their
  DeleteOnTermination defaults to true, so they are deleted and their addresses and
  prefixes go back to the subnet.
"""

from moto.ec2.exceptions import EC2ClientError, InvalidParameterCombination
from moto.ec2.models.availability_zones_and_regions import RegionsAndZonesBackend
from moto.ec2.models.instances import Instance
from moto.ec2.responses.instances import InstanceResponse
from moto.ec2 import utils as ec2_utils
from moto.packages.boto.ec2.instance import InstancePlacement

import karpnet_moto_interfaces as interfaces
import karpnet_moto_placement as placement


def apply():
    """Applies every instance patch."""
    _patch_placement_fields()
    _patch_prep_nics()
    _patch_run_instances()
    _patch_instance_groups()
    # DescribeInstances Filter.N.Name=placement-group-name.
    ec2_utils.filter_dict_attribute_mapping["placement-group-name"] = "placement.group_name"


def _patch_placement_fields():
    """InstancePlacement gets the fields moto's serializer looks up for <placement>."""
    original_init = InstancePlacement.__init__

    def __init__(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.group_id = None
        self.partition_number = None

    def availability_zone_id(self):
        region = (self.zone or "")[:-1]
        for zone in RegionsAndZonesBackend.zones.get(region, []):
            if zone.name == self.zone:
                return zone.zone_id
        return None

    InstancePlacement.__init__ = __init__
    InstancePlacement.availability_zone_id = property(availability_zone_id)


def _card(spec):
    return int(spec.get("NetworkCardIndex") or 0)


def validate_nics(specs):
    """Checks RunInstances NetworkInterface.N before anything is made."""
    seen = set()
    for spec in specs:
        key = interfaces.nic_key(_card(spec), spec.get("DeviceIndex", 0))
        if key in seen:
            raise EC2ClientError(
                "InvalidParameterValue",
                "Each network interface requires a unique device index and network card "
                f"index; ({_card(spec)}, {spec.get('DeviceIndex', 0)}) is used twice.",
            )
        seen.add(key)
        if interfaces.check_type(spec.get("InterfaceType")) != "efa-only":
            continue
        if key == 0:
            raise InvalidParameterCombination(
                "The primary network interface (network card 0, device index 0) cannot be "
                "of type efa-only."
            )
        if spec.get("Ipv4PrefixCount") or spec.get("SecondaryPrivateIpAddressCount") or (
            spec.get("PrivateIpAddress") or spec.get("PrivateIpAddresses")
        ):
            raise InvalidParameterCombination(
                "An efa-only network interface cannot have IP addresses or prefixes."
            )


def _patch_prep_nics():
    """Instance.prep_nics: moto makes card 0, this adds the rest and the missing fields."""
    original = Instance.prep_nics

    def prep_nics(self, nic_spec, private_ip=None, associate_public_ip=None,
                  security_groups=None, ipv6_address_count=None):
        specs = [dict(s) for s in nic_spec]
        card0 = [s for s in specs if _card(s) == 0]
        original(self, card0, private_ip=private_ip, associate_public_ip=associate_public_ip,
                 security_groups=security_groups, ipv6_address_count=ipv6_address_count)
        if not card0 and 0 in self.nics:
            self.nics[0].delete_on_termination = True  # made from SubnetId, as EC2 does
        for spec in card0:
            if spec.get("NetworkInterfaceId"):
                continue  # an existing interface keeps what it has
            eni = self.nics[int(spec.get("DeviceIndex", 0))]
            # EC2 deletes interfaces made at launch with the instance unless told otherwise.
            eni.delete_on_termination = spec.get("DeleteOnTermination") is not False
            interfaces.configure(
                eni,
                spec.get("InterfaceType"),
                spec.get("Ipv4PrefixCount"),
                spec.get("SecondaryPrivateIpAddressCount"),
            )
        for spec in specs:
            if _card(spec) != 0:
                _attach_on_card(self, spec, security_groups or [], ipv6_address_count)

    Instance.prep_nics = prep_nics


def _attach_on_card(instance, spec, security_groups, ipv6_address_count):
    """Makes (or takes) the interface of spec and attaches it on its network card."""
    backend = instance.ec2_backend
    if spec.get("NetworkInterfaceId"):
        eni = backend.get_network_interface(spec["NetworkInterfaceId"])
    else:
        subnet = backend.get_subnet(spec.get("SubnetId") or instance.subnet_id)
        group_ids = list(spec.get("Groups") or []) + [g.id for g in security_groups]
        eni = backend.create_network_interface(
            subnet,
            spec.get("PrivateIpAddress"),
            group_ids=group_ids,
            description=spec.get("Description"),
            delete_on_termination=spec.get("DeleteOnTermination") is not False,
            ipv6_address_count=ipv6_address_count,
            interface_type=spec.get("InterfaceType"),
            ipv4_prefix_count=spec.get("Ipv4PrefixCount"),
            secondary_ips_count=spec.get("SecondaryPrivateIpAddressCount"),
        )
    instance.attach_eni(eni, int(spec.get("DeviceIndex", 0)), _card(spec))


def _patch_run_instances():
    """RunInstances checks the interfaces and the placement group, then places instances."""
    original = InstanceResponse.run_instances

    def run_instances(self):
        validate_nics(self._get_param("NetworkInterfaces", []))
        where = self._get_param("Placement", {}) or {}
        group = None
        if where.get("GroupName") or where.get("GroupId"):
            group = placement.find(
                self.ec2_backend, name=where.get("GroupName"), group_id=where.get("GroupId")
            )
        partition = where.get("PartitionNumber")
        if partition is not None:
            partition = int(partition)
            if group is None or group.strategy != "partition":
                raise InvalidParameterCombination(
                    "PartitionNumber can only be used with a partition placement group."
                )
            if not 1 <= partition <= group.partition_count:
                raise EC2ClientError(
                    "InvalidParameterValue",
                    f"Value ({partition}) for parameter partitionNumber is invalid. "
                    f"The placement group '{group.group_name}' has "
                    f"{group.partition_count} partitions.",
                )
        backend = self.ec2_backend
        reservations, enis = set(backend.reservations), set(backend.enis)
        try:
            result = original(self)
        except EC2ClientError:
            _undo(backend, reservations, enis)
            raise
        if group is not None:
            for instance in result.result.instances:
                _place(self.ec2_backend, instance, group, partition)
        return result

    InstanceResponse.run_instances = run_instances


def _undo(backend, reservations, enis):
    """Forgets what a failed RunInstances made (EC2 launches all or nothing; moto keeps the
    instances made before the failure): new reservations and new interfaces, whose addresses
    and prefixes go back to their subnets."""
    for eni_id in set(backend.enis) - enis:
        backend.delete_network_interface(eni_id)
    for reservation_id in set(backend.reservations) - reservations:
        del backend.reservations[reservation_id]


def _place(backend, instance, group, partition):
    """Puts instance into group, in partition or in the next partition in turn."""
    where = instance.placement
    where.group_name, where.group_id = group.group_name, group.group_id
    if group.strategy != "partition":
        return
    if partition is None:
        members = sum(
            1 for i in backend.all_instances()
            if i is not instance and i.placement.group_id == group.group_id
        )
        partition = members % group.partition_count + 1
    where.partition_number = partition


def _patch_instance_groups():
    """Instance groupSet falls back to the primary interface's groups, as in EC2."""

    def group_identifier_list(self):
        groups = self.security_groups
        if not groups and 0 in self.nics:
            groups = self.nics[0]._group_set
        return [{"GroupId": g.id, "GroupName": g.name} for g in groups]

    # moto's serializer looks an Instance's SecurityGroups up by its shape name first.
    Instance.group_identifier_list = property(group_identifier_list)
