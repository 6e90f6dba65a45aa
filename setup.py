"""The native codec's build: one C extension, the engine that runs programs compiled from ``schemas/``
(``codec/wire/_native.c``, ``codec/wire/native.py``). Everything else is in ``pyproject.toml``.

The extension is optional: where no C compiler works (``CC=false``, a slim image), the build says so and
the package installs without it, and the pure-Python codec serves (``rebalance-codec --version`` names the
codec in use)."""

from setuptools import Extension, setup

setup(
    ext_modules=[Extension("codec.wire._native", ["codec/wire/_native.c"], optional=True, extra_compile_args=["-O2"])]
)
