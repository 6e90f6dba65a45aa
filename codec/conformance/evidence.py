"""Evidence: a pass counts only from an adapter that computes its answers.

Every answer the suite's vectors and rounds ask for is in the files an install ships, so an adapter may answer them
from a table of those files. What it cannot answer from them are values nobody wrote down: the run's generated cases
(:mod:`.generate`, :mod:`.rounds`) and the **witnesses** the runner draws the same way. So the passes of each (op,
message, API) — a vector half answered right, an invalid input refused, a rebalance round assigned right — are
credited in proportion to the adapter's own passes of those values:

* the **evidence** of an (op, message, API) is its generated cases of the run, and witnesses (small, fresh values,
  at the versions the adapter answers first) drawn while it falls short — :data:`WITNESS_DRAWS` at most: those it
  passed, failed (expected failures of an expectations file too) and declined, a decline counting where the
  adapter answers the suite's requests of that version (declining a whole version is declining, not failing to
  compute);
* at an evidence pass rate of :data:`EVIDENCE_RATE` or more, every pass counts; below it, that share of the passes
  counts (the rate over :data:`EVIDENCE_RATE`), in the order of the files, and the rest are skipped ("no
  evidence"). Such a run **fails** (the command says which op and message), whatever an expectations file lists:
  an adapter that answers the suite but not most values of a message does not implement it;
* a rejection from an adapter that answers no evidence right, and some wrong, fails ("decline with unsupported");
  passes whose every evidence was declined are skipped, quietly: nothing counted, nothing faked.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from .checks import Half, case_vector, check, check_round
from .generate import cell_ops, generated_cells, take_case
from .impl import Implementation
from .rounds import FAMILIES, take_round

__all__ = ["EVIDENCE_RATE", "MIN_EVIDENCE", "WITNESS_DRAWS", "Ledger", "Tally"]

EVIDENCE_RATE = 0.5  # the evidence pass rate from which every pass of an (op, message, API) counts
MIN_EVIDENCE = 8  # answers of evidence at least, witnesses drawn where the run's cases are fewer
WITNESS_DRAWS = 3 * MIN_EVIDENCE  # witnesses drawn at most for one (op, message, API)


@dataclass
class Tally:
    """The evidence of one (op, message, API): values nobody wrote down, passed, failed and declined (by version)."""

    passed: int = 0
    failed: int = 0
    declined: Counter = field(default_factory=Counter)
    failure: str = ""  # the first failure: case id and detail
    decline: str = ""  # the first decline: case id and reason

    def add(self, version: int | None, half: Half, case_id: str) -> None:
        if half.status == "pass":
            self.passed += 1
        elif half.status == "skip":
            self.declined[version] += 1
            self.decline = self.decline or f"{case_id}: {half.detail.removeprefix('unsupported: ')}"
        else:
            self.failed += 1
            self.failure = self.failure or f"{case_id}: {half.detail}"


def _what(key: tuple) -> str:
    op, message, api = key
    return f"{op} {message}" + ("" if api is None or not message.endswith("Frame") else f" of API {api}")


class Ledger:
    """The evidence of a run, by (op, message, API), and the versions at which the adapter answered the suite."""

    def __init__(self, seed: int, covers: Callable[[str, str, int | None], bool] | None = None) -> None:
        self.seed, self.covers = seed, covers
        self.tallies: dict[tuple, Tally] = defaultdict(Tally)
        self.answered: dict[tuple, set] = defaultdict(set)  # key -> versions with a half the adapter did not decline
        self.unproven: list[str] = []  # the (op, message) whose passes went uncounted though it answered evidence
        self._witnesses: Counter = Counter()

    def record(self, key: tuple, version: int | None, half: Half, case_id: str) -> None:
        """A generated case's (or witness's) answer."""
        self.tallies[key].add(version, half, case_id)

    def counts(self, key: tuple) -> tuple[int, int]:
        """(evidence passed, evidence asked), a decline counted where the adapter answers the suite."""
        t = self.tallies[key]
        declined = sum(n for v, n in t.declined.items() if v in self.answered[key])
        return t.passed, t.passed + t.failed + declined

    def _enough(self, key: tuple) -> bool:
        passed, asked = self.counts(key)
        return passed >= MIN_EVIDENCE * EVIDENCE_RATE and passed >= asked * EVIDENCE_RATE

    def gather(self, impl: Implementation, key: tuple) -> None:
        """Ask witnesses of ``key`` while its evidence falls short of :data:`EVIDENCE_RATE` (or of
        :data:`MIN_EVIDENCE` answers, half of them passed), :data:`WITNESS_DRAWS` at most. A run's few cases of a
        message whose every other value an honest adapter gets wrong (say, the one in four with unknown tagged
        fields) pass under the rate now and then; the small values witnesses are settle it, and a table of the
        files fails them all the same."""
        op, message, api = key
        if message in FAMILIES:
            versions: list[int | None] = [None]
        else:
            versions = [v for m, v, a in generated_cells([message]) if a == api and op in cell_ops(m, v)]
            versions.sort(
                key=lambda v: (v not in self.answered[key], self.covers is not None and not self.covers(op, message, v))
            )
        if not versions:
            return
        while not self._enough(key) and self._witnesses[key] < WITNESS_DRAWS and not getattr(impl, "gone", None):
            k = self._witnesses[key]
            self._witnesses[key] += 1
            version = versions[k % len(versions)]
            tag = f"witness-{op}-{api}"
            if op == "assign":
                case = take_round(self.seed, k, message, tag=tag)
                if isinstance(case, str):
                    continue
                half, case_id = check_round(impl, case.expected, FAMILIES[message].compare), case.id
            else:
                drawn = take_case(self.seed, k, op, message, version, api, tag=tag)
                if isinstance(drawn, str):
                    continue
                half, case_id = check(impl, case_vector(drawn), op), drawn.id
            self.record(key, version, half, case_id)

    def settle(self, impl: Implementation, key: tuple, passes: list[tuple[Half, Callable[[Half], None]]]) -> None:
        """Credit the ``passes`` of ``key`` (each a pass and how to replace it), in order, as the module docstring
        says; witnesses are asked first where the evidence is short."""
        self.gather(impl, key)
        passed, asked = self.counts(key)
        share = 0.0 if not asked else min(1.0, passed / asked / EVIDENCE_RATE)
        if share >= 1.0:
            return
        t = self.tallies[key]
        credited = int(len(passes) * share)
        skipped = 0
        for half, replace in passes[credited:]:
            if half.key is not None and passed == 0 and t.failed:
                op, message, _ = key
                replace(
                    Half(
                        "fail",
                        f"rejected, but the adapter also {op}s no valid {message} input correctly ({t.failure}); "
                        "a rejection counts from an implementation of the message; decline with unsupported",
                    )
                )
            elif not passed and not t.failed:  # declined, every value asked: nothing to count, nothing faked
                why = f"declines valid {key[1]} input ({t.decline})" if t.decline else "has no valid input to ask"
                replace(Half("skip", f"no evidence: the adapter {why}"))
            else:
                skipped += 1
                replace(
                    Half(
                        "skip",
                        f"no evidence: the adapter passes {passed} of {asked} values nobody wrote down "
                        f"({_what(key)}), so {credited} of its {len(passes)} passes count; every pass counts from "
                        f"{EVIDENCE_RATE:.0%} of them",
                    )
                )
        if skipped:
            self.unproven.append(
                f"{_what(key)}: the adapter passes {passed} of {asked} generated cases and witnesses, so "
                f"{credited} of its {len(passes)} passes count ({EVIDENCE_RATE:.0%} are needed for all)"
            )
