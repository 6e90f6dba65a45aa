"""Every command's budget: what one input may cost in output, memory and time (issue #31).

A command works in proportion to what it is given. For each command the table below states how many bytes of
output, bytes of peak memory and seconds one input may cost — a floor (what any input may cost, however
small) plus a small multiple of the input's size — and, where a shape of input would cost more than that by
nature (a name written once on the wire but once per item in Kafka's JSON, a compressed batch of millions of
records), the explicit cap that stops it with one clear error line or cuts the output and says so. The
amplification check of the fuzzer (:mod:`codec.fuzz.amplification`) runs every command under its budget;
``tests/fuzz/test_amplification.py`` holds the worst inputs it found.

"Input" is what the command reads: the message's bytes for ``decode`` (one line's with ``--lines``), the JSON text
for ``encode`` and ``assign``, the file for ``capture``, the scenario file for ``negotiate`` and ``simulate``, the
vector files for ``conformance``, the files and folders for ``pipeline``. An input a command reads whole is at most
:data:`codec.errors.MAX_WHOLE_INPUT` (256 MiB; one line of ``--lines`` too): past it, one error line. Memory is the
peak of what the command allocates for that input (the peak resident size, above what the process held before); time
is the CPU time of the run, on one core (the fuzzer allows a factor for the collector and caches).

=============  ==================  ==================  ==================  ================================
command        output              memory              time                caps (one error line, or a cut
                                                                           the output says it made)
=============  ==================  ==================  ==================  ================================
decode         64 KiB + 64 x in    64 MiB + 512 x in   1 s + 60 s/MiB      JSON past the output budget: one
                                                                           error line (``--format pretty``
                                                                           shows names once, grouped)
encode         64 KiB + 64 x in    64 MiB + 512 x in   1 s + 60 s/MiB      —
assign         4 MiB + 64 x in     64 MiB + 512 x in   1 s + 60 s/MiB      Connect (``--connect``): 10,000
                                                                           tasks, 512 Ki characters of
                                                                           names the assignments repeat
                                                                           (``codec.connect.constants``),
                                                                           hence the 4 MiB floor; a share
                                                                           group (``--share``): 100,000
                                                                           partitions, each name once
capture        1 MiB + 64 x in     64 MiB + 512 x in   1 s + 120 s/MiB     a segment's compressed batch:
                                                                           numbered as a broker numbers
                                                                           its records, decompressed to
                                                                           Kafka's max.message.bytes or
                                                                           128x: else a bad batch, its
                                                                           records not read
                                                                           (codec.capture.records); the
                                                                           story tells one
                                                                           member per 16 bytes (and 1,000),
                                                                           the rest counted as not told; a
                                                                           frame's JSON past its budget:
                                                                           the frame without it, saying so;
                                                                           lists in text cut at 64 items
                                                                           (events 200), counted. A .gz
                                                                           input counts as the bytes it
                                                                           decompresses to
negotiate      64 KiB + 64 x in    64 MiB + 512 x in   1 s + 60 s/MiB      scenario caps (members, steps)
simulate       16 MiB              256 MiB             60 s                scenario caps (instances, tasks,
                                                                           events, duration): fixed, not
                                                                           from the input's size
compat         64 KiB              64 MiB              5 s                 its options' bounds
kinds          64 KiB              64 MiB              5 s                 —
demo           64 KiB              64 MiB              5 s                 —
size           64 KiB              1 GiB               60 s                its options' bounds: a group of
                                                                           up to 1,000,000 tasks is built
                                                                           to be measured, and ``--find-
                                                                           limit`` sizes groups up to
                                                                           65,536 members
conformance    64 KiB + 64 x in    64 MiB + 512 x in   1 s + 60 s/MiB      through an adapter (``--impl``),
                                                                           its time too: ``--timeout`` a
                                                                           vector, ``--time-limit`` a run;
                                                                           its reply ``--max-reply-bytes``
vectors        16 MiB              256 MiB             60 s                ``vectors mutate``: the suite's
                                                                           mutants (about 1,250, half a
                                                                           second each on one core; fewer
                                                                           with ``--sample``), not from an
                                                                           input
pipeline       the tables: rows    Spark's             Spark's             a record's fields bounded as
               in proportion to    (``--driver-                            ``decode`` bounds them; a share
               the records         memory``)                               assignment's rows repeat its
                                                                           names in at most 256 x its
                                                                           bytes (and 1 MiB), a topic's
                                                                           partitions counted up to
                                                                           100,000: else the record is
                                                                           quarantined
fuzz           one line per        —                   ``--seconds``       ``--inputs``
               violation
=============  ==================  ==================  ==================  ================================

:data:`BUDGETS` holds the same figures for the commands the amplification check runs; :func:`json_text`
writes JSON within an output budget, stopping as soon as it is passed (so an input never costs the memory of
its whole JSON before it is refused).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import LimitExceededError
from .text import dumps_chunks

__all__ = ["BUDGETS", "Budget", "OverBudget", "json_text", "KIB", "MIB"]

KIB, MIB = 1 << 10, 1 << 20


@dataclass(frozen=True)
class Budget:
    """What one input of ``size`` bytes may cost (see the module docstring): a floor plus a multiple of the size."""

    output_floor: int
    output_per_byte: float
    memory_floor: int
    memory_per_byte: float
    seconds_floor: float
    seconds_per_mib: float

    def output(self, size: int) -> int:
        return int(self.output_floor + self.output_per_byte * size)

    def memory(self, size: int) -> int:
        return int(self.memory_floor + self.memory_per_byte * size)

    def seconds(self, size: int) -> float:
        return self.seconds_floor + self.seconds_per_mib * size / MIB


_PROPORTIONAL = Budget(64 * KIB, 64, 64 * MIB, 512, 1.0, 60.0)
_ASSIGN = Budget(4 * MIB, 64, 64 * MIB, 512, 1.0, 60.0)
_CAPTURE = Budget(1 * MIB, 64, 64 * MIB, 512, 1.0, 120.0)  # a segment's records decoded one by one
_FIXED = Budget(64 * KIB, 0, 64 * MIB, 0, 5.0, 0.0)
_SIZE = Budget(64 * KIB, 0, 1024 * MIB, 0, 60.0, 0.0)

#: The budget of each command the amplification check runs (the table of the module docstring).
BUDGETS: dict[str, Budget] = {
    "decode": _PROPORTIONAL,
    "encode": _PROPORTIONAL,
    "assign": _ASSIGN,
    "capture": _CAPTURE,
    "negotiate": _PROPORTIONAL,
    "conformance": _PROPORTIONAL,
    "simulate": Budget(16 * MIB, 0, 256 * MIB, 0, 60.0, 0.0),
    "compat": _FIXED,
    "size": _SIZE,
    "kinds": _FIXED,
    "demo": _FIXED,
}


class OverBudget(LimitExceededError):
    """JSON that would pass its output budget (see :func:`json_text`)."""


def json_text(
    value, limit: int, *, what: str = "the JSON", message: str | None = None, hint: str = "", **kwargs
) -> str:
    """``codec.text.dumps(value, **kwargs)``, or :class:`OverBudget` as soon as its UTF-8 passes ``limit`` bytes
    (the text is built chunk by chunk, so refusing costs no more than the limit). ``what`` and ``hint`` word
    the error."""
    parts: list[str] = []
    n = 0
    for chunk in dumps_chunks(value, **kwargs):
        n += len(chunk) if chunk.isascii() else len(chunk.encode("utf-8", "surrogatepass"))
        if n > limit:
            raise OverBudget(
                f"{what} would be more than {limit:,} bytes, past the output budget (codec.budget){hint}",
                message=message,
            )
        parts.append(chunk)
    return "".join(parts)
