"""Why a group rebalanced: a cause for every generation (classic groups) and every epoch (Kafka 4's groups).

One engine decides every cause the project shows -- in the capture story (pcap, pcapng, ``__consumer_offsets``
dumps and segments), the pipeline's ``rebalances`` table, the simulator's rebalances and a live watcher's stream:

* :mod:`~codec.causes.vocabulary` -- the closed vocabulary (:data:`KINDS`, :data:`CONFIDENCES`) and what comes
  out: :class:`Rebalance` (a generation or an epoch with its causes, main one first), :class:`Cause`,
  :class:`Evidence`;
* :mod:`~codec.causes.observe` -- what goes in: observations of a group in time order (a member joined or left, a
  heartbeat and its answer, an error, an assignment, a generation formed, an epoch bumped ...);
* :mod:`~codec.causes.engine` -- :class:`CauseEngine`, incremental and bounded per group: feed observations, get
  each completed generation or epoch as it completes; :mod:`~codec.causes.classic` and
  :mod:`~codec.causes.epochs` hold the rules;
* :mod:`~codec.causes.records` -- :class:`RecordCauses`: ``__consumer_offsets`` records straight in;
* :mod:`~codec.causes.facts` -- a member's facts from the ConsumerProtocol, Streams and Connect layers.

It sits below the tools that read inputs (:mod:`codec.capture`, :mod:`codec.pipeline`, :mod:`codec.simulate`) and
above the codec's families, which it reads.
"""

from .engine import DEFAULT_MAX_GROUPS, CauseEngine
from .observe import (
    CLASSIC,
    CONSUMER,
    PROTOCOLS,
    SHARE,
    STREAMS,
    Assigned,
    AssignmentFacts,
    CoordinatorSeen,
    Deleted,
    EpochBumped,
    ErrorSeen,
    Formed,
    Heartbeat,
    Joined,
    Left,
    MemberFacts,
    MetadataChanged,
    Observation,
    Subscribed,
)
from .records import RecordCauses
from .vocabulary import CONFIDENCES, KINDS, Cause, Evidence, Rebalance

__all__ = [
    "CauseEngine",
    "DEFAULT_MAX_GROUPS",
    "RecordCauses",
    "KINDS",
    "CONFIDENCES",
    "Cause",
    "Evidence",
    "Rebalance",
    "CLASSIC",
    "CONSUMER",
    "STREAMS",
    "SHARE",
    "PROTOCOLS",
    "Observation",
    "MemberFacts",
    "AssignmentFacts",
    "Joined",
    "Left",
    "Heartbeat",
    "ErrorSeen",
    "CoordinatorSeen",
    "Assigned",
    "Formed",
    "Subscribed",
    "MetadataChanged",
    "EpochBumped",
    "Deleted",
]
