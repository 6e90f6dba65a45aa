"""A Python take on Kafka's TaskAssignorConvergenceTest harness (wire-facts §12).

Clients have capacity 1; every stateful task has end-offset sum 150000; between rounds each
client reports offset sum == end sum for every stateful task it held (full catch-up), so held
tasks have lag 0 and all others lag 150000 (acceptable recovery lag 100)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from codec.assignor import assign, group_from_json, result_to_json

END_SUM = 150000


@dataclass
class Cluster:
    stateless: list[str]
    stateful: list[str]
    configs: dict
    live: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)  # pid -> (active, standby+warmup)
    dropped: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    next_id: int = 1
    last: dict | None = None

    @classmethod
    def random(cls, rng: random.Random, num_clients: int, num_stateless: int, num_stateful: int,
               max_warmups: int, num_standby: int) -> "Cluster":
        sub = 0
        stateless: list[str] = []
        stateful: list[str] = []
        for tasks, count in ((stateless, num_stateless), (stateful, num_stateful)):
            while count > 0:
                parts = min(count, rng.randint(1, 10))
                tasks.extend(f"{sub}_{p}" for p in range(parts))
                count -= parts
                sub += 1
        configs = {"acceptableRecoveryLag": 100, "maxWarmupReplicas": max_warmups,
                   "numStandbyReplicas": num_standby, "probingRebalanceIntervalMs": 60000}
        cluster = cls(stateless, stateful, configs)
        for _ in range(num_clients):
            cluster.add_client()
        return cluster

    def add_client(self) -> None:
        self.live[f"00000000-0000-0000-0000-{self.next_id:012x}"] = ([], [])
        self.next_id += 1

    def drop_random(self, rng: random.Random, count: int) -> None:
        for _ in range(min(count, len(self.live))):
            pid = sorted(self.live)[rng.randrange(len(self.live))]
            self.dropped[pid] = self.live.pop(pid)

    def add_or_resurrect(self, rng: random.Random, count: int) -> None:
        for _ in range(count):
            if rng.random() < 0.5 or not self.dropped:
                self.add_client()
            else:
                pid = sorted(self.dropped)[rng.randrange(len(self.dropped))]
                self.live[pid] = self.dropped.pop(pid)

    def group(self) -> dict:
        def task(t: str, stateful: bool) -> dict:
            s, p = t.split("_")
            return {"subtopology": int(s), "partition": int(p), "stateful": stateful}

        stateful = set(self.stateful)
        return {
            "assignor": "high_availability",
            "configs": self.configs,
            "tasks": [task(t, False) for t in self.stateless] + [task(t, True) for t in self.stateful],
            "endOffsetSums": {t: END_SUM for t in self.stateful},
            "clients": [{"processId": pid, "capacity": 1, "prevActive": active, "prevStandby": standby,
                         "taskOffsetSums": {t: END_SUM for t in active + standby if t in stateful}}
                        for pid, (active, standby) in sorted(self.live.items())],
        }

    def rebalance(self) -> tuple[dict, dict]:
        """One round: assign, then fully catch every client up on what it now holds."""
        group = self.group()
        result = result_to_json(assign(group_from_json(group)))
        for c in result["clients"]:
            self.live[c["processId"]] = (c["active"], c["standby"] + c["warmup"])
        return group, result

    def converge(self, limit: int) -> tuple[dict, dict, int]:
        """Rebalance until no probing rebalance is needed; fail after ``limit`` rounds."""
        for rounds in range(1, limit + 1):
            group, result = self.rebalance()
            if not result["probingRebalanceNeeded"]:
                return group, result, rounds
        raise AssertionError(f"no convergence within {limit} rounds")
