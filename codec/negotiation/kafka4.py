"""Kafka 4's group protocols: which protocol a group runs and who can join it, through the migration paths
between the classic protocol (JoinGroup/SyncGroup), KIP-848's consumer protocol (ConsumerGroupHeartbeat,
api key 68) and KIP-1071's streams protocol (StreamsGroupHeartbeat, api key 88), and beside them KIP-932's share
groups (ShareGroupHeartbeat, api key 76), which no other kind of group may share an id with.

A scenario (``"kind": "kafka4-migration"``) is a broker and a sequence of events, each a member joining,
leaving or restarting with a ``group.protocol`` and a client release::

    {"kind": "kafka4-migration", "broker": {"release": "4.0", "migrationPolicy": "bidirectional"},
     "events": [{"join": "A", "groupProtocol": "classic", "client": "3.9"},
                {"restart": "A", "groupProtocol": "consumer", "client": "4.0"}, {"leave": "A"}]}

The coordinator's rules, as Kafka's group coordinator applies them (``GroupMetadataManager`` at Kafka
1eb7644, the 4.0 development line, unless noted; line numbers are that file's):

* **The gates.** A broker serves ConsumerGroupHeartbeat only when ``group.coordinator.rebalance.protocols``
  contains ``consumer`` (default ``classic,consumer``, ``GroupCoordinatorConfig`` line 81) and the
  ``group.version`` feature is at least 1 (``GroupVersion.GV_1``, bootstrapped with metadata version
  4.0-IV0); otherwise ``KafkaApis.handleConsumerGroupHeartbeat`` answers ``UNSUPPORTED_VERSION`` and the
  client stops with "The cluster doesn't yet support the new consumer group protocol. Set
  group.protocol=classic ..." (``AbstractHeartbeatRequestManager``). StreamsGroupHeartbeat needs a 4.1+
  broker, ``streams`` in the rebalance protocols and ``streams.version`` >= 1 (``StreamsVersion.SV_1``:
  early access in 4.1, whose production level is 0; production-ready in 4.2); otherwise ``UNSUPPORTED_VERSION``.
* **Upgrade** (a ConsumerGroupHeartbeat joining, epoch 0; ``getOrMaybeCreateConsumerGroup``, line 777): no
  group -> a new consumer group; an *empty* classic group is deleted and replaced whatever the policy
  (``maybeDeleteEmptyClassicGroup``); a classic group with members is converted online
  (``convertToConsumerGroup``; its members become classic-protocol members of the consumer group) when
  ``group.consumer.migration.policy`` allows upgrades, the group's protocol type is ``consumer`` and its size
  is within ``group.consumer.max.size`` (``validateOnlineUpgrade``, line 1154); otherwise
  ``GROUP_ID_NOT_FOUND``. A streams group is never a consumer group: ``GROUP_ID_NOT_FOUND``.
* **Classic members in a consumer group** (``classicGroupJoin``, line 3993): a JoinGroup to a consumer
  group with members joins it as a classic-protocol member, whatever the migration policy, when its protocol
  type is ``consumer`` and it offers a protocol every classic member of the group offers
  (``ConsumerGroup.supportsClassicProtocols``); otherwise ``INCONSISTENT_GROUP_PROTOCOL``. A JoinGroup to an
  *empty* consumer group deletes it and makes a classic group (``maybeDeleteEmptyConsumerGroup``).
* **Downgrade** (``consumerGroupFenceMember``, line 2785, and ``validateOnlineDowngradeWithFencedMember``,
  line 1050): when the last consumer-protocol member leaves and classic members remain, the group is
  converted back to a classic group (and rebalances) if the policy allows downgrades and the remaining
  members fit ``group.max.size``; otherwise the member is removed and the group stays a consumer group
  whose members all speak the classic protocol.
* **Streams** (KIP-1071; ``getOrCreateStreamsGroup`` and ``castToStreamsGroup`` in Kafka's 4.1+ line): there
  is no online migration. A StreamsGroupHeartbeat to an empty classic group replaces it; to a classic group
  with members, or to a consumer group, it gets ``GROUP_ID_NOT_FOUND`` ("Group ... is not a streams group.").
  A JoinGroup to a streams group with members gets ``INCONSISTENT_GROUP_PROTOCOL``; the documented path is
  offline: stop every instance, let the group empty, restart with ``group.protocol=streams``. The way back
  (a JoinGroup replacing an *empty* streams group with a classic group) is in Kafka's trunk since late 2025
  (``classicGroupJoin`` accepts ``STREAMS && isEmpty()``); the 4.0 line's ``classicGroupJoin`` answers any
  group that is neither consumer nor classic with ``INCONSISTENT_GROUP_PROTOCOL``. The model follows the
  newer rule and says so.
* The classic protocol's own rule (``ClassicGroup.supportsProtocols``): a member joining a classic group
  must have the group's protocol type and offer a protocol every member offers, else
  ``INCONSISTENT_GROUP_PROTOCOL``.
* **Share groups** (KIP-932; Kafka 4.1.0, apache/kafka ``13f70256``: ``KafkaApis.handleShareGroupHeartbeat`` and
  ``GroupMetadataManager.getOrMaybeCreateShareGroup``). A 4.1 broker serves ShareGroupHeartbeat v1 only when the
  ``share.version`` feature is at least 1 (``ShareVersion.SV_1``: "a preview in 4.1", off by default and enabled
  with ``kafka-features.sh upgrade --feature share.version=1``); otherwise ``UNSUPPORTED_VERSION``. A 4.0 broker
  has only the early access's v0, which 4.1 clients do not speak: ``UNSUPPORTED_VERSION`` too. There is no
  migration to or from a share group ("We don't support upgrading/downgrading between protocols"): a
  ShareGroupHeartbeat to any group of another type, even an empty classic group, gets ``GROUP_ID_NOT_FOUND``
  ("Group ... is not a share group."); a ConsumerGroupHeartbeat or StreamsGroupHeartbeat to a share group gets
  ``GROUP_ID_NOT_FOUND`` ("... is not a consumer group." / "... is not a streams group."), and a JoinGroup
  ``INCONSISTENT_GROUP_PROTOCOL`` (``classicGroupJoin``), whether the share group has members or not. A share
  group holds at most ``group.share.max.size`` members (default 200, ``throwIfShareGroupIsFull``:
  ``GROUP_MAX_SIZE_REACHED``). A share group left empty stays a share group (until Kafka deletes it, which the
  model does not do).

Clients: the Java consumer first has ``group.protocol=consumer`` in 3.7 (early access; GA in 4.0) and
speaks ConsumerGroupHeartbeat v0 up to 3.9 and v1 (SubscribedTopicRegex) from 4.0; Kafka Streams first has
``group.protocol=streams`` in 4.1 and speaks StreamsGroupHeartbeat v0; the share consumer (``app`` ``share``,
``KafkaShareConsumer``, ``groupProtocol`` ``share``) speaks ShareGroupHeartbeat v1 from 4.1 and nothing else. A
scenario giving an older client that setting is refused (the model does not guess what an unknown setting does
there).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..text import printable
from .scenario import ScenarioError, _list, _name, _object, _quote, _show

__all__ = [
    "KAFKA4_MIGRATION",
    "MIGRATION_POLICIES",
    "Broker",
    "check_kafka4_scenario",
    "join_outcome",
    "render_kafka4_scenario",
    "run_kafka4_scenario",
]

KAFKA4_MIGRATION = "kafka4-migration"
#: group.consumer.migration.policy values (ConsumerGroupMigrationPolicy); the default is bidirectional
#: (GroupCoordinatorConfig.CONSUMER_GROUP_MIGRATION_POLICY_DEFAULT).
MIGRATION_POLICIES = ("disabled", "upgrade", "downgrade", "bidirectional")
GROUP_PROTOCOLS = ("classic", "consumer", "streams", "share")
REBALANCE_PROTOCOLS = ("classic", "consumer", "streams")  # group.coordinator.rebalance.protocols
APPS = ("consumer", "streams", "connect", "share")
BROKER_RELEASES = ("4.0", "4.1", "4.2")
# Client releases the model knows (the Java clients'); "3.7" is the first with group.protocol=consumer.
CLIENT_RELEASES = ("2.4", "2.8", "3.0", "3.4", "3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2")
_INT32_MAX = (1 << 31) - 1

# What a classic member offers in its JoinGroup by default: protocol type and protocol names.
# Consumer: partition.assignment.strategy's default [RangeAssignor, CooperativeStickyAssignor] since 3.0;
# Streams: StreamsPartitionAssignor ("stream"), protocol type consumer; Connect: connect.protocol=sessioned.
_CLASSIC_DEFAULTS = {
    "consumer": ("consumer", ("range", "cooperative-sticky")),
    "streams": ("consumer", ("stream",)),
    "connect": ("connect", ("sessioned", "compatible", "default")),
    "share": ("share", ("simple",)),
}  # a share consumer never sends a JoinGroup


def _release_key(r: str) -> tuple[int, ...]:
    return tuple(int(x) for x in r.split("."))


@dataclass(frozen=True)
class Broker:
    release: str = "4.0"
    group_version: int = 1
    streams_version: int = 0
    rebalance_protocols: tuple[str, ...] = ("classic", "consumer")
    migration_policy: str = "bidirectional"
    consumer_max_size: int = _INT32_MAX  # group.consumer.max.size
    classic_max_size: int = _INT32_MAX  # group.max.size
    share_version: int = 0  # the share.version feature (KIP-932)
    share_max_size: int = 200  # group.share.max.size (GroupCoordinatorConfig.SHARE_GROUP_MAX_SIZE_DEFAULT)

    @property
    def upgrade_enabled(self) -> bool:
        return self.migration_policy in ("upgrade", "bidirectional")

    @property
    def downgrade_enabled(self) -> bool:
        return self.migration_policy in ("downgrade", "bidirectional")

    def consumer_protocol_enabled(self) -> bool:  # KafkaApis.isConsumerGroupProtocolEnabled
        return "consumer" in self.rebalance_protocols and self.group_version >= 1

    def streams_protocol_enabled(self) -> bool:
        return (
            _release_key(self.release) >= (4, 1) and "streams" in self.rebalance_protocols and self.streams_version >= 1
        )

    def share_protocol_enabled(self) -> bool:  # KafkaApis.isShareGroupProtocolEnabled, ShareGroupHeartbeat v1
        return _release_key(self.release) >= (4, 1) and self.share_version >= 1

    def describe(self) -> str:
        share = f", share.version={self.share_version}" if _release_key(self.release) >= (4, 1) else ""
        return (
            f"broker {self.release}: group.version={self.group_version}, "
            f"streams.version={self.streams_version}{share}, "
            f"group.coordinator.rebalance.protocols={','.join(self.rebalance_protocols)}, "
            f"group.consumer.migration.policy={self.migration_policy}"
        )


@dataclass
class _Member:
    name: str
    protocol: str  # classic | consumer | streams | share: the protocol it speaks to the coordinator
    app: str
    client: str
    protocol_type: str
    assignors: tuple[str, ...]


@dataclass
class _Group:
    type: str | None = None  # None: no group; classic | consumer | streams | share
    members: dict[str, _Member] = field(default_factory=dict)
    protocol_type: str | None = None  # a classic group's protocol type


def heartbeat_version(protocol: str, client: str) -> int:
    """The heartbeat version a client release speaks (the broker serves 68 v0-1, 88 v0 and 76 v1)."""
    if protocol == "consumer":
        return 1 if _release_key(client) >= (4, 0) else 0
    return 1 if protocol == "share" else 0


def _rpc(m: _Member) -> str:
    if m.protocol == "classic":
        return "JoinGroup/SyncGroup"
    api = {"consumer": "ConsumerGroupHeartbeat", "share": "ShareGroupHeartbeat"}.get(
        m.protocol, "StreamsGroupHeartbeat"
    )
    return f"{api} v{heartbeat_version(m.protocol, m.client)}"


def join_outcome(broker: Broker, group: _Group, m: _Member) -> tuple[str | None, str, str | None]:
    """What the coordinator does with ``m`` joining ``group``: (error or None, what happens, the group type
    after). Pure: the group is not changed."""
    classic_in = [x for x in group.members.values() if x.protocol == "classic"]
    full = f"the consumer group has {len(group.members)} members, group.consumer.max.size={broker.consumer_max_size}"
    if m.protocol == "share":
        return _share_join(broker, group)
    if group.type == "share":  # no protocol migrates to or from a share group
        if m.protocol == "classic":
            return "INCONSISTENT_GROUP_PROTOCOL", "the group is a share group (classicGroupJoin)", "share"
        return "GROUP_ID_NOT_FOUND", f"the group is a share group, not a {m.protocol} group", "share"
    if m.protocol == "classic":
        if group.type == "consumer" and group.members:
            if len(group.members) >= broker.consumer_max_size:  # throwIfConsumerGroupIsFull (line 1919)
                return "GROUP_MAX_SIZE_REACHED", full, "consumer"
            if m.protocol_type == "consumer" and (
                not classic_in or any(all(a in x.assignors for x in classic_in) for a in m.assignors)
            ):
                return None, "joins the consumer group as a classic-protocol member", "consumer"
            return (
                "INCONSISTENT_GROUP_PROTOCOL",
                (
                    "its protocols are not supported by the consumer group "
                    "(protocol type consumer and a protocol every classic member offers)"
                ),
                "consumer",
            )
        if group.type == "streams" and group.members:
            return "INCONSISTENT_GROUP_PROTOCOL", "the group is a streams group", "streams"
        if group.type == "consumer":  # maybeDeleteEmptyConsumerGroup
            return None, "replaces the empty consumer group with a classic group", "classic"
        if group.type == "streams":  # Kafka's trunk since late 2025; the 4.0 line's coordinator refuses it
            return (
                None,
                (
                    "replaces the empty streams group with a classic group (a coordinator before the offline "
                    "streams-to-classic path answers INCONSISTENT_GROUP_PROTOCOL)"
                ),
                "classic",
            )
        if group.type == "classic" and group.members:
            common = set.intersection(*(set(x.assignors) for x in group.members.values()))
            if m.protocol_type != group.protocol_type or not common & set(m.assignors):
                return (
                    "INCONSISTENT_GROUP_PROTOCOL",
                    (
                        f"protocol type {m.protocol_type} and protocols "
                        f"{', '.join(m.assignors)} do not match the group's ({group.protocol_type}: "
                        f"{', '.join(sorted(common)) or 'none in common'})"
                    ),
                    "classic",
                )
        return None, "joins the classic group", "classic"
    if m.protocol == "consumer":
        if not broker.consumer_protocol_enabled():
            return (
                "UNSUPPORTED_VERSION",
                (
                    "the broker does not serve ConsumerGroupHeartbeat (group.version="
                    f"{broker.group_version}, rebalance protocols {','.join(broker.rebalance_protocols)})"
                ),
                group.type,
            )
        if group.type == "classic" and group.members:
            if not broker.upgrade_enabled:
                return (
                    "GROUP_ID_NOT_FOUND",
                    (
                        "cannot upgrade the classic group: online upgrade is disabled "
                        f"(group.consumer.migration.policy={broker.migration_policy})"
                    ),
                    "classic",
                )
            if group.protocol_type != "consumer":
                return (
                    "GROUP_ID_NOT_FOUND",
                    (
                        "cannot upgrade the classic group: it does not use the consumer "
                        f"embedded protocol (protocol type {group.protocol_type})"
                    ),
                    "classic",
                )
            if len(group.members) > broker.consumer_max_size:
                return (
                    "GROUP_ID_NOT_FOUND",
                    (
                        "cannot upgrade the classic group: it has more members than "
                        f"group.consumer.max.size={broker.consumer_max_size}"
                    ),
                    "classic",
                )
            if len(group.members) >= broker.consumer_max_size:  # the converted group is full (line 1741)
                return (
                    "GROUP_MAX_SIZE_REACHED",
                    (
                        f"the converted group would have {len(group.members)} members, "
                        f"group.consumer.max.size={broker.consumer_max_size}; it stays classic"
                    ),
                    "classic",
                )
            return None, "converts the classic group to a consumer group (online upgrade) and joins it", "consumer"
        if group.type == "classic":
            return None, "replaces the empty classic group with a consumer group", "consumer"
        if group.type == "streams":
            return "GROUP_ID_NOT_FOUND", "the group is a streams group, not a consumer group", "streams"
        if group.type == "consumer" and len(group.members) >= broker.consumer_max_size:
            return "GROUP_MAX_SIZE_REACHED", full, "consumer"  # throwIfConsumerGroupIsFull (line 1741)
        return None, "joins the consumer group" if group.type else "creates the consumer group", "consumer"
    # streams
    if not broker.streams_protocol_enabled():
        why = (
            "a 4.0 broker has no StreamsGroupHeartbeat"
            if _release_key(broker.release) < (4, 1)
            else f"streams.version={broker.streams_version}, rebalance protocols {','.join(broker.rebalance_protocols)}"
        )
        return "UNSUPPORTED_VERSION", f"the broker does not serve StreamsGroupHeartbeat ({why})", group.type
    if group.type == "classic" and group.members:
        return (
            "GROUP_ID_NOT_FOUND",
            ("the group is a classic group with members, not a streams group (no online migration to a streams group)"),
            "classic",
        )
    if group.type == "classic":
        return None, "replaces the empty classic group with a streams group", "streams"
    if group.type == "consumer":
        return "GROUP_ID_NOT_FOUND", "the group is a consumer group, not a streams group", "consumer"
    return None, "joins the streams group" if group.type else "creates the streams group", "streams"


def _share_join(broker: Broker, group: _Group) -> tuple[str | None, str, str | None]:
    """A ShareGroupHeartbeat joining (epoch 0): the feature gate, the group's type, its size."""
    if not broker.share_protocol_enabled():
        why = (
            "a 4.0 broker has only the early access's v0"
            if _release_key(broker.release) < (4, 1)
            else f"share.version={broker.share_version}: share groups are a preview in 4.1, enabled with "
            "kafka-features.sh upgrade --feature share.version=1"
        )
        return "UNSUPPORTED_VERSION", f"the broker does not serve ShareGroupHeartbeat v1 ({why})", group.type
    if group.type not in (None, "share"):
        which = "a" if group.members else "an empty"
        return "GROUP_ID_NOT_FOUND", f"the group is {which} {group.type} group, not a share group", group.type
    if len(group.members) >= broker.share_max_size:
        full = f"the share group has {len(group.members)} members, group.share.max.size={broker.share_max_size}"
        return "GROUP_MAX_SIZE_REACHED", full, "share"
    return None, "joins the share group" if group.type else "creates the share group", "share"


def _apply_join(broker: Broker, group: _Group, m: _Member) -> tuple[str | None, str]:
    error, what, after = join_outcome(broker, group, m)
    if error:
        return error, what
    if after != group.type:
        if not (group.type == "classic" and group.members):  # an online upgrade keeps the members
            group.members = {}
        group.type = after
    if after == "classic" and not group.members:
        group.protocol_type = m.protocol_type
    group.members[m.name] = m
    return None, what


def _apply_leave(broker: Broker, group: _Group, name: str) -> str:
    m = group.members[name]
    others = [x for n, x in group.members.items() if n != name]
    if group.type == "consumer" and m.protocol != "classic" and others and all(x.protocol == "classic" for x in others):
        if broker.downgrade_enabled and len(others) <= broker.classic_max_size:
            del group.members[name]
            group.type, group.protocol_type = "classic", "consumer"
            return (
                "leaves; the last consumer-protocol member is gone: the group is converted to a classic group "
                "(online downgrade) and rebalances"
            )
        del group.members[name]
        why = (
            f"group.consumer.migration.policy={broker.migration_policy}"
            if not broker.downgrade_enabled
            else f"group.max.size={broker.classic_max_size}"
        )
        return f"leaves; the group stays a consumer group of classic-protocol members ({why})"
    del group.members[name]
    return "leaves" + ("; the group is empty" if not group.members else "")


# --- scenario files ---------------------------------------------------------------------------------------

_BROKER_KEYS = {
    "release",
    "groupVersion",
    "streamsVersion",
    "rebalanceProtocols",
    "migrationPolicy",
    "consumerMaxSize",
    "classicMaxSize",
    "shareVersion",
    "shareMaxSize",
}
_JOIN_KEYS = {"join", "restart", "groupProtocol", "client", "app", "assignors"}


def _int(v, where: str, lo: int, hi: int) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise ScenarioError(f"{where}: needs an integer in {lo}..{hi}, got {_show(v)}")
    return v


def _broker(spec) -> Broker:
    b = _object(spec, "broker", _BROKER_KEYS)
    release = b.get("release", "4.0")
    if release not in BROKER_RELEASES:
        raise ScenarioError(
            f"broker.release: unknown broker release {_quote(release)} (known: {', '.join(BROKER_RELEASES)})"
        )
    protocols = b.get("rebalanceProtocols", ["classic", "consumer"])
    for i, p in enumerate(_list(protocols, "broker.rebalanceProtocols")):
        if p not in REBALANCE_PROTOCOLS:  # share groups are gated by share.version, not by this list
            raise ScenarioError(
                f"broker.rebalanceProtocols[{i}]: unknown protocol {_quote(p)} (known: "
                f"{', '.join(REBALANCE_PROTOCOLS)})"
            )
    policy = b.get("migrationPolicy", "bidirectional")
    if not isinstance(policy, str) or policy.lower() not in MIGRATION_POLICIES:
        raise ScenarioError(
            f"broker.migrationPolicy: unknown group.consumer.migration.policy {_quote(policy)} "
            f"(known: {', '.join(MIGRATION_POLICIES)})"
        )
    return Broker(
        release=release,
        group_version=_int(b.get("groupVersion", 1), "broker.groupVersion", 0, 1),
        streams_version=_int(b.get("streamsVersion", 0), "broker.streamsVersion", 0, 1),
        rebalance_protocols=tuple(protocols),
        migration_policy=policy.lower(),
        consumer_max_size=_int(b.get("consumerMaxSize", _INT32_MAX), "broker.consumerMaxSize", 1, _INT32_MAX),
        classic_max_size=_int(b.get("classicMaxSize", _INT32_MAX), "broker.classicMaxSize", 1, _INT32_MAX),
        share_version=_int(b.get("shareVersion", 0), "broker.shareVersion", 0, 1),
        share_max_size=_int(b.get("shareMaxSize", 200), "broker.shareMaxSize", 1, _INT32_MAX),
    )


def _member(ev: dict, where: str, name: str) -> _Member:
    protocol = ev.get("groupProtocol", "classic")
    if protocol not in GROUP_PROTOCOLS:
        raise ScenarioError(
            f"{where}.groupProtocol: unknown group.protocol {_quote(protocol)} (known: {', '.join(GROUP_PROTOCOLS)})"
        )
    client = ev.get("client", "4.0")
    if client not in CLIENT_RELEASES:
        raise ScenarioError(
            f"{where}.client: unknown client release {_quote(client)} (known: {', '.join(CLIENT_RELEASES)})"
        )
    app = ev.get("app", protocol if protocol in ("streams", "share") else "consumer")
    if app not in APPS:
        raise ScenarioError(f"{where}.app: unknown application {_quote(app)} (known: {', '.join(APPS)})")
    first = {"consumer": "3.7", "streams": "4.1", "share": "4.1"}.get(protocol)
    if first and _release_key(client) < _release_key(first):
        raise ScenarioError(f"{where}.client: a {client} client has no group.protocol={protocol} (first in {first})")
    if protocol == "consumer" and app != "consumer" or protocol in ("streams", "share") and app != protocol:
        raise ScenarioError(f"{where}.app: group.protocol={protocol} is not for a {app} application")
    if app == "share" and protocol != "share":
        raise ScenarioError(f"{where}.groupProtocol: a share consumer speaks only the share protocol")
    ptype, assignors = _CLASSIC_DEFAULTS[app]
    if "assignors" in ev:
        names = _list(ev["assignors"], f"{where}.assignors")
        if not names or not all(isinstance(x, str) and x for x in names):
            raise ScenarioError(f"{where}.assignors: needs a non-empty list of protocol names")
        assignors = tuple(names)
    return _Member(name, protocol, app, client, ptype, assignors)


def check_kafka4_scenario(spec) -> None:
    """Raise :class:`ScenarioError` unless ``spec`` is a Kafka 4 migration scenario (module docstring)."""
    _object(spec, "scenario", {"kind", "name", "description", "broker", "events"})
    for key in ("name", "description"):
        if key in spec and not isinstance(spec[key], str):
            raise ScenarioError(f"{key}: needs a string, got {_show(spec[key])}")
    _broker(spec.get("broker", {}))
    events = _list(spec.get("events"), "events") if "events" in spec else None
    if not events:
        raise ScenarioError('events: needs a non-empty list of {"join"|"restart"|"leave": member, ...}')
    seen: set[str] = set()
    for i, ev in enumerate(events):
        where = f"events[{i}]"
        if not isinstance(ev, dict):
            raise ScenarioError(f"{where}: needs an object, got {_show(ev)}")
        verbs = [k for k in ("join", "restart", "leave") if k in ev]
        if len(verbs) != 1:
            raise ScenarioError(f'{where}: needs exactly one of "join", "restart", "leave"')
        verb = verbs[0]
        _object(ev, where, {"leave"} if verb == "leave" else _JOIN_KEYS - {"join" if verb == "restart" else "restart"})
        name = _name(ev[verb], f"{where}.{verb}")
        if verb == "join":
            seen.add(name)
        elif name not in seen:
            raise ScenarioError(f"{where}.{verb}: {name!r} has not joined before")
        if verb != "leave":
            _member(ev, where, name)


def _can_join(broker: Broker, group: _Group) -> dict[str, str]:
    """What a new member of each kind would get now."""
    app = next((x.app for x in group.members.values()), "consumer")
    classic = next((x for x in group.members.values() if x.protocol == "classic"), None)
    probes = {
        "classic": classic or _Member("?", "classic", app, "4.0", *_CLASSIC_DEFAULTS[app]),
        "consumer": _Member("?", "consumer", "consumer", "4.0", *_CLASSIC_DEFAULTS["consumer"]),
        "streams": _Member("?", "streams", "streams", "4.1", *_CLASSIC_DEFAULTS["streams"]),
    }
    if _release_key(broker.release) >= (4, 1):  # share groups exist from 4.1 (a preview there)
        probes["share"] = _Member("?", "share", "share", "4.1", *_CLASSIC_DEFAULTS["share"])
    out = {}
    for label, probe in probes.items():
        error, what, _ = join_outcome(broker, group, replace(probe, name="?"))
        out[label] = error or "yes" + (" (online upgrade)" if "online upgrade" in what else "")
    return out


def run_kafka4_scenario(spec: dict) -> list[dict]:
    """Each event as a phase: the member's request and the coordinator's answer (an error as Kafka names it),
    the group's type and members after it, and what a new member of each protocol would get."""
    check_kafka4_scenario(spec)
    broker = _broker(spec.get("broker", {}))
    group = _Group()
    out = []
    for i, ev in enumerate(spec["events"], 1):
        before = group.type
        steps = []
        if "leave" in ev:
            name = ev["leave"]
            if name in group.members:
                steps.append(
                    {"member": name, "action": "leave", "error": None, "what": _apply_leave(broker, group, name)}
                )
            else:
                steps.append({"member": name, "action": "leave", "error": None, "what": "was not a member"})
        else:
            name = ev.get("join", ev.get("restart"))
            if "join" in ev and name in group.members:
                raise ScenarioError(
                    f"events[{i - 1}].join: {name!r} is already in the group (a restart leaves and joins)"
                )
            if "restart" in ev and name in group.members:
                steps.append(
                    {"member": name, "action": "leave", "error": None, "what": _apply_leave(broker, group, name)}
                )
            m = _member(ev, f"events[{i - 1}]", name)
            error, what = _apply_join(broker, group, m)
            steps.append(
                {
                    "member": name,
                    "action": "join",
                    "groupProtocol": m.protocol,
                    "client": m.client,
                    "rpc": _rpc(m),
                    "error": error,
                    "what": what,
                }
            )
        out.append(
            {
                "phase": i,
                "steps": steps,
                "groupBefore": before,
                "group": group.type,
                "members": {n: x.protocol for n, x in group.members.items()},
                "canJoin": _can_join(broker, group),
            }
        )
    return out


def _describe_event(ev: dict) -> str:
    if "leave" in ev:
        return f"{printable(ev['leave'])} leaves"
    verb = "joins" if "join" in ev else "restarts"
    who = printable(ev["join"] if "join" in ev else ev["restart"])  # the scenario check found one of them
    return f"{who} {verb} with group.protocol={ev.get('groupProtocol', 'classic')} (client {ev.get('client', '4.0')})"


def render_kafka4_scenario(spec: dict, phases: list[dict]) -> str:
    """The phases as text; names from the scenario are shown with :func:`codec.text.printable` (one line, no
    control sequences, valid UTF-8)."""
    broker = _broker(spec.get("broker", {}))
    lines = [f"# {printable(spec.get('name', 'Kafka 4 group protocol migration'))}"]
    if spec.get("description"):
        lines.append(printable(spec["description"]))
    lines.append(broker.describe())
    for ev, p in zip(spec["events"], phases):
        lines.append(f"\nphase {p['phase']}: {_describe_event(ev)}")
        for s in p["steps"]:
            if s["action"] == "join":
                head = f"  {printable(s['member'])} ({s['rpc']}): "
                lines.append(head + (f"ERROR {s['error']}: {s['what']}" if s["error"] else s["what"]))
            else:
                lines.append(f"  {printable(s['member'])} {s['what']}")
        members = ", ".join(f"{printable(n)} {proto}" for n, proto in p["members"].items()) or "no members"
        changed = f" (was {p['groupBefore']})" if p["groupBefore"] and p["groupBefore"] != p["group"] else ""
        lines.append(f"  -> group: {p['group'] or 'none'}{changed}; members: {members}")
        lines.append("     a new member with group.protocol=" + "; ".join(f"{k}: {v}" for k, v in p["canJoin"].items()))
    lines.append("\nthe group runs: " + ", ".join(f"phase {p['phase']} {p['group'] or 'none'}" for p in phases))
    return "\n".join(lines)
