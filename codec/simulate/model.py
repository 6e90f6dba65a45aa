"""The simulator's state, as :mod:`codec.simulate.engine` keeps it: each task's local stores, each task, each
Streams instance and its members (one per stream thread), the coordinator's view of a member, and the result of a
run. What the tables mean is the engine's docstring."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from ..types import TaskId, TopicPartition
from .scenario import InstanceSpec
from .wire import Recorder

__all__ = ["Store", "SimTask", "Instance", "SimMember", "CoordinatorMember", "SimulationResult", "initial_used"]


@dataclass
class Store:
    """One task's local store in one state directory."""

    pos0: float
    t0: float
    rate: float
    active: str | None = None  # instance holding it as active
    followers: set[str] = field(default_factory=set)  # instances holding it as standby/warmup
    restoring: bool = False
    token: int = 0


@dataclass
class SimTask:
    task: TaskId
    stateful: bool
    end0: float = 0.0
    t0: float = 0.0
    processing: bool = False
    owner: "SimMember | None" = None  # the member holding it as active (running or restoring)
    lagging: bool = False  # restoring while another live instance holds a caught-up copy


@dataclass
class Instance:
    spec: InstanceSpec
    name: str
    host: str
    state_dir: str
    restore_rate: float
    process_id: uuid.UUID
    release: str
    latest: int
    upgrade_from: str | None
    alive: bool = False
    incarnation: int = 0
    members: list["SimMember"] = field(default_factory=list)
    warmups: frozenset[TaskId] = frozenset()
    failed: str | None = None


@dataclass(eq=False)
class SimMember:
    instance: Instance
    thread: int
    key: str  # the recorder's connection key: one per incarnation and thread
    client_id: str
    used: int
    rebalance: str
    hb_phase: float
    member_id: str = ""
    generation: int = -1
    alive: bool = True
    joining: bool = False
    active: set[TaskId] = field(default_factory=set)
    standby: set[TaskId] = field(default_factory=set)
    prev_active: frozenset[TaskId] = frozenset()
    owned: tuple[TopicPartition, ...] = ()
    probe_token: int = 0
    join_reason: str = ""  # why it sent its last JoinGroup (on the wire too, unless reasons are left off)


@dataclass
class CoordinatorMember:
    member: SimMember
    metadata: bytes = b""
    joined: bool = False
    correlation_id: int = 0
    sync_correlation_id: int = 0


@dataclass
class SimulationResult:
    scenario: str
    protocol: str
    metrics: dict[str, Any]
    rebalances: list[dict]
    timeline: dict[str, Any]
    notes: list[str]
    recorder: Recorder

    def to_json(self) -> dict:
        return {
            "scenario": self.scenario,
            "protocol": self.protocol,
            "metrics": self.metrics,
            "rebalances": self.rebalances,
            "timeline": self.timeline,
            "notes": self.notes,
        }


def initial_used(inst: Instance) -> tuple[int, str]:
    """The metadata version an instance starts with (and why), from its release or version."""
    spec = InstanceSpec(
        inst.name,
        release=inst.release if not inst.release.startswith("v") else None,
        version=int(inst.release[1:]) if inst.release.startswith("v") else None,
        upgrade_from=inst.upgrade_from,
    )
    return spec.initial_used
