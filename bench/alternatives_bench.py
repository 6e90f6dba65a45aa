"""Why the native codec is one C engine running programs compiled from the schemas, measured: the same
message compiled the other ways the issue names.

* **Cython over the generated Python**: ``codec/wire/fastpath.py`` already writes straight-line Python per
  (message, version); Cython compiles that source unchanged (each function's globals become closure
  variables). This is also what a C file generated per message from the schemas amounts to, function by
  function: the same straight-line steps, each a call into CPython's API.
* **the engine** (``codec/wire/_native.c`` + ``codec/wire/native.py``): one C file, whatever the schemas hold.

Measured: the time to build (Cython's translation and ``cc -O2``) the functions of one message
(JoinGroupResponse, every version, decode and encode) against the time to build the whole engine, and the
decode and encode of the 100-member JoinGroupResponse v5 by the generated Python, its Cython build and the
engine, paired and interleaved (``bench/harness.py``). Needs Cython (``pip install cython``: for this
measurement only, not a dependency) and a C compiler. ``python bench/run.py alternatives``.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
from pathlib import Path

import harness
import payloads as P

from codec.wire import fastpath, native
from codec.wire.builder import encode_wire
from codec.wire.schema import load_message

ROOT = Path(__file__).resolve().parents[1]
MESSAGE = "JoinGroupResponse"


def generated_module(message: str) -> str:
    """Every decoder and encoder the fast path generates for ``message``, as one module."""
    lines = ["from codec.wire import fastpath as _fp", "TABLE = {}"]
    for v in load_message(message).versions:
        for kind in ("decode", "encode"):
            src, globs = fastpath._generate(message, v, kind)
            fn = f"_{kind}_{v}"
            lines.append(f"def _factory{fn}({', '.join(sorted(globs))}):")
            lines.append(textwrap.indent(src, "    ").rstrip())
            lines.append(f"    return {kind}")
            lines.append(f"TABLE[({v}, {kind!r})] = _factory{fn}(**_fp._generate({message!r}, {v}, {kind!r})[1])")
    return "\n".join(lines) + "\n"


def _cc(source: Path, out: Path) -> float:
    cc = sysconfig.get_config_var("CC") or "cc"
    t = time.perf_counter()
    subprocess.run(
        [*cc.split(), "-O2", "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}", str(source), "-o", str(out)],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - t


def build(tmp: Path) -> tuple[object, dict]:
    """The Cython module of MESSAGE (imported) and the build times."""
    cython = shutil.which("cython") or str(Path(sys.executable).parent / "cython")
    name = f"gen_{MESSAGE}"
    (tmp / f"{name}.py").write_text(generated_module(MESSAGE), encoding="utf-8")
    t = time.perf_counter()
    subprocess.run(
        [cython, "-3", str(tmp / f"{name}.py"), "-o", str(tmp / f"{name}.c")], check=True, capture_output=True
    )
    translate = time.perf_counter() - t
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    compile_gen = _cc(tmp / f"{name}.c", tmp / f"{name}{suffix}")
    compile_engine = _cc(ROOT / "codec" / "wire" / "_native.c", tmp / f"engine{suffix}")
    spec = importlib.util.spec_from_file_location(name, tmp / f"{name}{suffix}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    c_lines = sum(1 for _ in open(tmp / f"{name}.c", encoding="utf-8"))
    engine_lines = sum(1 for _ in open(ROOT / "codec" / "wire" / "_native.c", encoding="utf-8"))
    return module, {
        "message": MESSAGE,
        "functions": len(module.TABLE),
        "cython_seconds": translate,
        "cc_seconds": compile_gen,
        "c_lines": c_lines,
        "engine_cc_seconds": compile_engine,
        "engine_c_lines": engine_lines,
        "messages": len(list((ROOT / "schemas").glob("*.json"))),
    }


def run(args) -> None:
    if not native.active():
        sys.exit("the native codec is not active")
    with tempfile.TemporaryDirectory(prefix="bench-alternatives-") as tmp:
        module, built = build(Path(tmp))
        v, obj = P.group_messages(5)[MESSAGE]
        data = encode_wire(MESSAGE, v, obj)
        prog = native.program(MESSAGE, v)
        records = []
        for op, sides in (
            (
                "decode",
                {
                    "engine": lambda: prog.decode(data, 0),
                    "Cython": lambda: module.TABLE[(v, "decode")](data, 0),
                    "generated Python": lambda: fastpath.decoder(MESSAGE, v)(data, 0),
                },
            ),
            (
                "encode",
                {
                    "engine": lambda: prog.encode(obj),
                    "Cython": lambda: module.TABLE[(v, "encode")](obj),
                    "generated Python": lambda: fastpath.encoder(MESSAGE, v)(obj),
                },
            ),
        ):
            c = harness.Comparison(
                "alternatives",
                f"{MESSAGE} v{v} (100 members)",
                op,
                sides,
                ours="engine",
                meta={"bytes": len(data), **built},
            )
            records.append(harness.measure(c, repeats=args.repeats))
        print(
            f"alternatives: Cython {built['cython_seconds']:.0f} s + cc {built['cc_seconds']:.0f} s for "
            f"{built['functions']} functions of {MESSAGE}; the engine {built['engine_cc_seconds']:.1f} s"
        )
        harness.save("alternatives", records, {"repeats": args.repeats})
