"""``capture --follow`` on a live capture: ``tcpdump -U -w -`` on loopback piped into it while real clients --
confluent-kafka (classic, and ``group.protocol=consumer``), kafka-python and aiokafka -- join and leave groups of
librdkafka's mock cluster. Each generation (each epoch of the KIP-848 group) is printed with its cause before the
capture ends, and the causes are what the run did: who joined, then who left, by client id. Needs tcpdump and the
right to capture on loopback (root), as CI has; the clients run in their own processes (``members.py``).

The mock cluster sits behind ``../shared/captures/capture.py``'s ApiVersions relay (kafka-python cannot bootstrap
against the mock without it; every other byte goes through unchanged), and the capture is the clients' side of it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("aiokafka")
pytest.importorskip("kafka")

from codec.live.mock import MockCluster
from tests.conftest import ROOT, SHARED

pytestmark = pytest.mark.skipif(
    shutil.which("tcpdump") is None or os.geteuid() != 0, reason="needs tcpdump and root to capture on loopback"
)

HERE = Path(__file__).resolve().parent
LIBS = ("ck", "ck848", "kp", "aio")


def _shim():
    spec = importlib.util.spec_from_file_location("shared_capture", SHARED / "captures" / "capture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.start_shim


def _member(lib: str, bootstrap: str, group: str, client: str, hold: float, log: list) -> None:
    p = subprocess.run(
        [
            sys.executable,
            str(HERE / "members.py"),
            "--lib",
            lib,
            "--bootstrap",
            bootstrap,
            "--group",
            group,
            "--client-id",
            client,
            "--hold",
            str(hold),
        ],
        capture_output=True,
        text=True,
        timeout=hold + 60,
    )
    log.append((lib, client, p.returncode, p.stdout, p.stderr[-2000:]))


def test_follow_tells_each_generation_of_real_clients_with_its_cause_before_the_capture_ends(tmp_path):
    with MockCluster() as mc:
        mc.create_topic("orders", 6)
        mc.initial_rebalance_delay(300)
        for key, top in ((11, 5), (14, 3), (13, 2)):  # JoinGroup, SyncGroup, LeaveGroup: what the mock reads
            mc.api_versions(key, 0, top)
        host, port = mc.bootstrap.rsplit(":", 1)
        relay = _shim()(host, int(port))
        mc.advertise("127.0.0.1", relay)
        bootstrap = f"127.0.0.1:{relay}"
        dump = subprocess.Popen(
            ["tcpdump", "-i", "lo", "-U", "-s", "0", "-w", "-", f"tcp port {relay}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        follow = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "codec",
                "capture",
                "--follow",
                "-",
                "--json",
                "--port",
                str(relay),
                "--settle",
                "5",
            ],
            cwd=ROOT,
            stdin=dump.stdout,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        dump.stdout.close()
        got: list[tuple[float, dict]] = []

        def pump() -> None:
            for text in follow.stdout:
                got.append((time.time(), json.loads(text)))

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            assert b"listening on lo" in dump.stderr.readline()  # tcpdump captures from now on
            log: list = []
            threads = []
            # each library its own group; a holds 20 s, b joins 5 s in and leaves 8 s later (a rebalance of the
            # mock waits up to its members' session timeout less 1 s for them to rejoin: 2 s here)
            for lib in LIBS:
                group = f"follow-{lib}"
                threads.append(threading.Thread(target=_member, args=(lib, bootstrap, group, f"{lib}-a", 20, log)))
            for t in threads:
                t.start()
            time.sleep(5)
            late = [
                threading.Thread(target=_member, args=(lib, bootstrap, f"follow-{lib}", f"{lib}-b", 8, log))
                for lib in LIBS
            ]
            for t in late:
                t.start()
            for t in threads + late:
                t.join()
            assert all(rc == 0 for _, _, rc, _, _ in log), log
            time.sleep(3)
            captured_until = time.time()  # the capture is still running: everything below was told before its end
        finally:
            dump.terminate()
            dump.wait(10)
            assert follow.wait(30) == 0, follow.stderr.read()
            reader.join(10)
            follow.stdout.close()
            follow.stderr.close()
            dump.stderr.close()
    told = [(t, r) for t, r in got if r["type"] in ("generation", "epoch")]
    assert got[-1][1]["type"] == "summary"
    for lib in LIBS:
        mine = [(t, r) for t, r in told if r["group"] == f"follow-{lib}"]
        clients = {m["member_id"]: m.get("client_id") for _, r in mine for m in r["members"]}
        for _, f in got:  # (a member's client id, from any request of its that the capture holds)
            header = (f.get("frame") or {}).get("header") or {}
            if f["type"] == "frame" and f.get("member") and header.get("clientId"):
                if not clients.get(f["member"]):
                    clients[f["member"]] = header["clientId"]
        causes = [(r["cause"]["kind"], sorted(clients.get(m, m) for m in r["cause"]["members"])) for _, r in mine]
        # what the run did: a joined (alone), b joined, b left (a's leave at the end empties the group: no
        # generation forms after it). A client may rebalance on its own besides (kafka-python's leader rejoins when
        # its topics' metadata changes): such a generation has its own cause, never a membership one
        membership = [(k, m) for k, m in causes if k in ("member-joined", "member-left")]
        assert membership == [
            ("member-joined", [f"{lib}-a"]),
            ("member-joined", [f"{lib}-b"]),
            ("member-left", [f"{lib}-b"]),
        ], (lib, causes)
        assert all(r.get("cause") for _, r in mine) and all(k != "first-seen" for k, _ in causes), (lib, causes)
        assert mine and all(t < captured_until for t, _ in mine), lib
