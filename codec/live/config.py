"""The client configuration of ``watch``: ``--config FILE`` (a client properties file) and ``-X key=value``.

``watch`` reads the cluster with librdkafka (confluent-kafka), so every librdkafka setting passes through as kcat
takes them: ``-X security.protocol=SASL_SSL -X sasl.mechanisms=SCRAM-SHA-512 ...``, or a properties file of the
same keys (``key=value`` or ``key: value`` lines, ``#`` and ``!`` comments, a trailing ``\\`` continues a line, as
Java's ``Properties.load`` reads them). ``-X`` wins over the file, and both over ``--bootstrap-server``'s default.

The settings ``watch`` needs to stay a reader that joins no group and commits nothing are its own and cannot be
changed: ``enable.auto.commit`` and ``enable.auto.offset.store`` (false). ``group.id`` is required by librdkafka's
consumer even for one that only assigns itself partitions; ``watch`` never joins it (default
``rebalance-codec-watch``).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError

__all__ = ["FIXED", "DEFAULTS", "client_config", "parse_properties", "parse_partitions", "setting"]

#: what watch sets and a user may not change (it would join a group or commit offsets)
FIXED = {"enable.auto.commit": "false", "enable.auto.offset.store": "false"}
#: what watch sets unless the user says otherwise
DEFAULTS = {
    "group.id": "rebalance-codec-watch",
    "client.id": "rebalance-codec-watch",
    "statistics.interval.ms": "1000",  # the end offsets for the lag, and whether the brokers are up
    "log_level": "0",  # librdkafka's own log lines: none (the watcher says what matters in one line; -X debug=...)
    "fetch.wait.max.ms": "100",  # a record shows up fast on a quiet topic
}


def setting(text: str) -> tuple[str, str]:
    """``key=value`` of ``-X`` (argparse type)."""
    import argparse

    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"not a key=value setting: {text!r} (example: -X security.protocol=SSL)")
    return key.strip(), value


def parse_properties(text: str, where: str = "config") -> dict[str, str]:
    """A Java properties file's keys and values (the subset client configurations use)."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].lstrip()
        i += 1
        if not line or line[0] in "#!":
            continue
        while line.endswith("\\") and not line.endswith("\\\\") and i < len(lines):
            line = line[:-1] + lines[i].lstrip()
            i += 1
        for j, ch in enumerate(line):
            if ch in "=:" or ch.isspace():
                key, rest = line[:j], line[j:].lstrip()
                if rest[:1] in ("=", ":"):
                    rest = rest[1:].lstrip()
                break
        else:
            key, rest = line, ""
        if not key:
            raise InputError(f"{where}: line {i}: a setting needs a key: {line[:60]!r}")
        out[key] = rest
    return out


def client_config(bootstrap: str | None, config_file: str | None, overrides: list[tuple[str, str]]) -> dict[str, str]:
    """The librdkafka configuration: defaults, ``--bootstrap-server``, the file, then ``-X``; ``FIXED`` last."""
    conf = dict(DEFAULTS)
    if bootstrap:
        conf["bootstrap.servers"] = bootstrap
    if config_file:
        try:
            text = Path(config_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"--config {config_file}: cannot be read: {e}") from None
        conf.update(parse_properties(text, config_file))
    conf.update(dict(overrides))
    for key, value in FIXED.items():
        if conf.get(key, value).lower() != value:
            raise InputError(f"{key}={conf[key]} cannot be set: watch joins no group and commits nothing")
        conf[key] = value
    if not conf.get("bootstrap.servers"):
        raise InputError("no cluster to watch: give --bootstrap-server HOST:PORT (or bootstrap.servers in --config)")
    return conf


def parse_partitions(text: str) -> list[int]:
    """``0-24``, ``3``, ``0-9,20-29``: the partitions a watcher reads (argparse type)."""
    import argparse

    out: set[int] = set()
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a partition list: {text!r} (examples: 0-24, 3, 0-9,20-29)") from None
        if a < 0 or b < a or b > 100_000:
            raise argparse.ArgumentTypeError(f"not a partition range: {part.strip()!r}")
        out.update(range(a, b + 1))
    return sorted(out)
