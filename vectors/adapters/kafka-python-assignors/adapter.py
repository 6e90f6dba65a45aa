"""kafka-python's own consumer assignors behind rebalance-codec's conformance line protocol: the gate's ``assign``
op on ``ConsumerRound`` rounds holds them to Kafka's (range, roundrobin, sticky, cooperative-sticky).

    pip install kafka-python==3.0.12 rebalance-codec
    rebalance-codec conformance --impl 'python adapter.py' --op assign --message ConsumerRound --expect expect.txt

Reads one JSON request a line on stdin and answers one JSON line on stdout, flushed, until stdin closes; each reply
echoes its request's "id". A round names the assignor (``consumerAssignor``), the topics' partition counts
(``topics``) and the members, each with its ``ConsumerProtocolSubscription`` bytes (``metadata``, hex) as the
leader's JoinGroup response carries them. kafka-python decodes those bytes, its assignor assigns, and kafka-python
encodes each member's ``ConsumerProtocolAssignment``; this file only builds the cluster view the assignor asks
(``partitions_for_topic``) and translates hex. Everything else is declined.
"""

import json
import sys
from collections import namedtuple

from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription

ASSIGNORS = {
    "range": RangePartitionAssignor,
    "roundrobin": RoundRobinPartitionAssignor,
    "sticky": StickyPartitionAssignor,
    "cooperative-sticky": CooperativeStickyAssignor,
}
Member = namedtuple("Member", ["member_id", "group_instance_id", "metadata"])


class Cluster:
    """What kafka-python's assignors ask of the cluster: its topics and a topic's partitions."""

    def __init__(self, topics):
        self.topics_ = topics

    def topics(self):
        return set(self.topics_)

    def partitions_for_topic(self, topic):
        n = self.topics_.get(topic)
        return None if n is None else set(range(n))


def assign(round_):
    name = round_.get("consumerAssignor")
    if name not in ASSIGNORS:
        return {"unsupported": f"kafka-python has no consumer assignor {name!r} (or this is not a ConsumerRound)"}
    members = [
        Member(
            m["memberId"],
            m.get("groupInstanceId"),
            ConsumerProtocolSubscription.decode(bytes.fromhex(m["metadata"]), header=True),
        )
        for m in round_["members"]
    ]
    out = ASSIGNORS[name]().assign(Cluster(round_["topics"]), members)
    return {"assignments": {m: a.encode(header=True).hex() for m, a in out.items()}}


def answer(req):
    op = req.get("op")
    if op == "capabilities":
        return {"capabilities": [{"op": "assign", "message": "ConsumerRound"}]}
    if op != "assign":
        return {"unsupported": f"this adapter runs kafka-python's assignors only, not {op}"}
    return assign(req["round"])


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            reply = answer(req)
        except Exception as e:  # an assignor that throws answers an error for its round
            reply = {"error": {"message": f"{type(e).__name__}: {e}"}}
        print(json.dumps({"id": req.get("id"), **reply}), flush=True)


if __name__ == "__main__":
    main()
