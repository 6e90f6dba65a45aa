"""An admin's DescribeGroups responses (API 15, v0-6) -> the job's units (no pyspark, no pyarrow).

A DescribeGroups response describes classic groups as the coordinator holds them: per group its error, state,
protocol type and protocol (the assignor), and per member its id, instance id (v4+), client id and host, and the
metadata it joined with and the assignment it was given -- the bytes JoinGroup and SyncGroup carry. They are read
as the group's own frames are (:mod:`codec.pipeline.records`, the capture story's
:mod:`codec.capture.storyadmin`): a ``consumer`` group's ConsumerProtocol subscription and assignment, with Kafka
Streams' SubscriptionInfo/AssignmentInfo inside when the protocol is ``stream`` (strictly: a layer that does not
decode quarantines the record) and the sticky assignors' user data when it is ``sticky`` or ``cooperative-sticky``;
a ``connect`` group's worker metadata and assignment. Each described group gives a :class:`GroupUnit` (its
protocol type and protocol, its error code; no generation: the response names none), and each member a
:class:`MemberUnit` and, when it has an assignment, an :class:`AssignmentUnit` (or Connect units): rows of
``members``, ``assignments`` and ``connect`` whose ``kind`` is ``describe-groups-response`` and whose generation
is null. A request says nothing the tables keep: it is counted as skipped (:data:`RESPONSES_ONLY`)."""

from __future__ import annotations

from ..errors import DecodeError
from ..wire.registry import api_key
from .units import GroupUnit, RecordError

__all__ = ["DESCRIBE_GROUPS", "DESCRIBED_KIND", "RESPONSES_ONLY", "describe_groups_units"]

DESCRIBE_GROUPS = api_key("DescribeGroups")
#: the ``kind`` of the rows a DescribeGroups response gives (its records' kind is ``frame``)
DESCRIBED_KIND = "describe-groups-response"
#: API keys whose requests are not input to the job (a DescribeGroups request names groups, nothing more)
RESPONSES_ONLY = (DESCRIBE_GROUPS,)
STREAMS = "stream"


def describe_groups_units(version: int | None, data: bytes) -> list:
    """The units of a DescribeGroupsResponse body (``data``, without the header), or :class:`RecordError`."""
    from ..group import decode_message
    from ..group.nested import carried_layer, decode_layer
    from . import records as r

    name = "DescribeGroupsResponse"
    if version is None:
        raise RecordError("MissingVersion", f"{name} bytes need the API version (column 'version')", layer=name)
    try:
        body = decode_message(name, version, data, nested=False).value
    except DecodeError as e:
        raise RecordError.of(e, name) from None
    except KeyError as e:
        raise RecordError("UnsupportedKind", str(e), layer=name) from None
    units: list = []
    for gi, g in enumerate(body.groups or ()):
        ptype, protocol = g.protocol_type, g.protocol_data or None
        members = g.members or ()
        units.append(GroupUnit(None, None, g.group_id, None, ptype or None, protocol, None, g.error_code))
        sub_layer = carried_layer("JoinGroupResponse", ptype)
        asg_layer = carried_layer("SyncGroupResponse", ptype)
        strict = protocol == STREAMS
        for mi, m in enumerate(members):
            at = f"groups[{gi}].members[{mi}]"
            member, gid = m.member_id, g.group_id
            sub = (
                decode_layer(sub_layer, m.member_metadata, protocol_name=protocol, at=at + ".member_metadata")
                if sub_layer is not None and m.member_metadata
                else None
            )
            msg, info = r._consumer_layer(sub, strict=strict, at=at + ".member_metadata")
            extra = dict(
                group_instance_id=getattr(m, "group_instance_id", None), client_id=m.client_id, client_host=m.client_host
            )
            units.append(r._subscription_unit(msg, info, member=member, group=gid, **extra))
            cu = r._connect_unit(sub, member=member, group=gid, protocol=protocol)
            if cu is not None:
                units.append(cu)
            if sub_layer is None or not m.member_assignment:
                continue
            asg = decode_layer(asg_layer, m.member_assignment, protocol_name=protocol, at=at + ".member_assignment")
            amsg, ainfo = r._consumer_layer(asg, strict=strict, at=at + ".member_assignment")
            if amsg is not None:
                units.append(
                    r._assignment_unit(
                        amsg, ainfo, member=member, group=gid, at=at + ".member_assignment", layer=name
                    )
                )
            cu = r._connect_unit(asg, member=member, group=gid, protocol=protocol)
            if cu is not None:
                units.append(cu)
    return units
