"""What each Kafka Streams release's own reader makes of SubscriptionInfo and AssignmentInfo bytes written at every
version (issue #39: one truth for version compatibility).

``vectors/releases/streams-readers.jsonl`` was written by this script. It sends the same bytes (the cross-version
samples of ``codec.conformance.crossversion`` at seed 0, and a future version 12 made of v11's layout under the
version words 12, 12) through ``StreamsReaders.java`` (here) run against the ``SubscriptionInfo`` and
``AssignmentInfo`` classes of each release, compiled by hand from that release's tag of apache/kafka (with the few
classes they use: ``TaskId``, ``HostInfo``, ``TopicPartition``, ``TaskAssignmentException``...). Each line is one
(release, message, written version): the bytes, the reader's newest version as the release's own constant says
(``CURRENT_VERSION`` before 2.0, ``LATEST_SUPPORTED_VERSION`` after), and what ``decode`` did: the object's fields
(``String.valueOf`` of each), or the exception and its message.

Releases 2.5 and later read SubscriptionInfo through a generated ``SubscriptionInfoData`` class, which this way
of compiling does not build: for them only AssignmentInfo was run (2.5.0), and the SubscriptionInfo behaviour is
cited from the code (``SubscriptionInfo.decode``: ``version > LATEST_SUPPORTED_VERSION`` reads the two version
words only) in ``codec/streams/readers.py``.

Usage (each CLASSPATH holds one release's compiled classes and slf4j-api; Kafka's code is not part of this
repository and nothing here builds it)::

    python vectors/tools/streams_readers.py --harness DIR 0.10.0.0=CLASSPATH 0.10.1.0=CLASSPATH ... \\
        > vectors/releases/streams-readers.jsonl
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from codec.conformance.crossversion import _samples  # noqa: E402

FUTURE = 12


def inputs() -> list[dict]:
    out = []
    for w, sub, asg in _samples(0):
        out.append({"message": "SubscriptionInfo", "written": w, "wire": sub.hex()})
        out.append({"message": "AssignmentInfo", "written": w, "wire": asg.hex()})
    for message in ("SubscriptionInfo", "AssignmentInfo"):
        v11 = next(o for o in out if o["message"] == message and o["written"] == 11)["wire"]
        out.append({"message": message, "written": FUTURE, "wire": f"{FUTURE:08x}{FUTURE:08x}" + v11[16:]})
    return out


def ask(harness: str, classpath: str, lines: list[str]) -> list[dict]:
    got = subprocess.run(
        ["java", "-cp", f"{harness}:{classpath}", "StreamsReaders"],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return [json.loads(g) for g in got]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--harness", required=True, help="the folder holding the compiled StreamsReaders.class")
    p.add_argument("releases", nargs="+", help="TAG=CLASSPATH, one per release")
    args = p.parse_args()
    cases = inputs()
    for spec in args.releases:
        tag, classpath = spec.split("=", 1)
        newest = [
            ask(args.harness, classpath, [f"NEWEST {m}"])[0]["newest"] for m in ("SubscriptionInfo", "AssignmentInfo")
        ]
        reader = next(n for n in newest if n is not None)
        answers = ask(args.harness, classpath, [f"{c['message']} {c['wire']}" for c in cases])
        for case, answer in zip(cases, answers):
            if answer["outcome"] == "harness-error":
                continue  # the class is not in this release's compiled set (SubscriptionInfo from 2.5 on)
            print(json.dumps({"kafkaTag": tag, "readerVersion": reader, **case, "kafka": answer}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
