"""The worked byte examples of ``kafka-wire-facts.md`` §13, read from the facts file itself."""

from __future__ import annotations

import re

from tests.conftest import SHARED

FACTS = SHARED / "spec" / "kafka-wire-facts.md"


def worked_examples() -> dict[str, bytes]:
    """``{"E1": bytes, ...}``: each example's leading hex tokens, concatenated."""
    text = FACTS.read_text(encoding="utf-8")
    out: dict[str, bytes] = {}
    for m in re.finditer(r"^(E\d+)\. .*?\n```\n(.*?)```", text, re.S | re.M):
        hexes = []
        for line in m.group(2).splitlines():
            tok = line.split()[0] if line.split() else ""
            if re.fullmatch(r"[0-9a-f]+", tok) and len(tok) % 2 == 0:
                hexes.append(tok)
        out[m.group(1)] = bytes.fromhex("".join(hexes))
    return out
