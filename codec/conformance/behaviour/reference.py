"""The behaviour gate's reference: Kafka's own Java consumer, run by hand against every scenario, and its record.

Kafka's Java consumer (kafka-clients) is the gate's reference: it must pass every scenario, or the scenario is
wrong (issue #45). CI cannot fetch kafka-clients, so it is run by hand with ``vectors/drivers/java/`` (its README
says how); this module turns the ``--json`` reports of those runs into ``vectors/drivers/java/results.json`` and
that file into the tables the gate's page and the driver's README embed (tests hold the pages to the file, and
the file to the scenarios)::

    python -m codec.conformance.behaviour.reference REPORT.json... --commit SHA --java VERSION \\
        --write vectors/drivers/java/results.json --update docs/guides/behaviour-gate.md \\
        --update vectors/drivers/java/README.md

What it records of each run comes from the report alone: the verdicts and times, what the driver declared, the
client's own name and version (its ApiVersions request), the assignor it offered (its JoinGroup's protocols).
Paths on the machine that ran it are left out of the command (the jars by their file names).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from ... import text as _text

__all__ = ["MARKERS", "record", "render", "results_path"]

MARKERS = ("<!-- java-reference:start -->", "<!-- java-reference:end -->")
STATUSES = ("pass", "fail", "skip", "xfail", "xpass")


def results_path() -> Path:
    from ..vectors import vectors_dir

    return vectors_dir() / "drivers" / "java" / "results.json"


def _command(implementation: str) -> dict:
    """The driver's command without the machine's paths: JVM options, the class path's files, the arguments."""
    try:
        argv = shlex.split(implementation)
    except ValueError:
        argv = implementation.split()
    out: dict = {"jvmOptions": [], "classPath": [], "arguments": []}
    i, main = 1, None
    while i < len(argv):
        a = argv[i]
        if main is not None:
            out["arguments"].append(a)
        elif a in ("-cp", "-classpath", "--class-path") and i + 1 < len(argv):
            out["classPath"] = [Path(p).name for p in argv[i + 1].split(":") if p]
            i += 1
        elif a.startswith("-"):
            key, eq, value = a.partition("=")
            out["jvmOptions"].append(key + eq + (Path(value).name if "/" in value else value))
        else:
            main = a
        i += 1
    out["main"] = main
    return out


def _client(results: list[dict]) -> dict:
    for r in results:
        for q in (r.get("trace") or {}).get("requests", []):
            body = q.get("body") or {}
            if q.get("api") == "ApiVersions" and body.get("clientSoftwareName"):
                return {"name": body["clientSoftwareName"], "version": body.get("clientSoftwareVersion")}
    return {}


def _assignor(result: dict) -> str | None:
    """The assignors the client offered in its first JoinGroup (classic), or None."""
    for q in (result.get("trace") or {}).get("requests", []):
        if q.get("api") == "JoinGroup":
            return ",".join(p.get("name", "?") for p in (q.get("body") or {}).get("protocols") or [])
    return None


def record(reports: list[dict], *, commit: str, java: str, repository: str, branch: str) -> dict:
    """The results file: each report a run, in the order given."""
    runs = []
    client: dict = {}
    for rep in reports:
        if rep.get("kind") != "behaviour":
            raise ValueError("not a behaviour gate report (conformance --behaviour --json)")
        results = rep["results"]
        client = client or _client(results)
        runs.append(
            {
                "command": _command(rep.get("implementation", "")),
                "declares": rep.get("supports"),
                "seconds": rep.get("seconds"),
                "counts": rep.get("counts"),
                "results": [
                    {
                        "id": r["id"],
                        "status": r["status"],
                        "seconds": r["seconds"],
                        "assignor": _assignor(r),
                        "detail": r["detail"],
                    }
                    for r in results
                ],
            }
        )
    return {
        "reference": "Kafka's Java consumer (kafka-clients), built by hand outside this repository",
        "client": client,
        "kafka": {"repository": repository, "branch": branch, "commit": commit},
        "java": java,
        "runs": runs,
    }


def _label(run: dict) -> str:
    declares = set(run.get("declares") or [])
    if "eager" in declares:
        return "range (any assignor), cooperative-sticky (cooperative scenarios)"
    return "cooperative-sticky (every classic scenario; the eager ones skipped)"


def render(results: dict) -> str:
    """The Markdown the pages embed: the reference, its runs, and each scenario's verdicts."""
    runs = results["runs"]
    client = results.get("client") or {}
    kafka = results["kafka"]
    lines = [
        f"Kafka's Java consumer, {client.get('name', '?')} {client.get('version', '?')} (as its ApiVersions "
        f"says): {kafka['repository']}, branch {kafka['branch']}, commit `{kafka['commit'][:12]}`, on Java "
        f"{results['java']}; {len(runs)} runs of every scenario.",
        "",
        "| run | classic assignor | declares | passed | failed | skipped | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, run in enumerate(runs, 1):
        c = run["counts"]
        lines.append(
            f"| {i} | {_label(run)} | {', '.join(sorted(run['declares'] or []))} | {c['pass']} | "
            f"{c['fail'] + c['xpass']} | {c['skip']} | {run['seconds']:.1f} |"
        )
    groups: dict[str, list[int]] = {}
    for i, run in enumerate(runs):
        groups.setdefault(_label(run), []).append(i)
    heads = [f"runs {', '.join(str(i + 1) for i in idx)}" for idx in groups.values()]
    lines += ["", f"| scenario | {' | '.join(heads)} | what Kafka's consumer did (run 1) |"]
    lines.append("|---|" + "---|" * len(heads) + "---|")
    for j, first in enumerate(runs[0]["results"]):
        cells = []
        for idx in groups.values():
            got = [runs[i]["results"][j] for i in idx]
            statuses = sorted({g["status"] for g in got}, key=STATUSES.index)
            if statuses == ["skip"]:
                cells.append("skip")
                continue
            secs = [g["seconds"] for g in got if g["status"] != "skip"]
            said = " / ".join(f"{s} {sum(g['status'] == s for g in got)}" for s in statuses)
            cells.append(f"{said} ({min(secs):.1f}-{max(secs):.1f} s)")
        detail = first["detail"].replace("|", "\\|")
        lines.append(f"| `{first['id']}` | {' | '.join(cells)} | {_text.printable(detail)[:200]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m codec.conformance.behaviour.reference",
        description="record the Java reference's runs (conformance --behaviour --json reports) and the pages' table",
    )
    p.add_argument("reports", nargs="*", help="the --json reports of the runs, in order")
    p.add_argument("--commit", help="the Kafka commit kafka-clients was built from")
    p.add_argument("--branch", default="4.4")
    p.add_argument("--repository", default="github.com/confluentinc/kafka")
    p.add_argument("--java", help="the Java version that ran it")
    p.add_argument("--write", metavar="FILE", help="write the results file (default: print nothing of it)")
    p.add_argument("--update", metavar="FILE", action="append", default=[], help="rewrite FILE's table (repeatable)")
    args = p.parse_args(argv)
    from ..coverage import update_block

    try:
        if args.reports:
            if not args.commit or not args.java:
                p.error("recording runs needs --commit and --java")
            reports = [json.loads(Path(f).read_text(encoding="utf-8")) for f in args.reports]
            results = record(
                reports, commit=args.commit, java=args.java, repository=args.repository, branch=args.branch
            )
            if args.write:
                Path(args.write).write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        else:
            results = json.loads(results_path().read_text(encoding="utf-8"))
        table = render(results)
        for f in args.update:
            update_block(Path(f), table, MARKERS)
        if not args.update:
            print(table)
    except (OSError, ValueError, KeyError) as e:
        print(f"error: {_text.printable(str(e))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
