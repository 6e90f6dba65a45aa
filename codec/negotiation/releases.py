"""Which versions of each API (and coordinator record) a Kafka release speaks, 2.0 ... 4.4: the one per-release table.

Its data is ``vectors/releases/kafka-versions.json``, derived from Kafka's own message JSON at each release's
commit by ``vectors/tools/kafka_release_versions.py`` (never typed by hand). A broker of a release answers an API
when the API's JSON names no ``listeners`` (before KRaft) or names ``broker`` or ``zkBroker``; it advertises the
``validVersions`` range less its newest version where that is ``latestVersionUnstable`` (a broker advertises an
unstable version only with ``unstable.api.versions.enable``). A Java client of a release sends the same range
(a client, too, leaves an unstable version out). Feature flags a broker needs before it answers an API (KIP-848's
``group.version``, KIP-932's ``share.version``, KIP-1071's ``streams.version``) are not in Kafka's JSON and not
in this table: :mod:`codec.negotiation.kafka4` models those.

Used by ``negotiate --broker-release`` (what a client gets against a broker of that release), ``vectors list``
and ``conformance --kafka-release`` (only what a release speaks) and the docs' table
(``docs/reference/kafka-releases.md``, which a test holds to the data).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from ..wire.registry import apis, first_release, head, message_names

__all__ = [
    "data_path",
    "kafka_releases",
    "release_commits",
    "message_range",
    "broker_api_versions",
    "client_api_versions",
    "codec_api_versions",
    "speaks",
    "selects",
    "vector_api_key",
    "check_release",
    "api_table",
    "render_api_table",
    "render_release_commits",
    "PAGE_MARKERS",
    "update_page",
]

#: The markers of the generated blocks of ``docs/reference/kafka-releases.md``: (start, end) per block.
PAGE_MARKERS = {
    "table": ("<!-- kafka-releases-table:start -->", "<!-- kafka-releases-table:end -->"),
    "commits": ("<!-- kafka-releases-commits:start -->", "<!-- kafka-releases-commits:end -->"),
}


def data_path() -> Path:
    """``vectors/releases/kafka-versions.json`` of a source checkout, else the copy shipped in the wheel
    (``codec/vectors/``; found as :func:`codec.conformance.vectors.vectors_dir` finds the vectors, a floor above)."""
    codec_root = Path(__file__).resolve().parents[1]
    for candidate in (codec_root / "vectors", codec_root.parent / "vectors"):
        path = candidate / "releases" / "kafka-versions.json"
        if path.is_file():
            return path
    raise FileNotFoundError("no per-release table (vectors/releases/kafka-versions.json) in the checkout or install")


@cache
def _data() -> dict[str, Any]:
    return json.loads(data_path().read_text(encoding="utf-8"))


def kafka_releases() -> tuple[str, ...]:
    """The releases the table holds, oldest first (``"2.0"`` ... ``"4.4"``)."""
    return tuple(_data()["releases"])


def release_commits() -> dict[str, dict[str, str]]:
    """release -> {commit, what (the tag or the version-bump commit), gradle_version}: where each column was read."""
    return dict(_data()["releases"])


def check_release(release: str) -> str:
    """``release`` if the table holds it, else ``ValueError`` naming the ones it holds."""
    if release not in _data()["releases"]:
        known = kafka_releases()
        raise ValueError(f"unknown Kafka release {release!r} (known: {known[0]} ... {known[-1]}: {', '.join(known)})")
    return release


def _range(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def message_range(message: str, release: str, *, broker: bool = True) -> tuple[int, int] | None:
    """(lowest, highest) version of a request or response that ``release`` speaks by default, or None (the release
    has no such API, its broker does not answer it (``broker``), or its one version is unstable). ``KeyError`` for
    a message the table does not hold."""
    entry = _data()["messages"][message]
    facts = entry["releases"].get(check_release(release))
    if facts is None:
        return None
    listeners = facts.get("listeners")
    if broker and listeners is not None and not {"broker", "zkBroker"} & set(listeners):
        return None
    lo, hi = _range(facts["validVersions"])
    if facts.get("latestVersionUnstable"):
        hi -= 1
    return (lo, hi) if lo <= hi else None


def broker_api_versions(release: str) -> dict[int, tuple[int, int]]:
    """API key -> (min, max) a broker of ``release`` advertises in ApiVersions, for every API of ``schemas/``."""
    return _api_versions(release, broker=True)


def client_api_versions(release: str) -> dict[int, tuple[int, int]]:
    """API key -> (min, max) a Java client of ``release`` can send, for every API of ``schemas/``."""
    return _api_versions(release, broker=False)


def _api_versions(release: str, *, broker: bool) -> dict[int, tuple[int, int]]:
    check_release(release)
    messages = _data()["messages"]
    out: dict[int, tuple[int, int]] = {}
    for key, api in apis().items():
        if api.request is None or api.request not in messages:
            continue
        got = message_range(api.request, release, broker=broker)
        if got is not None:
            out[key] = got
    return out


def codec_api_versions() -> dict[int, tuple[int, int]]:
    """API key -> (min, max) of the request schema this codec holds (what it reads and writes)."""
    return {k: (head(a.request).valid.low, head(a.request).valid.high) for k, a in apis().items() if a.request}


def speaks(release: str, message: str, version: int | None) -> bool | None:
    """Whether a Kafka ``release`` speaks ``message`` at ``version``, by the table: a request or response at a
    version its brokers advertise or its clients send; a coordinator record or ConsumerProtocol message at a version
    of that release's JSON (a record key: whether the release has the record at all, a key's version being its
    record type). Before the first release whose JSON holds the message (the classic records until 2.8,
    ConsumerProtocol until 2.7, every RPC's hand-written classes are in the table), and for a message the table
    does not hold (Streams' and Connect's metadata), the schema's ``history`` says (the release that first wrote
    each version: :func:`codec.wire.registry.first_release`), a version it names no release for counting as spoken.
    None when nothing says."""
    check_release(release)
    messages = _data()["messages"]
    entry = messages.get(message)
    if entry is not None:
        facts = entry["releases"].get(release)
        if facts is not None:
            if version is None or entry.get("type") == "coordinator-key":
                return True
            lo, hi = _range(facts["validVersions"])
            if facts.get("latestVersionUnstable"):
                hi -= 1
            return lo <= version <= hi
        first = min(entry["releases"], key=_key)
        if _key(release) > _key(first) or not first_release(message):
            return False  # gone by then, or not yet and nothing older says it was
    if message not in message_names():
        return None
    firsts = first_release(message)
    if not firsts or version is None:
        return None
    if version not in firsts:
        return True
    return _key(firsts[version]) <= _key(release)


def selects(release: str, message: str, version: int | None, api_key: int | None = None) -> bool:
    """Whether ``--kafka-release`` keeps a vector or generated cell of ``message`` at ``version``: all but what
    :func:`speaks` says the release does not speak. A ``RequestFrame``/``ResponseFrame`` is judged as its API's
    request or response (``api_key``)."""
    if message in ("RequestFrame", "ResponseFrame") and api_key is not None:
        api = apis().get(api_key)
        side = None if api is None else api.request if message == "RequestFrame" else api.response
        if side is None:
            return True
        message = side
    return speaks(release, message, version) is not False


def vector_api_key(vector: dict[str, Any]) -> int | None:
    """A frame vector's API key: its ``apiKey`` (a response frame), else the request frame's first two bytes."""
    if vector.get("apiKey") is not None:
        return int(vector["apiKey"])
    wire = vector.get("wire")
    if vector.get("message") == "RequestFrame" and isinstance(wire, str) and len(wire) >= 4:
        try:
            return int(wire[:4], 16)
        except ValueError:
            return None
    return None


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(x) for x in release.split("."))


def api_table() -> list[dict[str, Any]]:
    """One row per API of ``schemas/``: key, name, and per release the range its brokers advertise ("" where none)."""
    rows = []
    releases = kafka_releases()
    messages = _data()["messages"]
    for key, api in apis().items():
        if api.request is None or api.request not in messages:
            continue
        cells = {}
        for r in releases:
            got = message_range(api.request, r)
            cells[r] = "" if got is None else f"{got[0]}-{got[1]}" if got[0] != got[1] else str(got[0])
        rows.append({"key": key, "name": api.name, "versions": cells})
    return rows


def render_api_table(releases: tuple[str, ...] | None = None) -> str:
    """The table as Markdown: one row per API, one column per release (the broker's advertised versions)."""
    releases = releases or kafka_releases()
    lines = [
        "| API | key | " + " | ".join(releases) + " |",
        "|---|---:|" + "---|" * len(releases),
    ]
    for row in api_table():
        cells = [row["versions"][r] or "–" for r in releases]
        lines.append(f"| {row['name']} | {row['key']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_release_commits() -> str:
    """Markdown: each release's column, where it was read (commit and what it is)."""
    lines = ["| release | commit | what | gradle.properties |", "|---|---|---|---|"]
    for r, c in release_commits().items():
        lines.append(f"| {r} | `{c['commit'][:10]}` | {c['what']} | {c['gradle_version']} |")
    return "\n".join(lines)


def update_page(path: Path) -> None:
    """Rewrite the generated blocks of the docs page (``python -c 'from codec.negotiation.releases import
    update_page; from pathlib import Path; update_page(Path("docs/reference/kafka-releases.md"))'``)."""
    text = path.read_text(encoding="utf-8")
    for name, body in (("table", render_api_table()), ("commits", render_release_commits())):
        start, end = PAGE_MARKERS[name]
        a, b = text.index(start) + len(start), text.index(end)
        text = text[:a] + "\n" + body + "\n" + text[b:]
    path.write_text(text, encoding="utf-8")
