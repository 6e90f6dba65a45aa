"""A decode or encode call builds only the core parser (the other subcommands' imports are half its start-up);
every other command line, and the help, still sees every subcommand."""

from __future__ import annotations

import subprocess
import sys

from codec.cli import CORE_COMMANDS, build_parser

OTHERS = ("assign", "negotiate", "conformance", "vectors", "capture", "simulate", "pipeline", "fuzz")


def _commands(parser) -> set[str]:
    sub = next(a for a in parser._actions if a.dest == "command")
    return set(sub.choices)


def test_the_core_parser_has_the_core_commands_and_the_whole_one_has_all():
    assert _commands(build_parser(core_only=True)) == set(CORE_COMMANDS)
    assert _commands(build_parser()) >= set(CORE_COMMANDS) | set(OTHERS)


def test_a_decode_call_does_not_import_the_other_subcommands():
    code = ("import sys; from codec.cli import main; main(['decode', '--kind', 'heartbeat-request', '--version', "
            "'0', '--compact', '0001670000000100016d']); print(sorted(m for m in sys.modules if m.endswith('.command')))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0] == '{"groupId": "g", "generationId": 1, "memberId": "m"}'
    assert out[1] == "[]"
    p = subprocess.run([sys.executable, "-m", "codec", "--help"], capture_output=True, text=True, timeout=60)
    assert all(c in p.stdout for c in OTHERS)
