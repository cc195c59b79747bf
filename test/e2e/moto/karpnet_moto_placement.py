"""Placement groups for moto 5.2.1, which has none.

moto answers CreatePlacementGroup, DescribePlacementGroups and DeletePlacementGroup with "not
implemented" (HTTP 500 from the server). This module adds them to moto's EC2 backend and
response class, with EC2's behaviour where karpnet depends on it:

* strategies cluster, partition (PartitionCount 1-7, default 2) and spread (SpreadLevel rack
  or host, default rack); group IDs look like pg-0123456789abcdef0;
* DescribePlacementGroups by GroupName.N and GroupId.N fails the whole call with
  InvalidPlacementGroup.Unknown when one of them does not exist, while the group-name filter
  (and the other filters) simply leaves unknown names out;
* DeletePlacementGroup fails with InvalidPlacementGroup.InUse while an instance is in it.

Groups live on the regional EC2 backend, so POST /moto-api/reset forgets them.
Instances are put into groups by karpnet_moto_instances.
"""

from moto.core.responses import ActionResult, EmptyResult
from moto.ec2.exceptions import EC2ClientError
from moto.ec2.responses import EC2Response
from moto.ec2.utils import random_id

# STRATEGIES are the placement strategies EC2 knows.
STRATEGIES = ("cluster", "partition", "spread")
# MAX_PARTITIONS is the most partitions a partition group may have.
MAX_PARTITIONS = 7
# FILTERS are the DescribePlacementGroups filter names EC2 accepts (besides tag:KEY).
FILTERS = ("group-name", "group-arn", "state", "strategy", "spread-level", "tag-key")


class PlacementGroup:
    """One placement group; attribute names are those moto's serializer looks up."""

    def __init__(self, backend, name, strategy, partition_count, spread_level, tags):
        self.group_name = name
        self.group_id = random_id(prefix="pg")
        self.strategy = strategy
        self.partition_count = partition_count
        self.spread_level = spread_level
        self.state = "available"
        self.group_arn = (
            f"arn:{backend.partition}:ec2:{backend.region_name}:{backend.account_id}"
            f":placement-group/{name}"
        )
        self.tags = [{"Key": k, "Value": v} for k, v in sorted(tags.items())]

    def matches(self, name, values):
        """Reports whether the group passes one DescribePlacementGroups filter."""
        if name.startswith("tag:"):
            key = name[len("tag:"):]
            return any(t["Key"] == key and t["Value"] in values for t in self.tags)
        if name == "tag-key":
            return any(t["Key"] in values for t in self.tags)
        attribute = {
            "group-name": self.group_name,
            "group-arn": self.group_arn,
            "state": self.state,
            "strategy": self.strategy,
            "spread-level": self.spread_level,
        }[name]
        return attribute in values


def apply():
    """Adds the placement group actions to moto's EC2 response class."""
    EC2Response.create_placement_group = _create_placement_group
    EC2Response.describe_placement_groups = _describe_placement_groups
    EC2Response.delete_placement_group = _delete_placement_group


def groups(backend):
    """The placement groups of one regional backend, by name (created on first use)."""
    return backend.__dict__.setdefault("karpnet_placement_groups", {})


def find(backend, name=None, group_id=None):
    """Returns the group with that name or ID, or raises InvalidPlacementGroup.Unknown."""
    for group in groups(backend).values():
        if group.group_name == name or (group_id and group.group_id == group_id):
            return group
    raise unknown(name or group_id)


def unknown(what):
    """EC2's error for a placement group name or ID that does not exist."""
    return EC2ClientError(
        "InvalidPlacementGroup.Unknown", f"The Placement Group '{what}' is unknown."
    )


def _create_placement_group(self):
    name = self._get_param("GroupName")
    strategy = self._get_param("Strategy")
    partition_count = self._get_int_param("PartitionCount")
    spread_level = self._get_param("SpreadLevel")
    self.error_on_dryrun()
    if not name:
        raise EC2ClientError("MissingParameter", "The request must contain the parameter groupName")
    if strategy not in STRATEGIES:
        raise EC2ClientError(
            "InvalidParameterValue", f"Value ({strategy}) for parameter strategy is invalid."
        )
    if partition_count is not None and strategy != "partition":
        raise EC2ClientError(
            "InvalidParameterCombination",
            "PartitionCount is only valid for placement groups with the partition strategy.",
        )
    if strategy == "partition":
        partition_count = 2 if partition_count is None else partition_count
        if not 1 <= partition_count <= MAX_PARTITIONS:
            raise EC2ClientError(
                "InvalidParameterValue",
                f"Value ({partition_count}) for parameter partitionCount is invalid. "
                f"It must be between 1 and {MAX_PARTITIONS}.",
            )
    if spread_level and strategy != "spread":
        raise EC2ClientError(
            "InvalidParameterCombination",
            "SpreadLevel is only valid for placement groups with the spread strategy.",
        )
    if strategy == "spread":
        spread_level = spread_level or "rack"
    existing = groups(self.ec2_backend)
    if name in existing:
        raise EC2ClientError(
            "InvalidPlacementGroup.Duplicate", f"The placement group '{name}' already exists."
        )
    tags = self._parse_tag_specification().get("placement-group", {})
    group = PlacementGroup(self.ec2_backend, name, strategy, partition_count, spread_level, tags)
    existing[name] = group
    return ActionResult({"PlacementGroup": group})


def _describe_placement_groups(self):
    names = self._get_param("GroupNames", [])
    ids = self._get_param("GroupIds", [])
    filters = self._filters_from_querystring()
    self.error_on_dryrun()
    for name in filters:
        if name not in FILTERS and not name.startswith("tag:"):
            raise EC2ClientError("InvalidParameterValue", f"The filter '{name}' is invalid")
    backend = self.ec2_backend
    for group_id in ids:
        if not group_id.startswith("pg-"):
            raise EC2ClientError(
                "InvalidPlacementGroupId.Malformed",
                f'Invalid id: "{group_id}" (expecting "pg-...")',
            )
    selected = list(groups(backend).values())
    if names:
        selected = [find(backend, name=n) for n in dict.fromkeys(names)]
    if ids:
        wanted = [find(backend, group_id=i) for i in dict.fromkeys(ids)]
        selected = [g for g in selected if g in wanted]
    for name, values in filters.items():
        selected = [g for g in selected if g.matches(name, values)]
    return ActionResult({"PlacementGroups": selected})


def _delete_placement_group(self):
    name = self._get_param("GroupName")
    self.error_on_dryrun()
    backend = self.ec2_backend
    group = find(backend, name=name)
    for instance in backend.all_instances():
        if instance.state != "terminated" and instance.placement.group_name == name:
            raise EC2ClientError(
                "InvalidPlacementGroup.InUse",
                f"The placement group '{name}' is in use and may not be deleted.",
            )
    del groups(backend)[group.group_name]
    return EmptyResult()
