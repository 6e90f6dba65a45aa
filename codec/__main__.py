"""``python -m codec`` and the ``rebalance-codec`` console script: :func:`codec.cli.main` on the process's
arguments, with the garbage collector kept off the objects the imports build."""

import sys


def console() -> int:
    """:func:`codec.cli.main` on the process's arguments. The imports build modules, classes, functions and
    tables that live until the process ends, and free nothing: the garbage collector is off while they run, and
    then what they built moves to its permanent generation (``gc.freeze``), so no pass walks it again, the last
    one at exit included: 3 to 4 ms of the 30 a decode call's whole process took before (``bench/README.md``'s
    start-up figure). What the command itself creates is collected as ever, and exit handlers run as ever."""
    import gc

    gc.disable()
    try:
        from .cli import main
    finally:
        gc.enable()
    gc.freeze()
    return main()


if __name__ == "__main__":
    sys.exit(console())
