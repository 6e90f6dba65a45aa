"""The capture story tells the classic sticky assignors' user data (codec.group.sticky) on real traffic
(``../shared/captures``): what a member says it held and in which generation, held to what the story itself saw the
member assigned (its SyncGroup response) in the generation before."""

from __future__ import annotations

import pytest

from tests.conftest import SHARED

from .storyfixtures import json_lines, run_capture

PCAPS = SHARED / "captures" / "pcaps" / "runA"
pytestmark = pytest.mark.skipif(not PCAPS.exists(), reason="shared/captures not present")


def _generations(name: str) -> list[dict]:
    return [r for r in json_lines(PCAPS / f"{name}.pcap.gz", status=None) if r.get("type") == "generation"]


@pytest.mark.parametrize("name", ["java-sticky", "ck-cooperative-sticky"])
def test_previous_partitions_are_what_the_member_was_assigned(name):
    gens = _generations(name)
    assigned = {}  # (generation, member) -> {topic: partitions} from the story's assignments
    for g in gens:
        for m in g["members"]:
            a = (m.get("assignment") or {}).get("consumer")
            if a is not None:
                assigned[(g["generation"], m["member_id"])] = {t: sorted(ps) for t, ps in a["partitions"].items() if ps}
    checked = 0
    for g in gens:
        for m in g["members"]:
            sticky = (m.get("subscription") or {}).get("sticky")
            if sticky is None or sticky["generation"] is None:
                continue
            assert sticky["layer"] == "StickyAssignorUserData" and sticky["version"] == 1
            before = assigned.get((sticky["generation"], m["member_id"]))
            if before is None:
                continue  # that generation's SyncGroup is not in the capture
            said = {t: sorted(ps) for t, ps in sticky["previous_assignment"].items() if ps}
            assert said == before, (g["generation"], m["member_id"])
            checked += 1
    assert checked >= 3


def test_the_text_story_shows_it():
    status, text = run_capture(PCAPS / "java-sticky.pcap.gz")
    assert status == 0
    assert "StickyAssignorUserData v1: generation 2; previous events: 0-2; orders: 0-5 (9 partitions)" in text
    status, text = run_capture(PCAPS / "ck-cooperative-sticky.pcap.gz")
    assert "note: cooperative-sticky carried the sticky layout (as librdkafka writes it)" in text
    status, text = run_capture(PCAPS / "mixed-cooperative-sticky.pcap.gz")
    assert "CooperativeStickyAssignorUserData v0: generation 2" in text


def test_unreadable_sticky_user_data_is_told_once_and_kept():
    status, text = run_capture(PCAPS / "kp-sticky.pcap.gz")
    assert status == 0
    lines = [x for x in text.splitlines() if "StickyAssignorUserData: NOT DECODED" in x]
    assert lines and all("Kafka's StickyAssignor reads no previous partitions, generation -1" in x for x in lines)
    gens = _generations("kp-sticky")
    errors = [
        m["subscription"]["sticky_error"] for g in gens for m in g["members"] if "sticky_error" in m["subscription"]
    ]
    assert errors and all(e["layer"] == "StickyAssignorUserData" and e["offset"] == 0 for e in errors)
