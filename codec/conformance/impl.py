"""Implementations under test: the built-in codec, or any program speaking the line protocol.

The line protocol, version 2 (vectors/ADAPTERS.md): one JSON request per line on the program's stdin, one JSON
reply per line on its stdout, in order; each request has an ``id`` (an integer, new for every request of a run)
and each reply echoes it::

    {"id": 1, "op": "capabilities", "protocol": 2}   # sent first: what the implementation does
    {"id": 2, "op": "decode", "message": "SubscriptionInfo", "version": 7, "wire": "<hex>"}
    {"id": 3, "op": "decode", ..., "readerVersion": 6}  # decode as a reader whose newest version is 6
    {"id": 4, "op": "decode", "message": "ResponseFrame", "apiKey": 14, "version": 3, "wire": "<hex>"}
    {"id": 5, "op": "encode", "message": "SubscriptionInfo", "version": 7, "value": {...}}
    {"id": 6, "op": "assign", "round": {...}}   # a rebalance round without its "assignments" (vectors/rebalance/)

    {"id": N, "value": {...}}  |  {"id": N, "wire": "<hex>"}  |  {"id": N, "assignments": {"<member>": "<hex>"}}
    |  {"id": N, "error": {"message": "...", "offset": 12}}  |  {"id": N, "unsupported": "<reason>"}  (skipped)
    |  {"id": 1, "capabilities": [{"op": "decode", "message": "JoinGroupResponse", "versions": "0-9"}, ...]}

A reply without the id, or with another request's, fails the request. Protocol 1 had no ids: an adapter that answers the first request without one is
refused with :class:`OldProtocolError`, which says how to upgrade.
"""

from __future__ import annotations

import os
import selectors
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Any, Protocol

from .. import text as _text
from ..cliutil import DuplicateKeyError, loads
from ..errors import DecodeError, EncodeError
from ..catalog import get_kind
from .messages import kind_of

__all__ = [
    "Outcome",
    "Implementation",
    "BuiltinImplementation",
    "CommandImplementation",
    "AdapterError",
    "OldProtocolError",
    "PROTOCOL",
    "handle_request",
    "read_back",
    "clip",
    "CLIP",
    "DEFAULT_TIMEOUT",
    "DEFAULT_MAX_REPLY",
    "DEFAULT_TIME_LIMIT",
    "STDERR_LINES",
]


@dataclass(frozen=True)
class Outcome:
    """One answer: a value (decode: the JSON value; encode: bytes; assign: {member: bytes}), a rejection
    (``error``: the protocol's error object, the only answer that counts as refusing the input), a decline
    (``declined``: ``{"unsupported": "<reason>"}``, the implementation does not do this; the case is skipped),
    or an adapter failure (``failure``: no answer, or one the protocol does not define), which fails whatever
    the vector expects."""

    value: Any = None
    error: dict | None = None
    failure: str | None = None
    declined: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.failure is None and self.declined is None

    @property
    def rejected(self) -> bool:
        return self.error is not None and self.failure is None


class Implementation(Protocol):
    name: str

    def decode(
        self,
        message: str,
        version: int | None,
        wire: bytes,
        reader_version: int | None = None,
        api_key: int | None = None,
    ) -> Outcome: ...

    def encode(self, message: str, version: int | None, value: dict, api_key: int | None = None) -> Outcome: ...

    def assign(self, round_: dict) -> Outcome: ...

    def capabilities(self) -> Outcome: ...

    def restart(self) -> None: ...

    def close(self) -> None: ...


def handle_request(req: dict) -> dict:
    """Answer one line-protocol request with the built-in codec (the reference adapter's core)."""
    try:
        if req.get("op") == "capabilities":  # every message, every version, and the leader
            from .messages import MESSAGES

            return {"capabilities": [{"op": ["decode", "encode"], "message": list(MESSAGES)}, {"op": "assign"}]}
        if req.get("op") == "assign":
            from ..assignor.consumer.gate_rounds import assign_consumer_round
            from ..assignor.consumer.gate_server import assign_server_round
            from .rebalance import run_round

            # a round naming a consumerAssignor is a consumer group's (ConsumerRound, ConsumerRackRound), one naming
            # a serverAssignor KIP-848's coordinator's (ServerAssignorRound), every other one Streams'
            rnd = req["round"]
            leader = (
                assign_server_round
                if "serverAssignor" in rnd
                else assign_consumer_round
                if "consumerAssignor" in rnd
                else run_round
            )
            return {"assignments": {m: b.hex() for m, b in leader(req["round"]).items()}}
        kind = get_kind(kind_of(req["message"]))
        version = req.get("version")
        opts = {"api_key": req["apiKey"]} if req.get("apiKey") is not None else {}
        if req["op"] == "decode":
            wire = bytes.fromhex(req["wire"])
            if req.get("readerVersion") is not None:
                opts["latest"] = req["readerVersion"]
            return {"value": kind.decode(wire, style="kafka", version=version, **opts).value}
        if req["op"] == "encode":
            return {"wire": kind.encode(req["value"], style="kafka", version=version, **opts).hex()}
        return {"error": {"message": f"unknown op {req['op']!r}", "offset": None}}
    except (DecodeError, EncodeError) as e:  # an InputError (no to_json) is a bad request, below
        j = e.to_json()
        return {"error": {"message": j["message"], "offset": j["offset"], "path": j["path"]}}
    except (KeyError, ValueError, TypeError) as e:  # AssignmentError is a ValueError
        return {"error": {"message": f"bad request: {e}", "offset": None}}


def read_back(message: str, version: int | None, wire: bytes, api_key: int | None = None) -> Outcome:
    """The built-in codec's reading of bytes an implementation *wrote*: a value, or an error, which bytes after the end
    of the message are too. Kafka's readers ignore such bytes (and so does :func:`handle_request`), but no writer of
    Kafka's writes them: an encoder that appends junk has not written the message."""
    try:
        opts = {"api_key": api_key} if api_key is not None else {}
        got = get_kind(kind_of(message)).decode(wire, style="kafka", version=version, **opts)
    except (DecodeError, EncodeError) as e:
        j = e.to_json()
        return Outcome(error={"message": j["message"], "offset": j["offset"], "path": j["path"]})
    except (KeyError, ValueError, TypeError) as e:
        return Outcome(error={"message": f"bad request: {e}", "offset": None})
    if got.trailing:
        n, at = got.trailing["bytes"], got.trailing["offset"]
        return Outcome(
            error={"message": f"{n} byte{'' if n == 1 else 's'} after the end of the {message} at offset {at}"}
        )
    return Outcome(value=got.value)


class BuiltinImplementation:
    name = "rebalance-codec (built-in)"

    @property
    def trusted(self) -> bool:
        """The reference itself, whose passes need no evidence (:mod:`codec.conformance.evidence`); a subclass that
        changes an answer is an implementation under test like any other."""
        return type(self) is BuiltinImplementation

    def decode(self, message, version, wire, reader_version=None, api_key=None) -> Outcome:
        return _outcome(
            handle_request(
                {
                    "op": "decode",
                    "message": message,
                    "version": version,
                    "wire": wire.hex(),
                    "readerVersion": reader_version,
                    "apiKey": api_key,
                }
            )
        )

    def encode(self, message, version, value, api_key=None) -> Outcome:
        return _outcome(
            handle_request({"op": "encode", "message": message, "version": version, "value": value, "apiKey": api_key})
        )

    def assign(self, round_: dict) -> Outcome:
        return _outcome(handle_request({"op": "assign", "round": round_}))

    def capabilities(self) -> Outcome:
        return _outcome(handle_request({"op": "capabilities"}))

    def restart(self) -> None:
        pass

    def close(self) -> None:
        pass


def _outcome(resp: Any) -> Outcome:
    """Read one reply. Only ``{"error": {"message": "..."}}`` is a rejection; any other shape is the
    adapter's failure, never a pass. Every text of the adapter's kept here (an error message, a reason to
    decline) is clipped to :data:`CLIP` characters, its full length said."""
    if not isinstance(resp, dict):
        return Outcome(failure=f"adapter answered {_clip(resp)}, not a JSON object")
    if "error" in resp:
        err = resp["error"]
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return Outcome(error={"message": clip(err["message"])})
        return Outcome(failure=f'adapter answered an error that is not {{"message": "..."}}: {_clip(err)}')
    if "unsupported" in resp:
        if isinstance(resp["unsupported"], str):
            return Outcome(declined=clip(resp["unsupported"]))
        return Outcome(failure=f"adapter answered unsupported without a string reason: {_clip(resp['unsupported'])}")
    if "capabilities" in resp:
        return Outcome(value=resp["capabilities"])
    if "wire" in resp:
        try:
            return Outcome(value=bytes.fromhex(resp["wire"]))
        except (TypeError, ValueError):
            return Outcome(failure=f"adapter answered a wire that is not hex: {_clip(resp['wire'])}")
    if "value" in resp:
        return Outcome(value=resp["value"])
    if "assignments" in resp:
        try:
            return Outcome(value={str(m): bytes.fromhex(h) for m, h in resp["assignments"].items()})
        except (AttributeError, TypeError, ValueError):
            return Outcome(failure="adapter answered assignments that are not {member: hex}")
    return Outcome(failure=f"adapter answered neither value, wire, assignments, error nor unsupported: {_clip(resp)}")


CLIP = 300  # characters of one adapter text (a reason, an error message, a member list) a report keeps


def clip(text: str, limit: int = CLIP) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was: an adapter's text is stored (in every
    result, the JSON and JUnit reports) only so clipped, whatever it wrote."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _clip(v: Any, n: int = 200) -> str:
    s = _text.printable(_text.dumps(v))
    return s if len(s) <= n else s[: n - 3] + "..."


DEFAULT_TIMEOUT = 10.0  # seconds per request
DEFAULT_MAX_REPLY = 64 * 1024 * 1024  # bytes of one reply line
DEFAULT_TIME_LIMIT = 1800.0  # seconds for a whole run through an adapter
MAX_REPLY_PARTS = 1_000_000  # objects, arrays and strings in one reply (the largest vector's value has 600)
TIMEOUT_STARTS = 3  # starts in a row that each end in a timeout: the adapter is given up
_STDERR_RING = 64 * 1024  # bytes of the adapter's stderr kept (the newest)
_STDERR_TAIL = 2000  # characters of it a failure quotes
_STDERR_HEAD = 8 * 1024  # bytes of the start of each start's stderr kept
STDERR_LINES = 12  # lines of an adapter's stderr shown when it is given up
_STDERR_READ = 4 * 1024 * 1024  # bytes of stderr read at most per drain (an adapter may write it forever)


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL to the adapter's process group (its own: :meth:`CommandImplementation._spawn`), and to the process
    itself should the group be gone."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # the group has no process left (or is not ours any more)
        pass
    if proc.returncode is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass


class AdapterError(ValueError):
    """The adapter command cannot be started (empty, unparseable, not found), or speaks another protocol."""


class OldProtocolError(AdapterError):
    """The adapter answered the first request as protocol 1 did (its reply has no request id)."""


PROTOCOL = 2  # the line protocol's version: 2 added the request id every reply echoes


class CommandImplementation:
    """Any program that speaks the line protocol, started once and fed one request per line.

    Bounds, each ending in a failure that says which (never a hang, never unbounded memory):

    * each request has ``timeout`` seconds and each reply at most ``max_reply`` bytes and
      :data:`MAX_REPLY_PARTS` objects, arrays and strings (read, each is a Python object: 64 MiB of ``[]`` would
      be gigabytes). An adapter that exits, hangs, or writes past the cap without a newline fails that request
      (with the tail of its stderr) and is restarted;
    * it is given up (every further request fails at once) when it has answered nothing since it was
      (re)started, or when :data:`TIMEOUT_STARTS` starts in a row each ended in a timeout (an adapter that
      answers once a start and then hangs), or when the run's ``time_limit`` is spent;
    * its stderr is drained while it is asked and only the newest :data:`_STDERR_RING` bytes are kept.

    :meth:`restart` goes on with a fresh process (the runner asks the reading half of a run from one that never
    saw the writing half's requests), started early by :meth:`prepare_restart` so it loads meanwhile."""

    def __init__(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_reply: int = DEFAULT_MAX_REPLY,
        time_limit: float | None = DEFAULT_TIME_LIMIT,
    ) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as e:
            raise AdapterError(f"--impl {command!r} is not a command line: {e}") from None
        if not self.argv:
            raise AdapterError("--impl needs a command (leave it out to test the built-in codec)")
        self.name = command
        self.timeout, self.max_reply, self.time_limit = timeout, max_reply, time_limit
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        self.proc: subprocess.Popen | None = None
        self.gave_up: str | None = None
        self.stderr_lines: list[str] = []  # the stderr of the start after which it was given up (_stderr_lines)
        self._timeouts_in_a_row = 0
        self._spare: subprocess.Popen | None = None
        self._last_id = 0  # request ids count up over the whole run, across starts: no reply matches two requests
        self._unversioned: dict | None = None  # the last reply, when it carried no id
        self._start()

    def _spawn(self) -> subprocess.Popen:
        """Start the adapter in a process group of its own (a new session): a wrapper (``sh run.sh``, ``npm start``,
        ``gradle run``) and what it starts are stopped together (:meth:`_stop_process`)."""
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as e:
            from ..cliutil import cannot_start

            raise AdapterError(f"cannot start {self.name!r}: {cannot_start(self.argv, e)}") from None
        for f in (proc.stdin, proc.stdout, proc.stderr):
            assert f is not None  # all three are pipes
            os.set_blocking(f.fileno(), False)
        return proc

    def _start(self, proc: subprocess.Popen | None = None) -> None:
        self.proc = proc or self._spawn()
        self._buffer = bytearray()  # what the adapter wrote past its last reply's newline
        self._stderr = bytearray()
        self._stderr_head = bytearray()  # the first bytes of this start's stderr (where a failing start says why)
        self._stderr_cut = False  # whether it wrote more than them
        self.answered = 0

    def _drain_stderr(self, limit: int = _STDERR_READ) -> bool:
        """Read what the adapter wrote to stderr (at most ``limit`` bytes now), keeping the newest bytes.
        Returns whether its stderr has ended."""
        proc = self.proc
        if proc is None or proc.stderr is None or proc.stderr.closed:
            return True
        read = 0
        while read < limit:
            try:
                chunk = os.read(proc.stderr.fileno(), 1 << 16)
            except BlockingIOError:
                return False
            except OSError:
                return True
            if not chunk:
                return True
            read += len(chunk)
            room = _STDERR_HEAD - len(self._stderr_head)
            self._stderr_head += chunk[: max(room, 0)]
            self._stderr_cut = self._stderr_cut or len(chunk) > room
            self._stderr += chunk
            if len(self._stderr) > 2 * _STDERR_RING:
                del self._stderr[:-_STDERR_RING]
        return False

    def _stderr_lines(self) -> list[str]:
        """The adapter's stderr of its last start as lines to show a person: the first :data:`STDERR_LINES` of them
        (where a failing start says why), and the last few when there are more (where a traceback names the error);
        each printable, at most :data:`CLIP` characters."""
        self._drain_stderr()
        head = bytes(self._stderr_head).decode("utf-8", "replace").splitlines()
        if not self._stderr_cut and len(head) <= STDERR_LINES:
            lines = head
        else:
            tail = bytes(self._stderr[-_STDERR_TAIL * 4 :]).decode("utf-8", "replace").splitlines()[1:][-3:]
            lines = [*head[: STDERR_LINES - 3], "...", *tail]
        return [clip(_text.printable(ln.rstrip())) for ln in lines]

    def _stderr_tail(self) -> str:
        self._drain_stderr()
        tail = bytes(self._stderr[-_STDERR_TAIL * 4 :]).decode("utf-8", "replace").strip()[-_STDERR_TAIL:]
        return f"; its stderr ends: {_text.printable(tail)}" if tail else ""

    def _unasked(self, out_fd: int) -> str | None:
        """What the adapter wrote to stdout since its last reply, before this request was sent (a second reply, a
        log line): read as the next reply, it would answer this request with another's answer, and every reply
        after it too. The reason to fail the request (and start the adapter afresh), else None."""
        while len(self._buffer) <= self.max_reply:
            try:
                chunk = os.read(out_fd, 1 << 16)
            except (BlockingIOError, OSError):
                break
            if not chunk:
                break
            self._buffer += chunk
        if not self._buffer:
            return None
        extra = bytes(self._buffer[:200])
        self._buffer.clear()
        return (
            "adapter wrote to stdout when it was not asked (one reply line a request, logs to stderr): "
            + _text.printable(repr(extra))
        )

    def _exchange(self, data: bytes) -> bytes | tuple[str, bool]:
        """Send one request line, read one reply line: the line, or (the reason there is none, whether it
        was a timeout)."""
        proc = self.proc
        assert proc and proc.stdin and proc.stdout and proc.stderr
        now = time.monotonic()
        deadline = now + self.timeout
        run_ends = self.deadline is not None and self.deadline < deadline
        if self.deadline is not None and run_ends:
            deadline = self.deadline
        out_fd, in_fd, err_fd = proc.stdout.fileno(), proc.stdin.fileno(), proc.stderr.fileno()
        unasked = self._unasked(out_fd)
        if unasked is not None:
            return unasked, False
        pending = memoryview(data)
        with selectors.DefaultSelector() as sel:
            sel.register(out_fd, selectors.EVENT_READ)
            sel.register(err_fd, selectors.EVENT_READ)
            if pending:
                sel.register(in_fd, selectors.EVENT_WRITE)
            scanned = 0  # each byte searched once: a reply read in many pieces costs its size, not its square
            while True:
                newline = self._buffer.find(b"\n", scanned)
                if newline >= 0:
                    line = bytes(self._buffer[:newline])
                    del self._buffer[: newline + 1]
                    return line
                scanned = len(self._buffer)
                if len(self._buffer) > self.max_reply:
                    return f"adapter wrote more than {self.max_reply} bytes without a newline", False
                left = deadline - time.monotonic()
                if left <= 0:
                    if run_ends:
                        return f"the run's time limit of {self.time_limit:g} s ran out waiting for an answer", False
                    return f"adapter did not answer within {self.timeout:g} s", True
                for key, _ in sel.select(left):
                    if key.fd == err_fd:
                        if self._drain_stderr(1 << 20):  # its stderr ended: it closed it or exited
                            sel.unregister(err_fd)
                    elif key.fd == in_fd:
                        try:
                            n = os.write(in_fd, pending[:65536])
                        except BlockingIOError:
                            continue
                        except (BrokenPipeError, OSError):
                            sel.unregister(in_fd)
                            pending = memoryview(b"")
                            continue
                        pending = pending[n:]
                        if not pending:
                            sel.unregister(in_fd)
                    else:
                        try:
                            chunk = os.read(out_fd, 1 << 20)
                        except BlockingIOError:
                            continue
                        if not chunk:
                            try:
                                status = proc.wait(timeout=1)
                            except subprocess.TimeoutExpired:
                                status = None
                            return f"adapter exited (status {status}) without answering", False
                        self._buffer += chunk

    @property
    def gone(self) -> str | None:
        """Why the adapter is given up (every further request would fail at once without being sent), else None: the
        runner asks nothing more of it then, and counts what is left as not run."""
        if not self.gave_up and self.deadline is not None and time.monotonic() >= self.deadline:
            self.gave_up = f"the run's time limit of {self.time_limit:g} s is spent (--time-limit)"
        return self.gave_up

    def _ask(self, req: dict) -> Outcome:
        """Send ``req`` with the next request id and read its reply: an :class:`Outcome`, a failure whenever the reply
        is not one line of JSON naming that id (:data:`PROTOCOL`)."""
        self._unversioned = None
        if self.gone:
            return Outcome(failure=f"not run: {self.gave_up}")
        self._last_id += 1
        request_id = self._last_id
        line = self._exchange((_text.dumps({"id": request_id, **req}) + "\n").encode("utf-8"))
        if isinstance(line, tuple):  # no reply: the adapter's state is unknown, so it starts afresh
            why, timed_out = line
            self._stop(kill=True)
            self._timeouts_in_a_row = self._timeouts_in_a_row + 1 if timed_out else 0
            if self.answered == 0:
                self.gave_up = f"the adapter answered nothing ({why})"
            elif self._timeouts_in_a_row >= TIMEOUT_STARTS:
                self.gave_up = f"the adapter timed out after each of its last {TIMEOUT_STARTS} starts (the last: {why})"
            elif self.deadline is not None and time.monotonic() >= self.deadline:
                self.gave_up = f"the run's time limit of {self.time_limit:g} s is spent (--time-limit)"
            if self.gave_up:  # its stderr is shown once, as lines, by the run's report (stderr_lines), not here
                self.stderr_lines = self._stderr_lines()
                return Outcome(failure=clip(why, 2 * _STDERR_TAIL))
            reason = clip(why + self._stderr_tail(), 2 * _STDERR_TAIL)
            self._start()
            return Outcome(failure=reason)
        self.answered += 1
        parts = line.count(b"{") + line.count(b"[") + line.count(b'"') // 2
        if parts > MAX_REPLY_PARTS:  # each one a Python object dozens of bytes large: refused before it is read
            return Outcome(
                failure=f"adapter answered a line of {parts} objects, arrays and strings "
                f"(more than {MAX_REPLY_PARTS} are not read)"
            )
        try:
            reply = loads(line.decode("utf-8"))
        except DuplicateKeyError as e:  # which of the two values was meant cannot be told
            return Outcome(failure=f"adapter answered JSON with a {_text.printable(str(e))}")
        except (ValueError, RecursionError):  # not UTF-8, not JSON, or JSON this reader refuses (huge integers)
            return Outcome(failure=f"adapter answered a line that is not JSON: {_text.printable(repr(line[:200]))}")
        if isinstance(reply, dict):
            if "id" not in reply:
                self._unversioned = reply
                return Outcome(
                    failure=f'adapter answered without the request\'s "id" ({request_id}): in protocol {PROTOCOL} '
                    "every reply echoes the id of the request it answers (vectors/ADAPTERS.md)"
                )
            answered = reply.pop("id")
            if type(answered) is not int or answered != request_id:  # a reply written for another request
                return Outcome(
                    failure=f"adapter answered request {_clip(answered, 40)}, not this one ({request_id}): a reply "
                    "counts only for the request whose id it echoes"
                )
        return _outcome(reply)

    def decode(self, message, version, wire, reader_version=None, api_key=None) -> Outcome:
        req = {"op": "decode", "message": message, "version": version, "wire": wire.hex()}
        if reader_version is not None:
            req["readerVersion"] = reader_version
        if api_key is not None:
            req["apiKey"] = api_key
        return self._ask(req)

    def encode(self, message, version, value, api_key=None) -> Outcome:
        req = {"op": "encode", "message": message, "version": version, "value": value}
        if api_key is not None:
            req["apiKey"] = api_key
        return self._ask(req)

    def assign(self, round_: dict) -> Outcome:
        return self._ask({"op": "assign", "round": round_})

    def capabilities(self) -> Outcome:
        """The optional first request, which names the protocol's version. An adapter that dies or hangs on it is
        started again and asked everything: not knowing the op is no reason to give it up. One that answers it as
        protocol 1 did (a reply without the request's id) is refused: :class:`OldProtocolError`."""
        out = self._ask({"op": "capabilities", "protocol": PROTOCOL})
        old = self._unversioned
        if old is not None and _outcome(old).failure is None:  # a reply protocol 1 defines, less the id
            raise OldProtocolError(
                f'the adapter {self.name!r} speaks protocol 1: its replies carry no "id". This runner speaks '
                f'protocol {PROTOCOL}, where each request has an "id" and each reply echoes it (one line in the '
                'adapter: reply["id"] = request["id"]; vectors/ADAPTERS.md, "Protocol versions")'
            )
        if out.failure and self.gave_up and self.proc is None:
            if self.stderr_lines:  # the last line (a traceback's error) here; all of them if it is given up later
                out = Outcome(failure=clip(f"{out.failure}; its stderr ends: {self.stderr_lines[-1]}", 2 * CLIP))
            self.gave_up = None
            self._timeouts_in_a_row = 0
            self._start()
        return out

    def prepare_restart(self) -> None:
        """Start the process :meth:`restart` switches to now, so that it loads while this one is asked (it is sent
        nothing until then)."""
        if self._spare is None and not self.gave_up:
            self._spare = self._spawn()

    def restart(self) -> None:
        """Stop the adapter and go on with a fresh process, one that was sent nothing yet (unless it was given
        up)."""
        spare, self._spare = self._spare, None
        if self.gave_up:
            if spare is not None:
                self._stop_process(spare, kill=True)
            return
        self._stop()
        self._start(spare)

    def _stop(self, *, kill: bool = False) -> None:
        if self.proc is not None:
            self._drain_stderr()
            self._stop_process(self.proc, kill=kill)
        self.proc = None

    @staticmethod
    def _stop_process(proc: subprocess.Popen, *, kill: bool) -> None:
        """Stop one start of the adapter: killed at once (``kill``), else its stdin closed and two seconds to exit.
        Either way its whole process group is killed after it: a wrapper killed on a timeout leaves no adapter
        running, and neither does one that exits while a child it started goes on."""
        if kill:
            _kill_group(proc)
        for f in (proc.stdin, proc.stdout):
            try:
                if f is not None:  # never None: _spawn makes pipes of all three
                    f.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.wait()
        _kill_group(proc)
        if proc.stderr is not None:
            proc.stderr.close()

    def close(self) -> None:
        self._stop()
        if self._spare is not None:
            self._stop_process(self._spare, kill=True)
            self._spare = None
