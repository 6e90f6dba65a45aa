"""The settings of the tables' checks (the Streams configs the data cannot tell), shared by
:mod:`codec.pipeline.tables` and :mod:`codec.pipeline.findings`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Config"]


@dataclass(frozen=True)
class Config:
    acceptable_recovery_lag: int = 10000
    num_standby_replicas: int | None = None
    max_warmup_replicas: int | None = None
    #: topic -> partition count, for the consumer assignor checks where no Metadata response of a group's input
    #: names the topic (``--partitions TOPIC=N``; codec.pipeline.consumerchecks)
    partitions: tuple[tuple[str, int], ...] = ()
