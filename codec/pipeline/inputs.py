"""Which reader reads which input: files by their extension, or by their first bytes where the extension
does not tell, and directories by the files inside them. No pyspark here: local paths are listed with
the standard library (so that a wrong path or an unknown format is reported before Spark starts), URIs
(``hdfs://``, ``s3a://``, ``file:`` ...) through Hadoop's FileSystem API (:class:`HadoopFiles`, given
the JVM of a running session).

Rules, for each input (after glob expansion):

* a file: ``.jsonl``/``.json``/``.ndjson`` (optionally ``.gz`` or ``.bz2``) is JSON lines, ``.parquet`` is Parquet;
  otherwise its first bytes decide (``PAR1``: Parquet; ``{`` after any whitespace, also inside a gzip
  file named ``.gz``: JSON lines); an empty file holds no records and is left out;
* a directory: every file below it, recursively, except hidden ones (a name starting with ``.``, or
  with ``_`` and without ``=``, as Spark skips them: ``_SUCCESS``, ``.crc`` files ...), by the rule
  for files. A directory whose files are all of one format, directly in it or in partition
  directories (``name=value``), is read whole by that format's reader (Spark's own directory
  semantics, e.g. partition columns); any other one file by file, each format by its own reader
  (Spark would not look into a subdirectory that is not a partition);
* with ``--input-format``, every input is read by that reader, unsniffed (directories still listed, so
  that no file below one is left out).

A file whose format cannot be told, an input that does not exist and a directory without files are
:class:`InputError`, one line each, naming ``--input-format`` where it helps. Local files are also checked
against their reader before Spark starts (:meth:`LocalFiles.check`): a Parquet file must begin and end with
Parquet's magic number ``PAR1``, and a JSON lines file named ``.gz`` must be gzip data (Spark decompresses
by the name). Files on other filesystems are left to Spark's readers (a request per file would cost too
much on an object store), which fail with one line too. A local directory that cannot be listed or a file
that cannot be read is an :class:`InputError` as well, never skipped, and so is a local input that is neither a
regular file nor a directory (a FIFO such as a shell's ``<(zcat ...)``, a device): Spark would read it as empty.
"""

from __future__ import annotations

import glob
import os
import re
import stat
import zlib
from dataclasses import dataclass, field
from typing import Iterable, Protocol

from ..capture.pcapfile import CAPTURE_MAGICS

__all__ = [
    "InputError",
    "InputPlan",
    "LocalFiles",
    "HadoopFiles",
    "plan_inputs",
    "sniff",
    "is_uri",
    "FORMATS",
    "MAX_LINE",
    "JSON_EXTENSIONS",
    "PARQUET_EXTENSIONS",
    "local_only",
]

FORMATS = ("jsonl", "parquet")
#: the longest JSON line the job reads (bytes, ``--max-line-length``); a longer one is quarantined with its size.
#: A Kafka frame's hex is twice its bytes; the JVM holds a line up to three times on its way to Python.
MAX_LINE = 64 << 20
JSON_EXTENSIONS = tuple(base + z for base in (".jsonl", ".json", ".ndjson") for z in ("", ".gz", ".bz2"))
PARQUET_EXTENSIONS = (".parquet", ".parq")
_HEAD = 4096  # bytes read to sniff a file
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_GLOB = re.compile(r"[*?\[{]")


class InputError(ValueError):
    """Bad input paths or an input whose format cannot be told (one line, for the user)."""


def is_uri(path: str) -> bool:
    """``scheme:...`` (but not a Windows drive letter): read through Hadoop's FileSystem API."""
    return bool(_URI.match(path)) and not re.match(r"^[A-Za-z]:[\\/]", path)


def local_only(paths: list[str], master: str | None) -> bool:
    """Whether a job on ``paths`` (its inputs and output) with ``--master master`` reads and writes local
    files only, so that its inputs can be planned (and refused) before Spark starts: a local master, not under
    spark-submit, no Hadoop or YARN configuration (whose default filesystem may not be the local one), and
    no URI among the paths."""
    return (
        "PYSPARK_GATEWAY_PORT" not in os.environ
        and (master is None or master.startswith("local"))
        and not (os.environ.get("HADOOP_CONF_DIR") or os.environ.get("YARN_CONF_DIR"))
        and not any(is_uri(p) for p in paths)
    )


def hidden(name: str) -> bool:
    """Spark's rule for files and directories it skips inside a directory input."""
    return name.startswith(".") or (name.startswith("_") and "=" not in name) or name.endswith("._COPYING_")


class Files(Protocol):
    def expand(self, path: str) -> list[tuple[str, bool, int]]:
        """``[(path, is_dir, size)]`` for an input (a glob may give several, a missing path none)."""

    def walk(self, directory: str) -> Iterable[tuple[str, int]]:
        """``(path, size)`` of every non-hidden file below ``directory``."""

    def head(self, path: str, n: int) -> bytes:
        """The first ``n`` bytes of a file (fewer if it is shorter)."""

    def check(self, path: str, fmt: str) -> None:
        """Raise :class:`InputError` if the file cannot be what ``fmt``'s reader reads (or do nothing)."""


def _unreadable(path: str, e: OSError) -> InputError:
    return InputError(f"cannot read {path}: {e.strerror or e}")


_SPECIAL = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _regular(path: str, mode: int) -> None:
    """Refuse a local input that is neither a regular file nor a directory: Spark lists a FIFO (a shell's
    ``<(zcat ...)``) or a device as a file of 0 bytes and reads no record from it, and sniffing its first bytes
    would wait for a writer, or take them from what Spark reads."""
    for test, what in _SPECIAL:
        if test(mode):
            raise InputError(
                f"{path} is {what}, not a regular file: Spark would read no record from it; write it to a file first"
            )


class LocalFiles:
    """Local paths, with the standard library."""

    def expand(self, path: str) -> list[tuple[str, bool, int]]:
        paths = sorted(glob.glob(path)) if _GLOB.search(path) and not os.path.exists(path) else [path]
        found = []
        for p in paths:
            try:
                st = os.stat(p)
            except OSError:
                continue  # (not there: the caller says so)
            _regular(p, st.st_mode)
            found.append((p, stat.S_ISDIR(st.st_mode), st.st_size))
        return found

    def walk(self, directory: str) -> Iterable[tuple[str, int]]:
        def refuse(e: OSError) -> None:  # (os.walk would skip a folder it cannot list, and its files with it)
            raise _unreadable(e.filename or directory, e)

        for root, dirs, files in os.walk(directory, onerror=refuse, followlinks=True):
            dirs[:] = sorted(d for d in dirs if not hidden(d))
            for f in sorted(files):
                if not hidden(f):
                    p = os.path.join(root, f)
                    try:
                        st = os.stat(p)
                    except OSError as e:  # a dangling link ...
                        raise _unreadable(p, e) from None
                    _regular(p, st.st_mode)
                    yield p, st.st_size

    def head(self, path: str, n: int) -> bytes:
        try:
            with open(path, "rb") as f:
                return f.read(n)
        except OSError as e:
            raise _unreadable(path, e) from None

    def check(self, path: str, fmt: str) -> None:
        """A Parquet file begins and ends with ``PAR1`` (else Spark's reader fails on it: not Parquet, or cut
        short); a JSON lines file named ``.gz`` is gzip data whose first bytes decompress (Spark decompresses
        by the name). Cut or corrupt gzip data further on is left to Spark's reader."""
        try:
            with open(path, "rb") as f:
                head = f.read(_HEAD)
                if fmt == "parquet":
                    size = f.seek(0, os.SEEK_END)
                    f.seek(max(size - 4, 0))
                    tail = f.read(4)
        except OSError as e:
            raise _unreadable(path, e) from None
        if fmt == "parquet":
            if head[:4] != b"PAR1" or tail != b"PAR1" or size < 12:
                raise InputError(
                    f"{path} is not a Parquet file: it does not begin and end with Parquet's magic "
                    f"number PAR1 (not Parquet, or cut short)"
                )
        elif fmt == "jsonl" and path.lower().endswith(".bz2"):
            if head[:3] != b"BZh":
                raise InputError(
                    f"{path} is not bzip2 data, but its name ends in .bz2 (which makes Spark decompress it); "
                    f"rename it or compress it"
                )
        elif fmt == "jsonl" and path.lower().endswith(".gz"):
            if head[:2] != b"\x1f\x8b":
                raise InputError(
                    f"{path} is not gzip data, but its name ends in .gz (which makes Spark "
                    f"decompress it); rename it or compress it"
                )
            try:
                zlib.decompressobj(wbits=31).decompress(head)
            except zlib.error as e:
                raise InputError(f"{path} is not valid gzip data: {e}") from None


class HadoopFiles:
    """Any Hadoop filesystem (HDFS, S3A, ``file:`` ...), through the JVM of a SparkSession."""

    def __init__(self, spark) -> None:
        sc = spark.sparkContext
        self._jvm = sc._jvm
        self._conf = sc._jsc.hadoopConfiguration()

    def _fs(self, path: str):
        p = self._jvm.org.apache.hadoop.fs.Path(path)
        return p, p.getFileSystem(self._conf)

    def expand(self, path: str) -> list[tuple[str, bool, int]]:
        p, fs = self._fs(path)
        statuses = fs.globStatus(p)  # null when a plain path does not exist
        return [(s.getPath().toString(), s.isDirectory(), s.getLen()) for s in (statuses or [])]

    def walk(self, directory: str) -> Iterable[tuple[str, int]]:
        root, fs = self._fs(directory)
        pending = [fs.getFileStatus(root).getPath()]
        while pending:
            d = pending.pop()
            for s in sorted(fs.listStatus(d), key=lambda s: s.getPath().toString(), reverse=True):
                if hidden(s.getPath().getName()):
                    continue
                if s.isDirectory():
                    pending.append(s.getPath())
                else:
                    yield s.getPath().toString(), s.getLen()

    def head(self, path: str, n: int) -> bytes:
        p, fs = self._fs(path)
        stream = fs.open(p)
        try:
            return bytes(stream.readNBytes(n))  # (a Java byte[] comes back as Python bytes)
        finally:
            stream.close()

    def check(self, path: str, fmt: str) -> None:
        """Nothing: a remote file is left to Spark's reader (one more request per file would cost too much
        on an object store); a file the reader cannot read fails the job with one line."""


def _gunzip_head(data: bytes) -> bytes:
    """What the first bytes of a gzip stream decompress to (the stream may be cut anywhere)."""
    try:
        return zlib.decompressobj(wbits=31).decompress(data)
    except zlib.error:
        return b""


def _format_of_bytes(head: bytes, gzipped_name: bool) -> str | None:
    if head[:4] == b"PAR1":
        return "parquet"
    if head[:2] == b"\x1f\x8b" and gzipped_name:  # Spark decompresses by the .gz extension only
        head = _gunzip_head(head)
    text = head.lstrip(b" \t\r\n\xef\xbb\xbf")  # (and a UTF-8 byte order mark)
    if text[:1] == b"{":
        return "jsonl"
    return None


def sniff(files: Files, path: str, size: int | None = None) -> str | None:
    """``jsonl``, ``parquet``, ``empty`` or None (cannot tell) for one file."""
    low = path.lower()
    if size == 0 or (size is None and not files.head(path, 1)):
        return "empty"
    if low.endswith(JSON_EXTENSIONS):
        return "jsonl"
    if low.endswith(PARQUET_EXTENSIONS):
        return "parquet"
    head = files.head(path, _HEAD)
    if not head:
        return "empty"
    return _format_of_bytes(head, low.endswith(".gz"))


@dataclass
class InputPlan:
    """The paths each reader reads, and what was left out."""

    paths: dict[str, list[str]] = field(default_factory=lambda: {f: [] for f in FORMATS})
    empty: list[str] = field(default_factory=list)  # empty files: no records
    #: directories read whole that have partition directories (``name=value``): each is read on its own,
    #: since Spark refuses to discover partitions across inputs of different shapes
    partitioned: set[str] = field(default_factory=set)
    #: the size of each planned file, and of a directory read whole its largest file's (bytes)
    largest: dict[str, int] = field(default_factory=dict)
    #: the names of the files below each directory read whole (a file's own name for a file)
    files: dict[str, list[str]] = field(default_factory=dict)
    #: every input as given, globs expanded: the files and folders the job reads (and must not write over)
    roots: list[str] = field(default_factory=list)

    def reads(self, fmt: str) -> list[list[str]]:
        """The reader calls for ``fmt``: each partitioned directory alone, everything else together."""
        rest = [p for p in self.paths[fmt] if p not in self.partitioned]
        return [[p] for p in self.paths[fmt] if p in self.partitioned] + ([rest] if rest else [])

    @property
    def nothing(self) -> bool:
        return not any(self.paths.values())


def _unknown(files: Files, path: str) -> InputError:
    head = files.head(path, _HEAD)
    if head[:2] == b"\x1f\x8b":
        head = _gunzip_head(head)
    if head[:4] in CAPTURE_MAGICS:  # what a user may well try first: say what the pipeline reads instead
        return InputError(
            f"{path} is a packet capture: the pipeline reads the JSON lines that "
            f"`rebalance-codec capture --json {path}` writes of it"
        )
    return InputError(
        f"cannot tell the format of {path} (neither a .jsonl/.json/.ndjson/.parquet name nor "
        f"JSON lines or Parquet in its first bytes); pass --input-format jsonl or --input-format "
        f"parquet"
    )


def _spark_reads_all(directory: str, paths: list[str]) -> bool:
    """Whether Spark, given ``directory``, reads every one of the files ``paths`` below it: only if they are
    all directly in it, or all in partition directories (``name=value``) as deep. (Spark does not look
    into other subdirectories, and drops the files above the partitions.)"""
    root = directory.rstrip("/")
    rels = [p[len(root) :].strip("/").split("/") for p in paths]
    return (
        all(p.startswith(root) for p in paths)
        and len({len(r) for r in rels}) == 1
        and all("=" in d for r in rels for d in r[:-1])
    )


def _depth(directory: str, path: str) -> int:
    return len(path[len(directory.rstrip("/")) :].strip("/").split("/")) - 1


def plan_inputs(inputs: list[str], fmt: str | None, files_for) -> InputPlan:
    """Sort ``inputs`` among the readers. ``files_for(path)`` gives the :class:`Files` that reads a path."""
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r}; use one of {', '.join(FORMATS)}")
    plan = InputPlan()
    for given in inputs:
        files = files_for(given)
        matches = files.expand(given)
        if not matches:
            raise InputError(f"input not found: {given}" if not _GLOB.search(given) else f"no input matches {given}")
        for path, is_dir, size in matches:
            plan.roots.append(path)
            if not is_dir:
                kind = fmt or sniff(files, path)
                if kind is None:
                    raise _unknown(files, path)
                if kind == "jsonl" or kind == "parquet":
                    if fmt is not None and not files.head(path, 1):
                        kind = "empty"  # (an empty file holds no records, whatever its reader)
                    else:
                        files.check(path, kind)
                (plan.empty if kind == "empty" else plan.paths[kind]).append(path)
                plan.largest[path], plan.files[path] = size, [path]
                continue
            found = list(files.walk(path))
            if not found:
                raise InputError(f"no input files in {path}")
            kinds = {}
            for p, size in found:
                kind = ("empty" if size == 0 else fmt) if fmt is not None else sniff(files, p, size)
                if kind is None:
                    raise _unknown(files, p)
                if kind != "empty":
                    files.check(p, kind)
                kinds[p] = kind
            used = {k for k in kinds.values()}
            if len(used) == 1 and "empty" not in used and _spark_reads_all(path, list(kinds)):
                plan.paths[used.pop()].append(path)  # the whole directory, by its one reader
                plan.largest[path] = max(size for _, size in found)
                plan.files[path] = [p for p, _ in found]
                if any(_depth(path, p) > 0 for p in kinds):
                    plan.partitioned.add(path)
                continue
            sizes = dict(found)
            for p, kind in kinds.items():
                (plan.empty if kind == "empty" else plan.paths[kind]).append(p)
                plan.largest[p], plan.files[p] = sizes[p], [p]
    return plan
