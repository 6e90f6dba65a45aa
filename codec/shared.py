"""The shared reference folder: Kafka's and kio's vectors, the captures, the facts file and the seeds that live beside
the repository (``../shared``), which the fuzzers, the gate's tools and the tests read. Found here once, below every
tool that reads it."""

from __future__ import annotations

import enum
import os
from pathlib import Path
from typing import Final, Literal, TypeAlias

__all__ = ["DEFAULT_SHARED", "Shared", "resolve_shared", "shared_dir"]


def shared_dir() -> Path | None:
    """The shared reference folder (Kafka's and kio's vectors, the captures): ``$REBALANCE_CODEC_SHARED``,
    else ``shared/`` beside the repository, as the tests find it; None when it is not there."""
    env = os.environ.get("REBALANCE_CODEC_SHARED")
    path = Path(env) if env else Path(__file__).resolve().parents[2] / "shared"
    return path if path.is_dir() else None


class _Default(enum.Enum):
    SHARED = "the folder shared_dir() finds"


#: The default of every ``shared`` argument of the fuzzers: the folder :func:`shared_dir` finds.
DEFAULT_SHARED: Final = _Default.SHARED
#: A ``shared`` argument: the shared folder, None to do without it, or :data:`DEFAULT_SHARED`.
Shared: TypeAlias = Path | None | Literal[_Default.SHARED]


def resolve_shared(shared: Shared) -> Path | None:
    """The folder a ``shared`` argument names (:func:`shared_dir` for :data:`DEFAULT_SHARED`)."""
    return shared_dir() if shared is _Default.SHARED else shared
