"""The fuzz loop: mutated inputs for every target, the violations found, and the differential oracle.

:func:`run` is deterministic for its seed: a loop over the targets (:mod:`codec.fuzz.decoders`) and the
mutations of their seeds (:mod:`codec.fuzz.corpus`, :mod:`codec.fuzz.mutations`), counting inputs and
collecting each :class:`Violation`; with ``render`` every seed and every decoded input also goes through
:func:`codec.fuzz.rendering.render`. Where the native codec is installed the loop is also a *differential
oracle* (:func:`differential`): every input goes through its target with the native codec and again with the
pure-Python one, and any difference -- another value, another error class, message, offset or path, or a crash
on one side -- is a violation (``differential_check=False`` turns it off)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from ..errors import DecodeError
from ..shared import DEFAULT_SHARED, Shared
from .corpus import seed_corpus
from .decoders import Target, targets
from .mutations import mutate
from .rendering import render_outputs, rows_problems

__all__ = ["run", "differential", "FuzzReport", "Violation"]


@dataclass(frozen=True)
class Violation:
    target: str
    data: bytes
    error: str


@dataclass
class FuzzReport:
    inputs: int = 0
    decoded: int = 0
    rejected: int = 0
    rendered: int = 0  # decoded values taken through every output (render pass)
    compared: int = 0  # inputs also decoded by the pure-Python codec and compared (differential oracle)
    per_target: dict[str, int] = field(default_factory=dict)
    rendered_per_target: dict[str, int] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    slowest: float = 0.0


class _Renderer:
    """The render pass inside :func:`run`: each input's outputs at once, the pipeline's rows in batches."""

    BATCH = 256

    def __init__(self, report: FuzzReport) -> None:
        self.report = report
        self.pending: list[tuple[str, bytes]] = []

    def __call__(self, name: str, data: bytes, canonical: bool) -> None:
        try:
            problems = render_outputs(name, data, canonical)
        except Exception as e:  # noqa: BLE001 - a crash of an output is a finding too
            problems = [f"{type(e).__name__}: {e}"]
        self.report.rendered += 1
        self.report.rendered_per_target[name] = self.report.rendered_per_target.get(name, 0) + 1
        self.report.violations.extend(Violation(name, data, f"render: {p}") for p in problems)
        self.pending.append((name, data))
        if len(self.pending) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        batch, self.pending = self.pending, []
        for i, p in rows_problems(batch):
            self.report.violations.append(Violation(batch[i][0], batch[i][1], f"render: {p}"))


def _outcome(fn: Target, data: bytes) -> tuple:
    """What a target makes of ``data``, comparable across the two codecs: its value, or its error's class,
    text (message, version, offset, path) and offset; anything but a DecodeError as a crash."""
    try:
        return ("value", fn(data))
    except DecodeError as e:
        return ("error", type(e).__name__, str(e), e.offset)
    except Exception as e:  # noqa: BLE001 - compared, and reported, like the rest
        return ("crash", type(e).__name__, str(e))


def differential(fn: Target, data: bytes, native_outcome: tuple | None = None) -> str | None:
    """The difference between the native and the pure-Python codec on one input, or None when they agree
    (or there is no native codec). ``native_outcome``: :func:`_outcome` with the native codec, if already
    known."""
    from ..wire import native

    if not native.available():
        return None
    if native_outcome is None:
        old = native.set_active(True)
        try:
            native_outcome = _outcome(fn, data)
        finally:
            native.set_active(old)
    old = native.set_active(False)
    try:
        python = _outcome(fn, data)
    finally:
        native.set_active(old)
    if python == native_outcome or repr(python) == repr(native_outcome):  # repr: values holding exceptions
        return None  # (a capture's BadFile) compare so

    def said(o: tuple) -> str:
        return "a value" if o[0] == "value" else f"{o[1]}: {o[2]}"[:300]

    if python[0] == native_outcome[0] == "value":
        return "the native and the pure-Python codec decode to different values"
    return f"native {said(native_outcome)}; pure Python {said(python)}"


def run(
    n: int,
    *,
    seed: int = 0,
    only: list[str] | None = None,
    time_limit: float | None = None,
    max_seconds_per_input: float = 2.0,
    render: bool = False,
    render_seeds: int | None = None,
    shared: Shared = DEFAULT_SHARED,
    differential_check: bool = True,
) -> FuzzReport:
    """``n`` mutated inputs spread over the targets (round robin), deterministic for ``seed``. Random
    bytes are mixed in for every target. With ``render``, the seeds its target decodes (all of them, or the
    first ``render_seeds`` of each target), then every decoded input, also go through
    :func:`~codec.fuzz.rendering.render` (seeds first: a seed's canonical flag holds for its own bytes only).
    With ``differential_check`` (and the native codec installed), every input also goes through
    :func:`differential`."""
    from ..wire import native

    differential_check = differential_check and native.available()
    native_before = native.set_active(True) if differential_check else native.active()
    try:
        return _run(n, seed, only, time_limit, max_seconds_per_input, render, render_seeds, shared, differential_check)
    finally:
        native.set_active(native_before)


def _run(
    n: int,
    seed: int,
    only,
    time_limit,
    max_seconds_per_input: float,
    render: bool,
    render_seeds,
    shared,
    differential_check: bool,
) -> FuzzReport:
    rng = random.Random(seed)
    all_targets = targets()
    names = [t for t in all_targets if not only or any(t.startswith(o) for o in only)]
    corpus = seed_corpus(shared)
    pool = {k: [s.data for s in v] for k, v in corpus.items()}
    flat = [s for ss in pool.values() for s in ss]
    report = FuzzReport()
    renderer = _Renderer(report) if render else None
    start = time.monotonic()
    if renderer is not None:
        for name in names:
            # the seeds that decode first: a rejected seed renders nothing
            for s in sorted(corpus.get(name, ()), key=lambda s: s.accepted is not True)[:render_seeds]:
                try:
                    all_targets[name](s.data)
                except DecodeError:
                    continue
                except Exception as e:  # noqa: BLE001 - a seed that crashes its target is a finding too
                    report.violations.append(Violation(name, s.data, f"{type(e).__name__}: {e}"))
                    continue
                renderer(name, s.data, s.canonical)
    for i in range(n):
        if time_limit is not None and time.monotonic() - start > time_limit:
            break
        name = names[i % len(names)]
        own = pool.get(name) or []
        if own and rng.random() < 0.9:
            data = rng.choice(own)
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                data = mutate(data, rng, own or flat)
        else:
            data = rng.randbytes(rng.randint(0, 64))
        t0 = time.perf_counter()
        got = _outcome(all_targets[name], data)
        took = time.perf_counter() - t0
        ok = got[0] == "value"
        if ok:
            report.decoded += 1
        elif got[0] == "error":
            report.rejected += 1
        else:  # this is what we are hunting for
            report.violations.append(Violation(name, data, f"{got[1]}: {got[2]}"))
        if differential_check:
            problem = differential(all_targets[name], data, got)
            report.compared += 1
            if problem is not None:
                report.violations.append(Violation(name, data, f"differential: {problem}"))
        report.slowest = max(report.slowest, took)
        if took > max_seconds_per_input:
            report.violations.append(Violation(name, data, f"took {took:.2f} s"))
        if ok and renderer is not None:
            renderer(name, data, False)
        report.inputs += 1
        report.per_target[name] = report.per_target.get(name, 0) + 1
    if renderer is not None:
        renderer.flush()
    return report
