"""Where the job writes, and how it never destroys what it was not asked to (no pyspark import here).

The rules for ``--out``:

* **Links are written through.** A local ``--out`` that is a symbolic link (to a folder, or to a path that does
  not exist yet) stays a link: the output is written at its target, as the gate's reports are.
* **Inputs are never written over.** An ``--out`` that is an input, holds one, or lies inside an input folder
  (compared after resolving links; URIs as Hadoop qualifies them) is refused with one line, ``--overwrite`` or
  not: the job would write over what it reads, or a next run would read its output as input.
* **The commit is atomic and exclusive.** The tables and report are written to a staging folder beside the
  target and moved into place with one rename at the end, so ``--out`` holds either the previous output or the
  complete new one. Without ``--overwrite`` the rename itself is the check: an output that appeared at
  ``--out`` while the job ran (another run's, anyone's) makes the commit fail with one line, and nothing of it
  is touched -- locally rename(2) replaces nothing but an empty folder; on another filesystem Hadoop's
  ``FileContext.rename`` without ``OVERWRITE`` refuses an existing destination. With ``--overwrite`` the old
  output is moved aside, the new one moved in, the old one deleted (and put back if the new one cannot be).
  A local run also holds a lock on its output for as long as it runs (``flock`` on ``.<name>.lock`` beside the
  target, removed at the end; the system releases it whatever ends the process): a second run on the same
  ``--out`` fails at once with one line, whichever options it has.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import uuid
from urllib.parse import urlsplit

from .failure import PipelineError
from .inputs import is_uri

__all__ = ["local_path", "LocalTarget", "clash", "sibling"]


def local_path(out: str) -> str | None:
    """The local path ``out`` names (a plain path, or a ``file:`` URI), else None."""
    if not is_uri(out):
        return out
    if out.lower().startswith("file:"):
        parts = urlsplit(out)
        if parts.netloc not in ("", "localhost"):
            return None
        return parts.path or "/"  # (as Hadoop reads it: its path as it is, no percent escapes)
    return None


def sibling(path: str, tag: str) -> str:
    """A hidden name beside ``path`` (``.<name>.<tag>-<random>``)."""
    path = path.rstrip("/") or "/"
    head, _, name = path.rpartition("/")
    return f"{head}/.{name}.{tag}-{uuid.uuid4().hex[:12]}" if head else f".{name}.{tag}-{uuid.uuid4().hex[:12]}"


def _inside(a: str, b: str) -> bool:
    """Whether path ``a`` is ``b`` or lies below it (both resolved, absolute)."""
    return a == b or a.startswith(b.rstrip("/") + "/")


def clash(out: str, inputs: list[str]) -> str | None:
    """The error line when the local ``out`` is, holds or lies inside one of the local ``inputs`` (after links
    are resolved), else None."""
    target = os.path.realpath(out)
    for given in inputs:
        real = os.path.realpath(given)
        if target == real:
            what = "folder" if os.path.isdir(real) else "file"
            return f"--out {out} is the input {given} (a {what} it reads); write the output elsewhere"
        if _inside(target, real):
            return f"--out {out} lies inside the input folder {given}; write the output elsewhere"
        if _inside(real, target):
            return f"--out {out} holds the input {given}; write the output elsewhere"
    return None


class LocalTarget:
    """A local output: its target (``--out`` with links resolved), the run's lock on it, and the commit."""

    def __init__(self, out: str) -> None:
        self.given = out
        self.path = os.path.realpath(out)
        self._lock: int | None = None
        head, _, name = self.path.rpartition("/")
        self._lock_path = f"{head}/.{name}.lock"

    def exists(self) -> bool:
        """Whether the target holds something the job would replace (an empty folder counts as absent)."""
        try:
            return os.path.lexists(self.path) and not (os.path.isdir(self.path) and not os.listdir(self.path))
        except OSError:
            return True

    def lock(self) -> None:
        """Hold the output's lock until :meth:`unlock` (or the end of the process); another run holding it is
        a :class:`PipelineError`."""
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        for _ in range(10):
            fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise PipelineError(
                    f"another run is writing {self.given} (it holds {self._lock_path}); wait for it to end"
                ) from None
            try:
                same = os.stat(self._lock_path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:  # (else the run before removed the file as this one opened it: take the new one)
                self._lock = fd
                os.write(fd, f"{os.getpid()}\n".encode())
                return
            os.close(fd)
        raise PipelineError(f"cannot lock {self._lock_path}")  # pragma: no cover - ten races in a row

    def unlock(self) -> None:
        if self._lock is not None:
            try:
                os.unlink(self._lock_path)
            except OSError:
                pass
            os.close(self._lock)
            self._lock = None

    def commit(self, staging: str, overwrite: bool) -> None:
        """Move the complete ``staging`` folder to the target: one rename. Without ``overwrite``, an output that
        appeared at the target meanwhile is an error and is left as it is; with it, the old output is replaced."""
        try:
            os.rename(staging, self.path)  # replaces nothing but an empty folder
            return
        except OSError as e:
            if e.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR):
                raise PipelineError(f"cannot move the output into {self.given}: {e.strerror or e}") from None
            if not overwrite:
                raise PipelineError(
                    f"{self.given} appeared while the job ran and was left as it is; pass --overwrite to replace it"
                ) from None
        aside = sibling(self.path, "old")
        os.rename(self.path, aside)
        try:
            os.rename(staging, self.path)
        except OSError as e:
            os.rename(aside, self.path)  # (the old output back where it was)
            raise PipelineError(f"cannot move the output into {self.given}: {e.strerror or e}") from None
        if os.path.isdir(aside) and not os.path.islink(aside):
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.unlink(aside)
