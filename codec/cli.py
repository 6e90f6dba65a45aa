"""The ``rebalance-codec`` command line: the contract that tests and CI gates rely on.

JSON goes to stdout, diagnostics to stderr. Exit status: 0 on success; 1 when any input failed
(with ``--lines``, when any line failed); 2 for usage errors.
"""

from __future__ import annotations

import json
import os
import sys
from types import ModuleType, SimpleNamespace


class _LazyModule(ModuleType):
    """A standard-library module imported on first use (see :func:`_defer_inspect`)."""

    def __getattr__(self, attr: str):
        import importlib

        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        module = importlib.import_module(name)
        sys.modules[name] = module
        return getattr(module, attr)


def _defer_inspect() -> None:
    """``dataclasses`` imports ``inspect`` (with ast, dis and tokenize: a third of a decode call's start-up)
    but uses it only for a class without a docstring. For the command line, ``inspect`` is imported on first
    use instead: until then ``sys.modules`` holds a stand-in that imports it and hands its attributes over."""
    if "inspect" not in sys.modules and "dataclasses" not in sys.modules:
        sys.modules["inspect"] = _LazyModule("inspect")


_defer_inspect()  # before the imports below, which import dataclasses
from . import text as _text  # noqa: E402
from .errors import (  # noqa: E402
    MAX_WHOLE_INPUT,
    CodecError,
    DecodeError,
    InputError,
    os_error_text,
    read_whole,
    stdin_bytes,
)
from .catalog import get_kind, kind_names  # noqa: E402

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from typing import Iterator

__all__ = ["main", "build_parser", "run"]


def _read_input(arg: str | None) -> bytes | str:
    """INPUT: the value itself (a hex string for decode, JSON text for encode: a str), or the bytes of
    ``@path`` (raw bytes / a JSON file) or of stdin (``-``/absent)."""
    if arg is None or arg == "-":
        return read_whole(stdin_bytes(), "stdin")
    if arg.startswith("@"):
        return read_whole(arg[1:])  # (not pathlib: its imports would cost a decode call's start-up)
    return arg


def _read_input_text(arg: str | None) -> str:
    """INPUT as text. Text must be UTF-8: a byte that is not is an error, never a silent U+FFFD or surrogate
    escape."""
    given = _read_input(arg)
    return given if isinstance(given, str) else _utf8(given)


def _utf8(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DecodeError(f"input is not UTF-8 ({e.reason})", message="input", offset=e.start) from None


def _hex_to_bytes(text: str, *, say: bool = True) -> bytes:
    """Hex as people copy it (:mod:`codec.hexinput`): plain, with colons, or a hex dump; the form read is said on
    stderr (``say``) unless it is plain hex."""
    from .hexinput import parse_hex

    data, note = parse_hex(text)
    if note and say:
        _say("note", note)
    return data


def _parse_json(text: str):
    """JSON input; any way it is not JSON this codec reads is a ``DecodeError`` on the input (a
    ``json.JSONDecodeError`` keeps its own type, with its offset; an object holding one key twice is refused)."""
    from .cliutil import loads

    try:
        return loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise DecodeError("input is not JSON this codec reads: it nests too deeply", message="input") from None
    except ValueError as e:  # e.g. an integer of more than 4,300 digits
        raise DecodeError(f"input is not JSON this codec reads: {e}", message="input") from None


def _say(what: str, message) -> None:
    """One diagnostic line on stderr; wire strings inside it cannot break the line or the terminal."""
    print(f"{what}: {_text.printable(str(message))}", file=sys.stderr)


def _dump(value) -> str:
    return _text.dumps(value, separators=(",", ":"))


def _error_json(e: Exception) -> dict:
    if isinstance(e, CodecError):
        return {"error": e.to_json()}
    if isinstance(e, json.JSONDecodeError):
        return {"error": {"type": "JSONDecodeError", "message": f"input is not JSON: {e}", "offset": e.pos, "path": ""}}
    if isinstance(e, RecursionError):
        return {"error": {"type": "RecursionError", "message": "input nests too deeply", "offset": None, "path": ""}}
    return {"error": {"type": type(e).__name__, "message": str(e), "offset": None, "path": ""}}


def _opts(args) -> dict:
    opts = {
        k: getattr(args, k) for k in ("api_key", "drop_unrepresentable", "request_kind", "assignor") if hasattr(args, k)
    }
    if getattr(args, "max_size", None) is not None:
        opts["max_size"] = args.max_size
    return opts


def _decode_one(kind, data: bytes, args):
    return kind.decode(data, style=args.style, version=args.version, **_opts(args))


def _value(decoded) -> object:
    """The JSON of a decode, with ``trailing`` (offset and count of the bytes after the message, which Kafka
    ignores) when there are any."""
    if decoded.trailing and isinstance(decoded.value, dict):
        return {**decoded.value, "trailing": decoded.trailing}
    return decoded.value


def _json_of(kind, data: bytes, decoded, **kwargs) -> str:
    """The decode's JSON, within ``decode``'s output budget for ``data`` (:mod:`codec.budget`): past it, one
    error instead (Kafka's JSON repeats a name the bytes write once for each of its items)."""
    from .budget import BUDGETS, json_text

    return json_text(
        _value(decoded),
        BUDGETS["decode"].output(len(data)),
        message=kind.name,
        what=f"the JSON of these {len(data):,} bytes",
        hint=": Kafka's JSON repeats a name the bytes write once for each of its items "
        "(--format pretty shows each name once)",
        **kwargs,
    )


def _decode_as_given(kind, data: bytes, args, *, raw_file: bool):
    """Decode ``data``; where that fails, the two ways people hand over bytes that are not the message itself, each
    taken only when it decodes, and then said: a Kafka frame's 4-byte size in front (``tshark -e tcp.payload``, a
    TCP stream), and a file of hex text given as ``@path`` (which reads raw bytes)."""
    from .hexinput import parse_hex, size_prefixed

    try:
        return _decode_one(kind, data, args), data
    except CodecError as first:
        alternatives: list[tuple[bytes, str]] = []
        if raw_file:
            try:
                hexed, form = parse_hex(data.decode("ascii"))
                alternatives.append((hexed, f"the file holds hex text: {form or 'read as hex'}"))
            except (UnicodeDecodeError, DecodeError):
                pass
        for candidate, why in [*alternatives, (data, "")]:
            if size_prefixed(candidate):
                n = len(candidate) - 4
                prefix = f"the first 4 bytes ({candidate[:4].hex(' ')}) are a frame's size, {n:,}: read the {n:,} bytes after them"
                alternatives.append((candidate[4:], f"{why}; {prefix}" if why else prefix))
        for candidate, why in alternatives:
            try:
                decoded = _decode_one(kind, candidate, args)
            except CodecError:
                continue
            _say("note", why)
            return decoded, candidate
        raise first


def cmd_decode(args) -> int:
    kind = get_kind(args.kind)
    if args.lines:

        def decode_line(line: str) -> str:
            data = _hex_to_bytes(line, say=False)
            return _json_of(kind, data, _decode_one(kind, data, args), separators=(",", ":"))

        return _lines(args, decode_line, str)
    given = _read_input(args.input)
    raw_file = False
    if isinstance(given, str):  # hex given as the value (a non-ASCII character: "?", which the hex check refuses)
        data = _hex_to_bytes(given.encode("ascii", "replace").decode("ascii"))
    elif args.input is None or args.input == "-":  # hex on stdin (or the raw bytes, piped in)
        given = _gunzipped(given, "stdin")
        data, raw_file = _stdin_bytes(given)
    else:  # @path: the raw bytes (or hex text)
        data, raw_file = _gunzipped(given, args.input[1:]), True
    try:
        decoded, data = _decode_as_given(kind, data, args, raw_file=raw_file)
        text = (
            decoded.pretty
            if args.format == "pretty"
            else _json_of(kind, data, decoded, indent=None if args.compact else 2)
        )
    except CodecError as e:
        _say("error", f"{e}{_what_it_is(data, args.input) if raw_file else ''}")
        return 1
    for note in decoded.notes:
        _say("note", note)
    print(text)
    return 0


def _gunzipped(data: bytes, name: str) -> bytes:
    """``data``, decompressed (within :data:`~codec.errors.MAX_WHOLE_INPUT`) when it is a gzip stream (its
    magic, whatever the name), which a note then says."""
    if data[:2] != b"\x1f\x8b":
        return data
    import gzip
    import io
    import zlib

    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
            out = read_whole(f, name)
    except (OSError, EOFError, zlib.error) as e:
        raise InputError(f"{name}: a gzip stream that cannot be read: {e}") from None
    _say("note", f"{name} is gzipped: read decompressed ({len(out):,} bytes)")
    return out


def _stdin_bytes(given: bytes) -> tuple[bytes, bool]:
    """The bytes of stdin: hex text (as the value takes it), or, when it is not text, the message's own bytes
    (``decode --kind K - < frame.bin``), said in a note; and whether they are raw bytes."""
    from .sniff import is_text

    if not given or is_text(given[:4096]):
        return _hex_to_bytes(given.decode("ascii", "replace")), False
    _say("note", f"stdin holds bytes, not hex text: decoding its {len(given):,} bytes as they are")
    return given, True


def _what_it_is(data: bytes, arg: str | None) -> str:
    """For a failed decode of a file (or of stdin's raw bytes): what the input looks like, where it is text,
    which is neither a message's bytes nor hex."""
    from .sniff import is_text, looks_like

    if not is_text(data[:4096]):
        return ""
    name = "stdin" if arg in (None, "-") else (arg or "").removeprefix("@")
    return f" ({name} looks like {looks_like(data)}, neither a message's bytes nor hex)"


def cmd_encode(args) -> int:
    kind = get_kind(args.kind)

    def encode_line(line: str) -> bytes:
        value = _parse_json(line)
        return kind.encode(value, style=args.style, version=args.version, **_opts(args))

    if args.lines:
        return _lines(args, encode_line, lambda b: b.hex())
    text = _read_input_text(args.input)
    try:
        print(encode_line(text).hex())
    except json.JSONDecodeError as e:
        from .sniff import json_hint

        hint = json_hint(text) if args.input is None or args.input[:1] in "@-" else ""
        _say("error", f"input is not JSON: {hint or e}")
        return 1
    except CodecError as e:
        _say("error", e)
        return 1
    return 0


def _input_lines(args) -> Iterator[bytes | InputError]:
    """The lines of stdin or ``@file``, split at LF alone: a CR, U+2028 or any other character inside a line
    stays in it, so the output has exactly one line per input line. A line of more than
    :data:`~codec.errors.MAX_WHOLE_INPUT` bytes is read past in pieces and given as its error."""
    from_file = bool(args.input and args.input.startswith("@"))
    f = open(args.input[1:], "rb") if from_file else stdin_bytes()
    try:
        if not hasattr(f, "peek"):  # a stdin without peek is one a caller gave, already in memory (io.BytesIO)
            import io

            f = io.BufferedReader(io.BytesIO(f.read()))
        source = f
        if f.peek(2)[:2] == b"\x1f\x8b":  # gzipped (its magic, whatever the name): read decompressed
            import gzip

            source = gzip.GzipFile(fileobj=f)
        n = 0
        while True:
            try:
                raw = source.readline(MAX_WHOLE_INPUT + 1)
                if len(raw) > MAX_WHOLE_INPUT and not raw.endswith(b"\n"):
                    while (rest := source.readline(1 << 20)) and not rest.endswith(b"\n"):
                        pass
            except (EOFError, OSError, _zlib_error()) as e:  # a cut or corrupt gzip stream
                yield InputError(f"line {n + 1}: the gzip stream cannot be read past line {n}: {e}")
                return
            if not raw:
                return
            n += 1
            if len(raw) > MAX_WHOLE_INPUT and not raw.endswith(b"\n"):
                yield InputError(f"line {n}: more than {MAX_WHOLE_INPUT:,} bytes (codec.errors.MAX_WHOLE_INPUT)")
                continue
            yield raw[:-1] if raw.endswith(b"\n") else raw
    finally:
        if from_file:
            f.close()


def _zlib_error() -> type[Exception]:
    import zlib

    return zlib.error


def _lines(args, handle, render) -> int:
    """One output line per input line; a failing line gets an ``{"error": ...}`` line of its own."""
    failed = 0
    out = sys.stdout
    for raw in _input_lines(args):
        try:
            if isinstance(raw, InputError):
                raise raw
            if raw.endswith(b"\r"):  # CRLF files: the CR belongs to the line ending
                raw = raw[:-1]
            out.write(render(handle(_utf8(raw))) + "\n")
        except (CodecError, json.JSONDecodeError, RecursionError) as e:
            failed += 1
            out.write(_dump(_error_json(e)) + "\n")
    out.flush()
    return 1 if failed else 0


def cmd_kinds(args) -> int:
    for name in kind_names():
        print(f"{name:24} {get_kind(name).summary}")
    return 0


def cmd_demo(args) -> int:
    """The built-in example: a Kafka-written v7 SubscriptionInfo and the AssignmentInfo its leader sent."""
    from importlib import resources

    from .streams.pretty import pretty_assignment, pretty_subscription
    from .streams import decode_assignment, decode_subscription

    root = resources.files("codec") / "examples"
    sub = (root / "streams-v7-subscription.bin").read_bytes()
    asg = (root / "streams-v7-assignment.bin").read_bytes()
    print("# A Kafka Streams member's subscription (written by Kafka's own SubscriptionInfo class)")
    print(sub.hex())
    print(pretty_subscription(decode_subscription(sub), size=len(sub)))
    print()
    print("# The leader's answer to it (Kafka's AssignmentInfo)")
    print(asg.hex())
    print(pretty_assignment(decode_assignment(asg), size=len(asg)))
    return 0


#: The subcommands defined here; the others come from their own modules (``register``).
CORE_COMMANDS = ("decode", "encode", "kinds", "demo")
_COMMAND_MODULES = (
    "codec.assignor.command",
    "codec.negotiation.command",
    "codec.conformance.command",
    "codec.live.capturecmd",
    "codec.simulate.command",
    "codec.pipeline.command",
    "codec.fuzz.command",
    "codec.live.watch",
)
#: Which module defines each of the other subcommands: a command line that names one imports that module
#: alone (``tests/test_cli_startup.py`` checks the table against the whole parser).
COMMAND_MODULE = {
    "assign": "codec.assignor.command",
    "negotiate": "codec.negotiation.command",
    "compat": "codec.negotiation.command",
    "size": "codec.negotiation.command",
    "vectors": "codec.conformance.command",
    "conformance": "codec.conformance.command",
    "capture": "codec.live.capturecmd",  # capture's parser; --follow is codec.live.follow's
    "simulate": "codec.simulate.command",
    "pipeline": "codec.pipeline.command",
    "fuzz": "codec.fuzz.command",
    "watch": "codec.live.watch",
}


_DECODE_OPTIONS = {
    "--kind": "kind",
    "--style": "style",
    "--version": "version",
    "--api-key": "api_key",
    "--format": "format",
    "--max-size": "max_size",
    "--assignor": "assignor",
}
_DECODE_SWITCHES = {"--lines": "lines", "--compact": "compact"}
_CHOICES = {"style": ("kafka", "snake", "native"), "format": ("json", "pretty")}
_INTS = ("version", "api_key", "max_size")


def plain_decode_args(words: list[str]) -> SimpleNamespace | None:
    """The arguments of a plain ``decode`` command line -- options spelled out in full, each given once, values
    that argparse takes, at most one input -- parsed without argparse (whose import and parser cost a decode
    call's start-up more than the decode); None for any other command line, which argparse then parses and, if
    need be, reports. ``tests/test_cli_startup.py`` holds the result to argparse's."""
    if not words or words[0] != "decode":
        return None
    args: dict = {
        "command": "decode",
        "kind": None,
        "style": "kafka",
        "version": None,
        "api_key": None,
        "lines": False,
        "input": None,
        "format": "json",
        "compact": False,
        "max_size": None,
        "assignor": None,
        "func": cmd_decode,
    }
    seen: set[str] = set()
    i = 1
    while i < len(words):
        word = words[i]
        if word in seen:
            return None
        if word in _DECODE_SWITCHES:
            args[_DECODE_SWITCHES[word]] = True
            seen.add(word)
            i += 1
        elif word in _DECODE_OPTIONS:
            if i + 1 >= len(words) or words[i + 1].startswith("-"):  # argparse's rules for these: let it decide
                return None
            name, text = _DECODE_OPTIONS[word], words[i + 1]
            value: str | int = text
            if name in _INTS:  # ASCII digits within an int16 here; anything else argparse's int_range judges
                if not (text.isascii() and text.isdigit() and len(text) <= 5 and int(text) <= 32767):
                    return None
                value = int(text)
            if value not in _CHOICES.get(name, (value,)):
                return None
            args[name] = value
            seen.add(word)
            i += 2
        elif word.startswith("-") and word != "-" or args["input"] is not None:
            return None
        else:
            args["input"] = word
            i += 1
    return SimpleNamespace(**args) if args["kind"] is not None else None


def build_parser(*, core_only: bool = False, only: str | None = None):
    """The whole parser; ``core_only`` leaves out the subcommands of other modules (their imports cost half of
    a ``decode`` call's start-up), for a command line that names one of :data:`CORE_COMMANDS`; ``only``
    (a module of :data:`COMMAND_MODULE`) adds that module's subcommands alone."""
    import argparse

    from .cliutil import int_range

    p = argparse.ArgumentParser(
        prog="rebalance-codec", description="Decode, encode and check Kafka group-rebalance bytes."
    )
    p.add_argument(
        "--version",
        action=_version_action(),
        help="the version, the codec in use (native or pure Python) and the Kafka releases followed",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def io_args(sp, decode: bool):
        sp.add_argument("--kind", required=True, help="message kind (see `rebalance-codec kinds`)")
        sp.add_argument(
            "--style",
            choices=("kafka", "snake", "native"),
            default="kafka",
            help="JSON shape: kafka = Kafka's JSON (camelCase), snake = snake_case (native: its older name; "
            "default kafka)",
        )
        sp.add_argument(
            "--version",
            type=int_range(-(1 << 15), (1 << 15) - 1),
            help="message version (for kinds that do not name it)",
        )
        sp.add_argument(
            "--api-key", type=int_range(-(1 << 15), (1 << 15) - 1), dest="api_key", help="API key of a response frame"
        )
        sp.add_argument(
            "--assignor",
            metavar="NAME",
            help="a consumer subscription's assignor (its JoinGroup protocol name): sticky, cooperative-sticky or "
            "stream decode its userData (frames take it from the exchange)",
        )
        sp.add_argument(
            "--lines",
            action="store_true",
            help="one input per line on stdin (or @file), one output line per input line",
        )
        sp.add_argument(
            "input",
            nargs="?",
            metavar="INPUT",
            help="hex (plain, spaced, with colons, or a hex dump as Wireshark, tshark -x, hexdump -C and xxd print "
            "it) or @path (raw bytes, or hex text) or - for stdin"
            if decode
            else "JSON text or @path (JSON)",
        )

    d = sub.add_parser("decode", help="bytes -> JSON or a readable view")
    io_args(d, True)
    d.add_argument(
        "--format",
        choices=("json", "pretty"),
        default="json",
        help="JSON (default; --style picks its shape) or a readable view, every nested layer decoded",
    )
    d.add_argument("--compact", action="store_true", help="one-line JSON")
    d.add_argument(
        "--max-size",
        type=int_range(0),
        dest="max_size",
        help="largest Streams metadata accepted, in bytes (default 1048588, Kafka's message.max.bytes)",
    )
    d.set_defaults(func=cmd_decode)

    e = sub.add_parser("encode", help="JSON -> hex bytes")
    io_args(e, False)
    e.add_argument(
        "--drop-unrepresentable",
        action="store_true",
        help="snake style: leave out what the version cannot carry instead of refusing",
    )
    e.set_defaults(func=cmd_encode)

    k = sub.add_parser("kinds", help="list the message kinds")
    k.set_defaults(func=cmd_kinds)

    demo = sub.add_parser("demo", help="decode the built-in example (a v7 subscription and its assignment)")
    demo.set_defaults(func=cmd_demo)

    for mod in () if core_only else (only,) if only else _COMMAND_MODULES:
        try:
            module = __import__(mod, fromlist=["register"])
        except ModuleNotFoundError as err:
            if err.name and mod.startswith(err.name):
                continue
            raise
        module.register(sub)
    return p


def _print_version(args) -> int:
    from .version import version_text

    print(version_text())
    return 0


def _version_action():
    import argparse

    class VersionAction(argparse.Action):
        def __init__(self, option_strings, dest, **kwargs) -> None:
            super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

        def __call__(self, parser, namespace, values, option_string=None) -> None:
            from .version import version_text

            print(version_text())
            parser.exit()

    return VersionAction


def main(argv: list[str] | None = None) -> int:
    if sys.stdout is None:  # started with stdout closed (``>&-``): print() would write nothing, and exit 0
        if sys.stderr is not None:
            _say("error", "stdout is closed: nothing could be written")
        return 1
    words = sys.argv[1:] if argv is None else argv
    if words == ["--version"]:  # without building the parser (its imports)
        return run(SimpleNamespace(func=_print_version))
    plain = plain_decode_args(words)
    if plain is not None:
        return run(plain)
    first = words[0] if words else ""
    parser = build_parser(core_only=first in CORE_COMMANDS, only=COMMAND_MODULE.get(first))
    return run(parser.parse_args(argv))


def run(args) -> int:
    """Run parsed arguments (of :func:`build_parser`) as :func:`main` does: an error is one line, never a
    traceback; the exit status."""
    try:
        return args.func(args)
    except KeyError as e:
        _say("error", e.args[0])
        return 2
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:
        _say("error", os_error_text(e))
        return 1
    except CodecError as e:
        _say("error", e)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - the last line of defence: one line, never a traceback
        if os.environ.get("REBALANCE_CODEC_DEBUG"):
            raise
        _say(
            "error",
            f"unexpected {type(e).__name__}: {e} (a bug in rebalance-codec; "
            "REBALANCE_CODEC_DEBUG=1 shows the traceback)",
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
