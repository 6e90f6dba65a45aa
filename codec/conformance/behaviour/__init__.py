"""The behaviour gate: a client's group membership judged against a scripted coordinator (issue #45).

``rebalance-codec conformance --behaviour --client CMD`` starts, for each scenario, a broker on loopback that
speaks the project's codec (:mod:`.broker`) with a scripted group (:mod:`.classic`, :mod:`.consumer`), and the
driver ``CMD``, a small program that runs the client under test as a group consumer (the driver contract:
``vectors/drivers/README.md``). The scenario's script puts the client in front of one rule of the group
protocols (an error answered, a rebalance begun, an answer lost or late, a restart) and its judge reads what the
client did (:mod:`.trace`): pass, or fail with what the client sent and what the rule expected, or skip when the
driver does not declare what the scenario needs. Autobahn|Testsuite and h2spec do the same for WebSocket and
HTTP/2.
"""

from .scenario import Config, Scenario, Verdict
from .scenarios_classic import SCENARIOS as _CLASSIC
from .scenarios_consumer import SCENARIOS as _CONSUMER
from .scenarios_members import SCENARIOS as _MEMBERS
from .scenarios_static import SCENARIOS as _STATIC

__all__ = ["SCENARIOS", "Config", "Scenario", "Verdict", "by_name"]

#: Every scenario, in the order the reports list them.
SCENARIOS: list[Scenario] = [*_CLASSIC, *_MEMBERS, *_STATIC, *_CONSUMER]


def by_name() -> dict[str, Scenario]:
    return {s.name: s for s in SCENARIOS}


def scenarios_markdown() -> str:
    """The scenarios as the docs list them (docs/guides/behaviour-gate.md holds this text; a test keeps it so)."""
    out = []
    for protocol, heading in (("classic", "The classic protocol"), ("consumer", "The consumer protocol (KIP-848)")):
        out += [f"### {heading}", ""]
        for s in SCENARIOS:
            if s.protocol != protocol:
                continue
            seeded = f" Seeded bugs it catches: {', '.join(s.seeded)}." if s.seeded else ""
            out.append(
                f"- **`{s.name}`**: {s.title}. {s.rule} *Needs:* {', '.join(sorted(s.needs))}. "
                f"*Kafka:* {'; '.join(s.java)}.{seeded}"
            )
        out.append("")
    return "\n".join(out).rstrip() + "\n"
