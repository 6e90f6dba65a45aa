"""The cause engine: observations in, each generation or epoch with its causes out, as it completes.

::

    engine = CauseEngine()
    for obs in observations:            # of any number of groups, each group's in time order
        rebalance = engine.feed(obs)    # a Formed or EpochBumped completes one; anything else returns None
        if rebalance is not None:
            print(rebalance.json())     # {"type": "generation", "group": ..., "cause": {...}, "causes": [...]}

State is kept per group and protocol family (a classic group and a Kafka 4 group of the same id are told apart):
one generation's members and assignments, what happened since, one time per member -- bounded by the group, not
by the input. At most ``max_groups`` groups are tracked: past it, the group fed least recently is forgotten
(:attr:`CauseEngine.forgotten` counts them; its next rebalance is then ``first-seen``), and :meth:`idle` forgets
the groups not fed since a time, for a watcher that runs for days.
"""

from __future__ import annotations

from collections import OrderedDict

from .classic import ClassicGroup
from .epochs import EpochGroup
from .observe import CLASSIC, PROTOCOLS, Observation
from .vocabulary import Rebalance

__all__ = ["CauseEngine", "DEFAULT_MAX_GROUPS"]

DEFAULT_MAX_GROUPS = 100_000


class CauseEngine:
    """See the module docstring. ``source``: what the rebalances it gives out say they come from (``capture``,
    ``__consumer_offsets``, ``pipeline``, ``simulation``)."""

    def __init__(self, *, source: str = "capture", max_groups: int = DEFAULT_MAX_GROUPS) -> None:
        if max_groups < 1:
            raise ValueError("max_groups must be at least 1")
        self.source = source
        self.max_groups = max_groups
        self._groups: OrderedDict[tuple[str, str], ClassicGroup | EpochGroup] = OrderedDict()
        self.forgotten = 0

    def __len__(self) -> int:
        return len(self._groups)

    def feed(self, obs: Observation) -> Rebalance | None:
        """One observation; the rebalance it completes (a generation formed, an epoch bumped), else None."""
        protocol = obs.protocol
        if protocol not in PROTOCOLS:
            raise ValueError(f"not a group protocol: {protocol!r} (one of {', '.join(PROTOCOLS)})")
        family = CLASSIC if protocol == CLASSIC else "kafka4"
        key = (obs.group, family)
        g = self._groups.get(key)
        if g is None:
            g = (
                ClassicGroup(obs.group, self.source)
                if family == CLASSIC
                else EpochGroup(obs.group, protocol, self.source)
            )
            self._groups[key] = g
            while len(self._groups) > self.max_groups:
                self._groups.popitem(last=False)
                self.forgotten += 1
        else:
            self._groups.move_to_end(key)
        return g.feed(obs)

    def moved(self, group: str) -> int | None:
        """What the classic group's current generation moved, once its assignments are in (see
        :meth:`codec.causes.classic.ClassicGroup.moved`); None when unknown."""
        g = self._groups.get((group, CLASSIC))
        return g.moved() if isinstance(g, ClassicGroup) else None

    def idle(self, before: float) -> list[tuple[str, str]]:
        """Forget the groups whose last observation with a time is older than ``before`` (seconds since the
        epoch); their (group, family) keys, family ``classic`` or ``kafka4``."""
        gone = [k for k, g in self._groups.items() if g.last_ts is not None and g.last_ts < before]
        for k in gone:
            del self._groups[k]
        self.forgotten += len(gone)
        return gone

    def forget(self, group: str) -> None:
        """Forget a group (both families), e.g. when it was deleted."""
        for family in (CLASSIC, "kafka4"):
            self._groups.pop((group, family), None)
