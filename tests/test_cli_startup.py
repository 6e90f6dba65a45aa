"""A decode or encode call builds only the core parser (the other subcommands' imports are half its start-up);
every other command line, and the help, still sees every subcommand."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from codec.cli import CORE_COMMANDS, build_parser
from tests.conftest import ROOT

OTHERS = ("assign", "negotiate", "conformance", "vectors", "capture", "simulate", "pipeline", "fuzz")


def _commands(parser) -> set[str]:
    sub = next(a for a in parser._actions if a.dest == "command")
    return set(sub.choices)


def test_the_core_parser_has_the_core_commands_and_the_whole_one_has_all():
    assert _commands(build_parser(core_only=True)) == set(CORE_COMMANDS)
    assert _commands(build_parser()) >= set(CORE_COMMANDS) | set(OTHERS)


def test_each_other_command_names_the_module_that_defines_it():
    """A command line naming one of the other subcommands builds the parser of its module alone: the table
    must cover every subcommand, and each module must define what the table says."""
    from codec.cli import COMMAND_MODULE

    assert _commands(build_parser()) - set(CORE_COMMANDS) == set(COMMAND_MODULE)
    for command, module in COMMAND_MODULE.items():
        assert command in _commands(build_parser(only=module)), (command, module)


def test_a_decode_call_does_not_import_the_other_subcommands():
    code = (
        "import sys; from codec.cli import main; main(['decode', '--kind', 'heartbeat-request', '--version', "
        "'0', '--compact', '0001670000000100016d']); print(sorted(m for m in sys.modules if m.endswith('.command')))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0] == '{"groupId": "g", "generationId": 1, "memberId": "m"}'
    assert out[1] == "[]"
    p = subprocess.run([sys.executable, "-m", "codec", "--help"], capture_output=True, text=True, timeout=60)
    assert all(c in p.stdout for c in OTHERS)


# What a decode of one SubscriptionInfo or AssignmentInfo may not import (issue #29: the whole process within
# 3x `python -c pass`; bench/README.md's start-up figure measures it). Not a timed test: the modules themselves.
NOT_ON_A_DECODE = (
    "construct",
    "base64",
    "pathlib",
    "urllib",
    "ipaddress",
    "typing",
    "datetime",
    "argparse",
    "ast",
    "codec.wire.fastpath",
    "codec.wire.primitives",
    "codec.group",
    "codec.connect",
    "codec.kafka4",
    "codec.pretty",
    "codec.streams.pretty",
    "codec.capture",
    "codec.assignor",
    "codec.pipeline",
    "codec.conformance",
    "codec.simulate",
    "codec.negotiation",
)


@pytest.mark.parametrize(
    "kind, example",
    [("subscription-info", "streams-v7-subscription.bin"), ("assignment-info", "streams-v7-assignment.bin")],
)
def test_a_decode_imports_only_what_it_needs(kind, example):
    """``-S``: no site packages, so no editable-install hook importing pathlib first; whatever the decode needs
    beyond the standard library would fail to import (the native codec needs nothing else)."""
    from codec.wire import native

    if not native.available():
        pytest.skip("the pure-Python codec needs construct")
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT)!r}); from codec.cli import main; "
        f"main(['decode', '--kind', {kind!r}, '@{ROOT / 'codec' / 'examples' / example}']); "
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {NOT_ON_A_DECODE!r} "
        f"or any(m == x or m.startswith(x + '.') for x in {NOT_ON_A_DECODE!r}))))"
    )
    p = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    *output, imported = p.stdout.splitlines()
    assert json.loads("\n".join(output))["version"] == 7
    assert json.loads(imported) == []


def test_the_console_script_freezes_what_its_imports_built():
    """``codec.__main__.console`` (the console script's entry): the imports' objects moved to the collector's
    permanent generation before the command runs, the collector on again for the command's own objects, and
    the command's output and exit status those of :func:`codec.cli.main`."""
    code = (
        f"import gc, sys; sys.path.insert(0, {str(ROOT)!r}); "
        f"sys.argv = ['rebalance-codec', 'decode', '--kind', 'subscription-info', '--compact', '@{EXAMPLE}']; "
        "from codec.__main__ import console; status = console(); "
        "print(status, gc.isenabled(), gc.get_freeze_count() > 1000, 'codec.catalog' in sys.modules)"
    )
    p = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    decoded, state = p.stdout.splitlines()
    assert json.loads(decoded)["processId"] == "6f1c2f0e-8d2b-4c6a-9e4e-0123456789ab"
    assert state == "0 True True True"


def test_the_import_check_sees_an_import():
    """A sibling that can fail: the same check after a decode through the pretty view, which imports
    codec.streams.pretty (and datetime for its timestamps)."""
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); from codec.cli import main; "
        f"main(['decode', '--kind', 'assignment-info', '--format', 'pretty', "
        f"'@{ROOT / 'codec' / 'examples' / 'streams-v7-assignment.bin'}']); print('codec.streams.pretty' in sys.modules)"
    )
    p = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1] == "True"


EXAMPLE = str(ROOT / "codec" / "examples" / "streams-v7-subscription.bin")
COMMAND_LINES = [
    ["decode", "--kind", "subscription-info", f"@{EXAMPLE}"],
    ["decode", "--kind", "heartbeat-request", "--version", "0", "--compact", "0001670000000100016d"],
    ["decode", "--compact", "--kind", "x", "--style", "native", "--format", "pretty", "-"],
    ["decode", "--kind", "x", "--lines", "--max-size", "100", "--api-key", "11"],
    ["decode", "--kind", ""],
    ["decode", "ab", "--kind", "k"],
    # what argparse must parse (and may refuse): the plain parser declines (" 7 " and "٣": integers are ASCII digits
    # alone, issue #31)
    ["decode", "--kind", "x", "--version", " 7 "],
    ["decode", "--kind", "x", "--version", "\u0663"],
    ["decode", "--kind", "x", "--version", "-1"],
    ["decode", "--kind=x"],
    ["decode", "--kin", "x"],
    ["decode", "--kind", "x", "--style", "yaml"],
    ["decode", "--kind", "x", "--version", "seven"],
    ["decode", "--kind", "x", "--kind", "y"],
    ["decode", "--kind", "x", "a", "b"],
    ["decode", "--kind", "x", "--"],
    ["decode", "a"],
    ["decode", "--kind"],
    ["decode", "-h"],
    ["decode", "--kind", "x", "--compact", "--compact"],
    ["encode", "--kind", "x"],
    ["kinds"],
    [],
]


@pytest.mark.parametrize("words", COMMAND_LINES, ids=lambda w: " ".join(w) or "(none)")
def test_a_plain_decode_command_line_parses_as_argparse_parses_it(words):
    from codec.cli import plain_decode_args

    plain = plain_decode_args(words)
    if plain is None:
        return  # argparse decides
    assert vars(plain) == vars(build_parser(core_only=True).parse_args(words))


def test_the_plain_parser_takes_the_common_command_lines():
    from codec.cli import plain_decode_args

    taken = [w for w in COMMAND_LINES if plain_decode_args(w) is not None]
    assert taken == COMMAND_LINES[:6]


def test_inspect_deferred_by_the_command_line_still_works():
    """The stand-in the CLI leaves for ``inspect`` imports it on first use and answers as it does."""
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); import codec.cli; import inspect; "
        "print(type(sys.modules['inspect']).__name__); print(inspect.signature(lambda a, b=2: 0)); "
        "print(type(sys.modules['inspect']).__name__, inspect.isfunction(print))"
    )
    p = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["_LazyModule", "(a, b=2)", "module False"]
