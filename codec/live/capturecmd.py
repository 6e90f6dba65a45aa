"""The ``capture`` subcommand as the command line runs it: the parser and the story of a file are
:mod:`codec.capture.command`'s; ``--follow`` (a stream as it grows) is handed to :mod:`codec.live.follow`, a floor
above the capture package, which therefore imports nothing of ``codec.live``."""

from __future__ import annotations

import sys
from typing import TextIO

from ..capture import command as capture

__all__ = ["register", "run"]


def register(subparsers) -> None:
    """Add the ``capture`` subcommand (capture's parser), run by :func:`run`."""
    capture.register(subparsers)
    subparsers.choices["capture"].set_defaults(func=run)


def run(args, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``capture --follow``: :func:`codec.live.follow.run_follow`; else :func:`codec.capture.command.run`."""
    if getattr(args, "follow", False):
        from .follow import run_follow

        out, err = out or sys.stdout, err or sys.stderr  # (looked up now: a caller may have replaced them)
        return run_follow(args, out, err, json_line=capture._json_line, unreadable=capture._unreadable)
    return capture.run(args, out, err)
