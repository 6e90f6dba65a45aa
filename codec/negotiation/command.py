"""``rebalance-codec negotiate`` and ``rebalance-codec compat``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..cliutil import input_errors, int_range, read_json_file
from ..text import dumps, printable
from .kafka4 import KAFKA4_MIGRATION, render_kafka4_scenario, run_kafka4_scenario
from .probing import FUTURE_VERSION
from .scenario import (
    CONNECT_PROTOCOL,
    compat_matrix,
    render_connect_phases,
    render_protocol_phases,
    render_rounds,
    run_connect_phases,
    run_protocol_phases,
    run_scenario,
)

__all__ = [
    "register",
    "register_size",
    "cmd_negotiate",
    "cmd_compat",
    "cmd_size",
    "CONNECT_SCENARIOS",
    "KAFKA4_SCENARIOS",
    "MAX_SIZE_WORK",
]


#: The bundled Kafka Connect scenarios (codec/examples/negotiation/).
CONNECT_SCENARIOS = (
    "connect-eager-to-sessioned",
    "connect-eager-to-compatible",
    "connect-compatible-to-sessioned",
    "connect-eager-to-sessioned-via-compatible",
    "connect-sessioned-to-eager",
    "connect-sessioned-to-compatible",
)
#: The bundled Kafka 4 migration scenarios (KIP-848 consumer groups, KIP-1071 streams groups).
KAFKA4_SCENARIOS = (
    "kip848-classic-to-consumer",
    "kip848-consumer-to-classic",
    "kip848-migration-disabled",
    "kip848-group-version-0",
    "kip1071-streams-offline-migration",
    "kip1071-streams-not-enabled",
    "kip932-share-not-enabled",
    "kip932-share-group-type-conflict",
    "kip932-share-id-taken",
)


def _label(v: int) -> str:
    return f"{v} (future)" if v == FUTURE_VERSION else str(v)


def _cell(c: dict) -> str:
    if c["outcome"] == "error":
        return "error"
    s = f"v{c['version']}"
    if c["outcome"] == "probing":
        s += " probe"
    return s + f" ({c['rounds']}r)"


def _scenario_path(name: str) -> Path:
    path = Path(name)
    if path.is_file():
        return path
    from importlib import resources

    bundled = Path(str(resources.files("codec") / "examples" / "negotiation" / f"{name}.json"))
    if bundled.is_file():
        return bundled
    raise FileNotFoundError(f"no scenario file {name!r} (nor a bundled one of that name)")


def cmd_api_versions(args) -> int:
    """``negotiate --broker-release R [--client-release C]``: what a client gets against a broker of release R."""
    from .api_versions import header_versions
    from .releases import broker_api_versions, check_release, client_api_versions, codec_api_versions

    try:
        broker = broker_api_versions(check_release(args.broker_release))
        client = client_api_versions(check_release(args.client_release)) if args.client_release else None
    except ValueError as e:
        print(f"error: {printable(str(e))}", file=sys.stderr)
        return 2
    from ..wire.registry import apis

    who = f"a Kafka {args.client_release} client" if client is not None else "this codec"
    client = client if client is not None else codec_api_versions()
    rows: list[dict[str, Any]] = []
    for key, api in apis().items():
        if key not in client and key not in broker:
            continue
        c, b = client.get(key), broker.get(key)
        if c is None or b is None:
            version, why = None, ("the broker does not answer it" if b is None else f"{who} does not send it")
        else:
            lo, hi = max(c[0], b[0]), min(c[1], b[1])
            version, why = (hi, "") if lo <= hi else (None, "no common version")
        hdr = header_versions(key, version) if version is not None else None
        rows.append(
            {
                "api_key": key,
                "api": api.name,
                "client": None if c is None else list(c),
                "broker": None if b is None else list(b),
                "version": version,
                "request_header": hdr and hdr[0],
                "response_header": hdr and hdr[1],
                "why": why,
            }
        )
    if args.format == "json":
        print(json.dumps({"broker_release": args.broker_release, "client": who, "apis": rows}, indent=2))
        return 0
    print(f"# {who} against a Kafka {args.broker_release} broker (its ApiVersions answer: vectors/releases)")
    header = ("API", "key", "client", "broker", "used", "headers")
    table = [header]

    def span(v: list[int] | None) -> str:
        return "-" if v is None else f"{v[0]}-{v[1]}"

    for r in rows:
        used = f"v{r['version']}" if r["version"] is not None else f"none: {r['why']}"
        hdrs = f"req v{r['request_header']}, resp v{r['response_header']}" if r["version"] is not None else ""
        table.append((str(r["api"]), str(r["api_key"]), span(r["client"]), span(r["broker"]), used, hdrs))
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(x.ljust(w) for x, w in zip(row, widths)).rstrip())
    return 0


def cmd_negotiate(args) -> int:
    if args.broker_release is not None:
        if args.scenario is not None:
            print("error: --broker-release and --scenario are two different questions: give one", file=sys.stderr)
            return 2
        return cmd_api_versions(args)
    if args.client_release is not None:
        print("error: --client-release goes with --broker-release", file=sys.stderr)
        return 2
    if args.scenario is None:
        print("error: negotiate needs --scenario or --broker-release", file=sys.stderr)
        return 2
    path = _scenario_path(args.scenario)
    spec = read_json_file(path, "scenario")
    with input_errors(f"scenario {path}"):
        if not isinstance(spec, dict):
            raise TypeError("a scenario is a JSON object")
        if args.format != "json" and spec.get("kind") in ("protocol-selection", CONNECT_PROTOCOL):
            spec = _shown(spec)
        if spec.get("kind") == "protocol-selection":
            phases = run_protocol_phases(spec)
            text = json.dumps(phases, indent=2) if args.format == "json" else render_protocol_phases(spec, phases)
        elif spec.get("kind") == CONNECT_PROTOCOL:
            phases = run_connect_phases(spec)
            text = json.dumps(phases, indent=2) if args.format == "json" else render_connect_phases(spec, phases)
        elif spec.get("kind") == KAFKA4_MIGRATION:
            phases = run_kafka4_scenario(spec)
            text = dumps(phases, indent=2) if args.format == "json" else render_kafka4_scenario(spec, phases)
        else:
            result = run_scenario(spec)
            text = json.dumps(result.to_json(), indent=2) if args.format == "json" else render_rounds(result)
    print(text)
    return 0


def _shown(value):
    """A scenario with every string escaped by :func:`codec.text.printable` (lossless, so distinct names stay
    distinct): the text renderers then show any string JSON holds (lone surrogates, line breaks, control
    characters) on one line, as the Kafka 4 renderer does its names."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, list):
        return [_shown(v) for v in value]
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    return value


def cmd_compat(args) -> int:
    cells = compat_matrix()
    if args.format == "json":
        print(json.dumps(cells, indent=2))
        return 0
    versions = sorted({c["leader"] for c in cells})
    grid = {(c["member"], c["leader"]): c for c in cells}
    header = ["member \\ leader"] + [_label(v) for v in versions]
    rows = [[_label(m)] + [_cell(grid[(m, lv)]) for lv in versions] for m in versions]
    if args.format == "markdown":
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        print(
            "\nEach cell: the version the pair settles at, `probe` when the first round was a version-probing "
            "rebalance, and the rounds to settle (a group of the leader and one member, run over real bytes)."
        )
    else:
        widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
        for row in [header] + rows:
            print("  ".join(x.ljust(w) for x, w in zip(row, widths)))
    return 0


def register(subparsers) -> None:
    n = subparsers.add_parser(
        "negotiate",
        help="run a rolling-upgrade scenario through Streams version probing, "
        "group protocol selection or Kafka Connect's connect.protocol",
    )
    n.add_argument(
        "--scenario",
        help="scenario JSON file, or a bundled one by name: seed-004-phases, streams-v4-to-v7, "
        "streams-below-2.0, streams-old-leader, " + ", ".join(CONNECT_SCENARIOS + KAFKA4_SCENARIOS),
    )
    n.add_argument(
        "--broker-release",
        metavar="R",
        help="instead of a scenario: the version of each API a client uses against a Kafka broker of release R "
        "(2.0 ... 4.4; the broker's versions from Kafka's message JSON at R: vectors/releases/kafka-versions.json)",
    )
    n.add_argument(
        "--client-release",
        metavar="C",
        help="with --broker-release: the client is Kafka's Java client of release C (default: this codec's versions)",
    )
    n.add_argument("--format", choices=("text", "json"), default="text", help="round by round (default) or JSON")
    n.set_defaults(func=cmd_negotiate)
    c = subparsers.add_parser("compat", help="the compatibility matrix of member and leader metadata versions")
    c.add_argument(
        "--format",
        choices=("table", "markdown", "json"),
        default="table",
        help="a text table (default), Markdown or JSON",
    )
    c.set_defaults(func=cmd_compat)
    register_size(subparsers)


def cmd_size(args) -> int:
    from .size import KAFKA_MESSAGE_MAX_BYTES, GroupShape, measure, members_to_cross

    def shape(n: int) -> GroupShape:
        return GroupShape(
            members=n,
            threads=args.threads,
            tasks=args.tasks,
            standbys=args.standbys,
            version=args.version,
            endpoint_length=args.endpoint_length,
            member_id_length=args.member_id_length,
        )

    limit = args.limit or KAFKA_MESSAGE_MAX_BYTES
    instances = -(-args.members // args.threads)
    work = args.members * (args.tasks * (1 + args.standbys) + (instances if args.endpoint_length else 0))
    if not args.find_limit and work > MAX_SIZE_WORK:
        print(
            f"error: a group of {args.members} members and {args.tasks} tasks is too large to build here "
            f"(members x (tasks x (1 + standbys) + instances with an endpoint) = {work:,} > {MAX_SIZE_WORK:,}); "
            f"its messages are far above Kafka's limits: --find-limit tells where a group crosses them",
            file=sys.stderr,
        )
        return 1
    if args.find_limit:
        found = members_to_cross(limit, shape)
        if found is None:
            print(f"no group of up to 65536 members crosses {limit} bytes")
            return 0
        n, report = found
        what, size = report.largest()
        if args.format == "json":
            print(
                json.dumps(
                    {"members": n, "limit": limit, "largest": what, "bytes": size, "report": report.to_json()}, indent=2
                )
            )
        else:
            print(
                f"a v{args.version} group with {args.tasks} tasks and {args.standbys} standby(s) crosses {limit} "
                f"bytes at {n} members: the {what} is {size} bytes"
            )
        return 0
    report = measure(shape(args.members))
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2))
        return 0
    rows = [
        ("SubscriptionInfo (largest)", report.subscription_info),
        ("ConsumerProtocol subscription (largest)", report.consumer_subscription),
        ("JoinGroup response to the leader", report.join_group_response_leader),
        ("AssignmentInfo (largest)", report.assignment_info),
        ("SyncGroup request from the leader", report.sync_group_request),
        ("SyncGroup responses (all members)", report.sync_group_response_total),
        ("group metadata (subscriptions + assignments)", report.group_metadata_payload),
        ("coordinator bytes out per rebalance", report.coordinator_bytes),
    ]
    print(
        f"{args.members} members ({report.shape.instances} instances x {args.threads} threads), {args.tasks} tasks, "
        f"{args.standbys} standby(s), Streams metadata v{args.version}, endpoint length {args.endpoint_length}"
    )
    for name, size in rows:
        flag = "  OVER LIMIT" if size > limit and "coordinator" not in name and "all members" not in name else ""
        print(f"  {name:46} {size:>12,} bytes{flag}")
    what, size = report.largest()
    if size > limit:
        print(f"warning: the {what} ({size:,} bytes) exceeds the {limit:,}-byte limit")
    return 0


# `size` builds every message of the group for real; past this much work (about 10 s and 1 GB here) the
# messages are hundreds of MB, far beyond any Kafka limit, so the command refuses instead of grinding.
MAX_SIZE_WORK = 4_000_000


def register_size(subparsers) -> None:
    s = subparsers.add_parser("size", help="exact encoded sizes of a rebalance for a described group")
    s.add_argument("--members", type=int_range(1, 65536), default=10, help="consumers in the group (1-65536)")
    s.add_argument("--threads", type=int_range(1, 1024), default=1, help="consumers per Streams instance (1-1024)")
    s.add_argument("--tasks", type=int_range(1, 1_000_000), default=1000, help="tasks (1-1,000,000)")
    s.add_argument("--standbys", type=int_range(0, 16), default=0, help="standby replicas (0-16)")
    s.add_argument("--version", type=int_range(1, 11), default=7, help="Streams metadata version (1-11)")
    s.add_argument(
        "--endpoint-length",
        type=int_range(0, 32767),
        default=0,
        dest="endpoint_length",
        help="length of application.server (host:port); 0 = unset",
    )
    s.add_argument(
        "--member-id-length",
        type=int_range(0, 32767),
        default=60,
        dest="member_id_length",
        help='length of each member id (default 60, about the Java client\'s "<client.id>-<uuid>")',
    )
    s.add_argument(
        "--limit",
        type=int_range(1, 1 << 30),
        help="byte limit to warn about (default 1 MiB, Kafka's message.max.bytes)",
    )
    s.add_argument("--find-limit", action="store_true", help="find the member count at which the limit is crossed")
    s.add_argument("--format", choices=("table", "json"), default="table", help="a text table (default) or JSON")
    s.set_defaults(func=cmd_size)
