"""Client-tag-aware standby placement (§11, KIP-708) versus the default standby assignor."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from codec.assignor import assign, group_from_json, result_to_json

LONG_MAX = 2**63 - 1


def pid(n: int) -> str:
    return f"00000000-0000-0000-0000-{n:012x}"


def group(zones: list[dict], num_tasks: int, tags: list[str], standbys: int = 1) -> dict:
    return {
        "configs": {"acceptableRecoveryLag": LONG_MAX, "numStandbyReplicas": standbys, "rackAwareAssignmentTags": tags},
        "tasks": [{"subtopology": 0, "partition": p, "stateful": True} for p in range(num_tasks)],
        "clients": [{"processId": pid(i + 1), "clientTags": z} for i, z in enumerate(zones)],
    }


def holders(result: dict, task: str) -> tuple[str, list[str]]:
    active = next(c["processId"] for c in result["clients"] if task in c["active"])
    return active, [c["processId"] for c in result["clients"] if task in c["standby"]]


def test_standby_goes_to_another_zone_not_just_the_least_loaded():
    zones = [{"zone": "a"}, {"zone": "a"}, {"zone": "b"}]
    tagged = result_to_json(assign(group_from_json(group(zones, 1, ["zone"]))))
    plain = result_to_json(assign(group_from_json(group(zones, 1, []))))
    assert holders(tagged, "0_0") == (pid(1), [pid(3)])
    assert holders(plain, "0_0") == (pid(1), [pid(2)])  # default: least loaded, then UUID order


def test_unlisted_tag_keys_are_ignored():
    zones = [{"zone": "a", "rack": "r1"}, {"zone": "a", "rack": "r2"}, {"zone": "b", "rack": "r1"}]
    result = result_to_json(assign(group_from_json(group(zones, 1, ["rack"]))))
    assert holders(result, "0_0") == (pid(1), [pid(2)])  # other rack; the zone does not matter


def test_key_stops_counting_once_all_its_values_are_used():
    """Two zones, two standbys: after the active and one standby cover both zones, the third copy
    may go to any zone (here the least-loaded client)."""
    zones = [{"zone": "a"}, {"zone": "a"}, {"zone": "b"}, {"zone": "b"}]
    result = result_to_json(assign(group_from_json(group(zones, 1, ["zone"], standbys=2))))
    active, standby = holders(result, "0_0")
    assert active == pid(1) and pid(3) in standby and len(standby) == 2


@settings(max_examples=150, deadline=None, database=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c"]), min_size=2, max_size=8).filter(lambda zs: len(set(zs)) >= 2),
    st.integers(1, 12),
)
def test_active_and_standby_in_different_zones_when_possible(zone_list, num_tasks):
    zones = [{"zone": z} for z in zone_list]
    result = result_to_json(assign(group_from_json(group(zones, num_tasks, ["zone"]))))
    zone_of = {pid(i + 1): z for i, z in enumerate(zone_list)}
    for p in range(num_tasks):
        active, standby = holders(result, f"0_{p}")
        assert len(standby) == 1 and zone_of[standby[0]] != zone_of[active]
