"""The reference adapter: the built-in codec behind the line protocol.

    python -m codec.conformance.adapter        # reads requests on stdin, answers on stdout

Other implementations write the same loop around their own codec; see vectors/ADAPTERS.md.
"""

from __future__ import annotations

import json
import sys

from .. import text as _text
from .impl import handle_request

__all__ = ["main"]


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            resp = handle_request(req)
        except json.JSONDecodeError as e:
            req, resp = {}, {"error": {"message": f"request is not JSON: {e}", "offset": None}}
        # protocol 2: every reply echoes the id of its request
        sys.stdout.write(_text.dumps({"id": req.get("id") if isinstance(req, dict) else None, **resp}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
