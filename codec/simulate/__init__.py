"""The rebalance simulator (issue #7): a Kafka Streams group through membership changes, built from
the project's own parts, with every JoinGroup/SyncGroup exchanged as real bytes.

* :mod:`~codec.simulate.scenario` — scenario files and the bundled examples;
* :mod:`~codec.simulate.engine` — the discrete-event simulation (coordinator, members, leader);
* :mod:`~codec.simulate.leader` — the compared protocols (eager, cooperative, KIP-441 HA, host affinity);
* :mod:`~codec.simulate.wire` — frames and the recorder (``frames.jsonl`` and pcap);
* :mod:`~codec.simulate.metrics` — what a run costs;
* :mod:`~codec.simulate.plots` — pictures (matplotlib, the ``plots`` extra);
* :mod:`~codec.simulate.command` — ``rebalance-codec simulate``;
* Kafka Connect worker groups (``"kind": "connect"``): :mod:`~codec.simulate.connect` and its scenario and plots;
* plain consumer groups (``"kind": "consumer"``) under eager, cooperative and KIP-848 rebalancing:
  :mod:`~codec.simulate.consumer` (the model), :mod:`~codec.simulate.consumer_classic`,
  :mod:`~codec.simulate.consumer_kip848`, :mod:`~codec.simulate.consumer_ledger`,
  :mod:`~codec.simulate.consumer_scenario`, :mod:`~codec.simulate.consumer_plots`.
"""

from .engine import Simulation, SimulationResult, simulate
from .leader import PROTOCOLS, Protocol
from .scenario import Scenario, ScenarioError, bundled_examples, example_path, load_scenario, parse_scenario

__all__ = [
    "Simulation",
    "SimulationResult",
    "simulate",
    "PROTOCOLS",
    "Protocol",
    "Scenario",
    "ScenarioError",
    "bundled_examples",
    "example_path",
    "load_scenario",
    "parse_scenario",
]
