"""What ``rebalance-codec --version`` says: the package's version, which codec is in use (native or pure
Python), the version ranges of the messages (read from ``schemas/``) and the Kafka releases the schemas follow
(read from the ``releases`` block of ``schemas/README.md``: the facts are kept there, in one place)."""

from __future__ import annotations

import sys

from . import __version__

__all__ = ["version_text", "codec_text", "releases"]


def codec_text() -> str:
    """Which codec decodes and encodes, and why when it is not the native one."""
    from .wire import native

    if native.active():
        return "native (the C engine built from codec/wire/_native.c; REBALANCE_CODEC_NATIVE=0 selects pure Python)"
    if native.available():
        return "python (pure Python, selected by REBALANCE_CODEC_NATIVE=0; the native codec is installed)"
    return f"python (pure Python: {native.unavailable_reason()})"


def releases() -> list[str]:
    """The bullet lines of ``schemas/README.md``'s releases block."""
    from .wire.schema import _schema_dir

    text = (_schema_dir() / "README.md").read_text(encoding="utf-8")
    block = text[text.index("<!-- releases:start -->") + 23 : text.index("<!-- releases:end -->")]
    lines: list[str] = []
    for line in block.strip().splitlines():
        if line.startswith("* "):
            lines.append(line[2:].strip())
        elif lines:
            lines[-1] += " " + line.strip()
    return lines


def version_text() -> str:
    from .wire import registry

    out = [
        f"rebalance-codec {__version__}",
        f"codec: {codec_text()}",
        f"Python {sys.version.split()[0]}",
        "messages (schemas/):",
    ]
    for family, ranges in _families(registry):
        out.append(f"  {family}: {ranges}")
    out.append("Kafka releases the schemas follow (schemas/README.md):")
    out += [f"  * {line}" for line in releases()]
    return "\n".join(out)


def _families(registry) -> list[tuple[str, str]]:
    """Each kind of message the schemas hold, with the version ranges (all read from ``schemas/``)."""
    names = registry.ordered(registry.message_names())
    apis = ", ".join(f"{a.name} v{a.valid}" for a in registry.apis().values() if a.valid is not None)
    records = registry.record_types()
    prefixed = [n for n in names if registry.head(n).version_prefix is not None]
    # a payload whose reader picks its version (the sticky assignors' user data): no prefix, no API, no record
    unprefixed = [
        n
        for n in names
        if registry.head(n).type == "data" and registry.head(n).version_prefix is None and registry.record_of(n) is None
    ]
    out = [
        ("APIs", apis),
        ("headers", ", ".join(f"{n} v{registry.head(n).valid}" for n in registry.messages_of_type("header"))),
        ("version-prefixed", ", ".join(f"{n} v{registry.head(n).valid}" for n in prefixed)),
        ("without a version prefix", ", ".join(f"{n} v{registry.head(n).valid}" for n in unprefixed)),
        ("Kafka Streams", ", ".join(f"{n} v{registry.head(n).valid}" for n in registry.messages_of_type("streams"))),
        ("__consumer_offsets records", _records(registry, records)),
        *(
            (f"{topic} records", _records(registry, registry.record_types(coordinator)))
            for coordinator, topic in registry.COORDINATORS.items()
            if coordinator != "group"
        ),
    ]
    return [(family, ranges) for family, ranges in out if ranges]


def _records(registry, records) -> str:
    """The classic records' values with their versions, then how many others, their types and versions."""
    classic = {r.value: r for r in records.values() if r.classic}
    others = {t: r for t, r in records.items() if not r.classic}
    shown = [f"{v} v{registry.head(v).valid}" for v in classic]
    versions = sorted({str(registry.head(r.value).valid) for r in others.values()})
    if others:
        shown.append(
            f"{len({r.name for r in others.values()})} {'more' if shown else 'records'} (types {_ranges(list(others))}), "
            f"each v{' or v'.join(versions)}"
        )
    return ", ".join(shown)


def _ranges(numbers: list[int]) -> str:
    out: list[list[int]] = []
    for t in sorted(numbers):
        if out and out[-1][1] == t - 1:
            out[-1][1] = t
        else:
            out.append([t, t])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in out)
