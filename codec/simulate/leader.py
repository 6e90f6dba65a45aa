"""The simulated group leader: which assignor each compared protocol runs, over the members' real bytes.

* ``eager`` and ``cooperative``: :func:`codec.assignor.streams.streams_leader_assign` with the legacy
  ``sticky`` assignor (Streams before KIP-441: stickiness, then immediate balance; no warmups). The
  difference between them is on the members' side: eager members revoke every task when they join and
  report no owned partitions; cooperative members keep processing, and the leader withholds a task
  whose partitions another member still owns (wire-facts §9 step 8), which costs a second rebalance.
* ``ha``: the same leader with ``high_availability`` (KIP-441: warmups, probing rebalances).
* ``affinity``: Samza standalone's host-affine grouping (seed 002,
  :func:`codec.assignor.group_tasks_with_host_affinity`), each member a processor and its instance's host
  the locality, with eager (stop-the-world) hand-over as Samza standalone does it. The leader reads the
  previous processor of a task from the ``-2`` offset sums and the task's locality from the member that
  reports the most caught-up local store of it; it answers with the same AssignmentInfo bytes
  (active tasks only, no standbys).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..assignor import group_tasks_with_host_affinity
from ..assignor.leader import Topology
from ..assignor.model import AssignmentConfigs
from ..assignor.streams import LeaderResult, assignment_bytes, decode_member, parse_endpoint, streams_leader_assign
from ..streams import LATEST_SUPPORTED_VERSION, NO_REBALANCE, AssignmentInfo, SubscriptionInfo
from ..types import TaskId

__all__ = ["Protocol", "PROTOCOLS", "leader_assign", "affinity_leader_assign", "LOCALITY_TAG"]

LOCALITY_TAG = "locality"


@dataclass(frozen=True)
class Protocol:
    name: str
    rebalance: str  # EAGER | COOPERATIVE (a member with upgrade.from <= 2.3 is EAGER anyway, §5)
    assignor: str  # high_availability | high_availability_fast | sticky | host_affinity
    label: str


PROTOCOLS: dict[str, Protocol] = {
    "eager": Protocol("eager", "EAGER", "sticky", "eager (revoke all on join, sticky assignor)"),
    "cooperative": Protocol("cooperative", "COOPERATIVE", "sticky", "cooperative (KIP-429, sticky assignor)"),
    "ha": Protocol("ha", "COOPERATIVE", "high_availability", "KIP-441 high availability (warmups, probing)"),
    "ha_fast": Protocol(
        "ha_fast",
        "COOPERATIVE",
        "high_availability_fast",
        "KIP-441's guarantees, fewer probing rounds (high_availability_fast, issue #19)",
    ),
    "affinity": Protocol("affinity", "EAGER", "host_affinity", "host affinity (Samza standalone grouping)"),
}


def leader_assign(
    protocol: Protocol,
    metadata: Mapping[str, bytes],
    topology: Topology,
    *,
    configs: AssignmentConfigs,
    end_offset_sums: Mapping[TaskId, int],
    leader_member_id: str,
    now_ms: int,
    latest: int,
) -> LeaderResult:
    if protocol.assignor == "host_affinity":
        return affinity_leader_assign(metadata, topology, latest=latest)
    return streams_leader_assign(
        metadata,
        topology,
        configs=configs,
        end_offset_sums=end_offset_sums,
        leader_member_id=leader_member_id,
        now_ms=now_ms,
        latest=latest,
        assignor=protocol.assignor,
    )


def _locality(info: SubscriptionInfo) -> str:
    if info.client_tags.get(LOCALITY_TAG):
        return info.client_tags[LOCALITY_TAG]
    host = parse_endpoint(info.user_endpoint)
    return host.host if host else str(info.process_id)


def affinity_leader_assign(
    metadata: Mapping[str, bytes], topology: Topology, *, latest: int = LATEST_SUPPORTED_VERSION
) -> LeaderResult:
    decoded = {m: decode_member(m, raw, latest=latest) for m, raw in metadata.items()}
    subscriptions = {m: d.subscription for m, d in decoded.items() if d.subscription is not None}
    future = tuple(m for m, info in subscriptions.items() if info.is_version_probe)
    received = [info.version for info in subscriptions.values() if not info.is_version_probe]
    min_received = min(received, default=latest)
    bad = [f"{m}: {d.error}" for m, d in decoded.items() if m not in subscriptions]
    if future and min_received < 3:
        bad.append(f"future members {list(future)} with a v{min_received} member: no version probing below v3")
    if bad:  # as the Streams leader (§4): an error assignment at the leader's version for everyone
        info = AssignmentInfo(version=latest, commonly_supported_version=latest, error_code=3)
        return LeaderResult(
            {m: assignment_bytes([], info) for m in decoded},
            {m: info for m in decoded},
            latest,
            latest,
            3,
            future,
            None,
            tuple(bad),
        )
    min_supported = min(info.latest_supported_version for info in subscriptions.values())
    # a future member (version probing, §5) is a processor of unknown locality that reports no stores
    locality = {m: (str(m) if m in future else _locality(info)) for m, info in subscriptions.items()}
    source = {str(t): (t, sub.source_partitions(t)) for sub in topology.subtopologies for t in sub.tasks()}
    previous: dict[str, str] = {}
    best: dict[str, tuple[int, str]] = {}  # task -> (offset sum, member) of the most caught-up report
    for m in sorted(decoded):
        for task, offset in subscriptions[m].task_offset_sums.items():
            name = str(task)
            if name not in source:
                continue
            if offset == -2:
                previous.setdefault(name, m)
            rank = (1 << 63) if offset == -2 else offset
            if name not in best or rank > best[name][0]:
                best[name] = (rank, m)
    task_locality = {t: locality[m] for t, (_, m) in best.items()}
    grouping = group_tasks_with_host_affinity(sorted(source), locality, previous, task_locality)
    out, infos = {}, {}
    for m, names in grouping.items():
        tps = sorted(tp for n in names for tp in source[n][1])
        task_of = {tp: source[n][0] for n in names for tp in source[n][1]}
        info = AssignmentInfo(
            version=min_received,
            commonly_supported_version=min_supported if min_received >= 3 else -1,
            active_tasks=tuple(task_of[tp] for tp in tps),
            next_rebalance_ms=NO_REBALANCE,
        )
        infos[m] = info
        out[m] = assignment_bytes(tps, info)
    return LeaderResult(out, infos, min_received, min_supported, 0, future, None, ())
