"""Kafka Connect's group-protocol negotiation: ``connect.protocol`` -> the protocols a worker offers in its
JoinGroup request, and the one the group coordinator selects for the group (protocol type ``connect``).

Kafka's rules (at Kafka 1eb7644):

* ``connect.protocol`` is ``eager``, ``compatible`` or ``sessioned`` (``ConnectProtocolCompatibility``, names
  matched ignoring case; the default is ``sessioned`` since Kafka 2.4).
* ``WorkerCoordinator.metadata()`` sends, most preferred first (``ConnectProtocol.metadataRequest`` and
  ``IncrementalCooperativeConnectProtocol.metadataRequest``)::

      eager       default                              (v0 metadata)
      compatible  compatible, default                  (v1, v0)
      sessioned   sessioned, compatible, default       (v2, v1, v0)

  Each protocol carries its own metadata: ``default`` ConnectProtocol's v0 (URL and config offset),
  ``compatible`` and ``sessioned`` IncrementalCooperativeConnectProtocol's v1 and v2 (and the worker's previous
  assignment, written at the same version).
* The coordinator (``ClassicGroup.selectProtocol``, :func:`codec.negotiation.protocol.select_protocol`) takes
  the protocols every worker offers and lets each worker vote for the first of them in its own list. Every
  mode's list is a tail of ``sessioned, compatible, default``, so the candidates are the shortest list of the
  group and every worker votes for its head: the group runs the protocol of its *oldest* mode, and no tie can
  arise.
* The selected protocol decides the group's rebalancing (``WorkerCoordinator.onLeaderElected`` and
  ``onJoinComplete``): ``default`` is eager (every worker revokes everything before it joins; the leader runs
  ``EagerAssignor``), ``compatible`` and ``sessioned`` are incremental cooperative
  (``IncrementalCooperativeAssignor``, KIP-415); ``sessioned`` adds the session key the leader distributes
  for signing requests between workers (KIP-507).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from ..connect.assignment import ConnectAssignment
from ..connect.constants import COMPATIBILITY_PROTOCOLS, PROTOCOL_TYPE, protocol_version
from ..connect.metadata import ConnectMetadata, encode_connect_metadata
from .protocol import GroupMember, Selection, select_protocol

__all__ = [
    "CONNECT_MODES",
    "DEFAULT_CONNECT_MODE",
    "ConnectSelection",
    "connect_mode",
    "worker_protocols",
    "join_group_protocols",
    "select_connect_protocol",
    "protocol_mode",
    "rebalancing_of",
]

#: ``connect.protocol`` values, oldest first.
CONNECT_MODES = ("eager", "compatible", "sessioned")
#: ``DistributedConfig.CONNECT_PROTOCOL_DEFAULT``.
DEFAULT_CONNECT_MODE = "sessioned"

# protocol name -> the connect.protocol mode whose own protocol it is (ConnectProtocolCompatibility.protocol())
_MODE_OF = {"default": "eager", "compatible": "compatible", "sessioned": "sessioned"}


def connect_mode(name: str) -> str:
    """``ConnectProtocolCompatibility.compatibility``: the mode named (ignoring case), or ValueError."""
    if isinstance(name, str):
        for mode in CONNECT_MODES:
            if mode == name.lower():
                return mode
    raise ValueError(f"unknown connect.protocol {name!r} (known: {', '.join(CONNECT_MODES)})")


def worker_protocols(mode: str) -> tuple[str, ...]:
    """The protocol names a worker of that ``connect.protocol`` sends in its JoinGroup, most preferred first."""
    return COMPATIBILITY_PROTOCOLS[connect_mode(mode)]


def protocol_mode(protocol: str) -> str:
    """The ``connect.protocol`` mode a selected protocol name stands for (``fromProtocol``)."""
    protocol_version(protocol)  # ValueError for a name that is not Connect's
    return _MODE_OF[protocol.lower()]


def rebalancing_of(protocol: str) -> str:
    """How a group running ``protocol`` rebalances."""
    return "eager" if protocol_mode(protocol) == "eager" else "incremental cooperative"


def join_group_protocols(
    mode: str, url: str, config_offset: int, assignment: ConnectAssignment | None = None
) -> tuple[tuple[str, bytes], ...]:
    """The JoinGroup request's protocols of a worker, each name with its metadata bytes, as
    ``WorkerCoordinator.metadata()`` builds them: ``default`` as ConnectProtocol v0 (no assignment), ``compatible``
    and ``sessioned`` as v1 and v2 with the worker's previous ``assignment`` written at that version (null when
    the worker has none)."""
    out = []
    for name in worker_protocols(mode):
        version = protocol_version(name)
        alloc = None if assignment is None or version == 0 else replace(assignment, version=version)
        info = ConnectMetadata(version=version, url=url, config_offset=config_offset, allocation=alloc)
        out.append((name, encode_connect_metadata(info, drop_unrepresentable=True)))
    return tuple(out)


@dataclass(frozen=True)
class ConnectSelection:
    """The coordinator's choice for a Connect group: the protocol, its version, what it means for the group
    (``rebalancing``: ``eager`` or ``incremental cooperative``; ``assignor``: the leader's assignor;
    ``sessioned``: whether the group signs requests between workers with the leader's session key), and the
    generic selection (votes, candidates)."""

    protocol: str
    version: int
    mode: str
    rebalancing: str
    assignor: str
    sessioned: bool
    selection: Selection
    workers: dict[str, tuple[str, tuple[str, ...]]]  # worker -> (its connect.protocol, the protocols it sends)

    def to_json(self) -> dict:
        return {
            "protocol": self.protocol,
            "version": self.version,
            "mode": self.mode,
            "rebalancing": self.rebalancing,
            "assignor": self.assignor,
            "sessioned": self.sessioned,
            "votes": dict(self.selection.votes),
            "candidates": list(self.selection.candidates),
        }


def select_connect_protocol(workers: Mapping[str, str]) -> ConnectSelection:
    """The coordinator's selection for workers named with their ``connect.protocol`` (in join order)."""
    if not workers:
        raise ValueError("cannot select a protocol for an empty group")
    offered = {name: (connect_mode(mode), worker_protocols(mode)) for name, mode in workers.items()}
    sel = select_protocol([GroupMember(name, protos, PROTOCOL_TYPE) for name, (_, protos) in offered.items()])
    mode = protocol_mode(sel.protocol)
    return ConnectSelection(
        protocol=sel.protocol,
        version=protocol_version(sel.protocol),
        mode=mode,
        rebalancing=rebalancing_of(sel.protocol),
        assignor="EagerAssignor" if mode == "eager" else "IncrementalCooperativeAssignor",
        sessioned=mode == "sessioned",
        selection=sel,
        workers=offered,
    )
