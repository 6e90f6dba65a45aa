"""Writes the bundled captures of heartbeat-based groups from the scripts of :mod:`codec.capture.scripted`:

* ``kip848-group.pcap`` — the KIP-848 consumer group ``orders-app`` (``kip848_script(metadata=True)``: a
  Metadata exchange names the topic ids), shown in the Kafka 4 guide's ``capture`` example (docs/guides/kafka4.md);
* ``kip1071-streams.pcap`` — the KIP-1071 streams group ``wordcount`` (``kip1071_script()``);
* ``kip932-share.pcap`` — the KIP-932 share group ``queue-app`` (``kip932_script()``).

Run from the project: ``.venv/bin/python codec/examples/kip848-examples.py``. The tests check that the bundled
files are what this script writes.
"""

from __future__ import annotations

from pathlib import Path

from codec.capture.scripted import kip848_script, kip932_script, kip1071_script

HERE = Path(__file__).resolve().parent
EXAMPLES = {
    "kip848-group.pcap": lambda: kip848_script(metadata=True).pcap(),
    "kip1071-streams.pcap": lambda: kip1071_script().pcap(),
    "kip932-share.pcap": lambda: kip932_script().pcap(),
}


def main() -> None:
    for name, build in EXAMPLES.items():
        (HERE / name).write_bytes(build())
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
