"""Kafka Streams task assignors in pure Python (wire-facts §8–§12).

- :func:`assign` runs ``high_availability`` (KIP-441, Kafka-exact), ``high_availability_fast`` (the same
  guarantees in fewer probing rounds: :mod:`codec.assignor.high_availability_fast`), ``sticky`` or
  ``fallback_prior`` on a :class:`GroupDescription`; :func:`group_from_json` / :func:`result_to_json` are the JSON shape.
- :func:`assign_group` is the leader pipeline around it: members grouped into clients, thread
  distribution and cooperative revocation (§9).
- :func:`group_tasks_with_host_affinity` is Samza standalone's host-affine grouping (seed 002).
"""

from .engine import assign
from .host_affinity import group_tasks_with_host_affinity
from .json_io import group_from_json, result_to_json
from .leader import GroupAssignment, Member, MemberAssignment, Subtopology, Topology, assign_group
from .model import (
    ASSIGNOR_NAMES,
    AssignmentConfigs,
    AssignmentError,
    AssignmentResult,
    ClientAssignment,
    ClientSpec,
    GroupDescription,
    TaskSpec,
)
from .state import compute_lag
from .threads import assign_tasks_to_threads

__all__ = [
    "ASSIGNOR_NAMES",
    "AssignmentConfigs",
    "AssignmentError",
    "AssignmentResult",
    "ClientAssignment",
    "ClientSpec",
    "GroupAssignment",
    "GroupDescription",
    "Member",
    "MemberAssignment",
    "Subtopology",
    "TaskSpec",
    "Topology",
    "assign",
    "assign_group",
    "assign_tasks_to_threads",
    "compute_lag",
    "group_from_json",
    "group_tasks_with_host_affinity",
    "result_to_json",
]
