"""The rules for ``--out`` (codec.pipeline.output): never an input, nor a folder holding one or inside one (after
links are resolved); written through a symlink; locked for the run; committed by one rename that replaces
nothing but an empty folder. None of these needs Spark: the command refuses before pyspark is imported, and the
commit is plain file operations, checked here on the files themselves."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from codec.pipeline.failure import PipelineError
from codec.pipeline.output import LocalTarget, clash, local_path
from tests.conftest import ROOT

LINE = '{"kind": "assignment-info", "hex": "00"}\n'


def _args(*argv):
    import argparse

    from codec.pipeline.command import register

    p = argparse.ArgumentParser()
    register(p.add_subparsers(dest="command"))
    return p.parse_args(["pipeline", *map(str, argv)])


def _tree(root) -> dict[str, bytes]:
    """Every file below ``root`` with its bytes (links followed), to show that nothing changed."""
    out = {}
    for dirpath, _, files in os.walk(root, followlinks=True):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


@pytest.fixture
def inputs(tmp_path):
    d = tmp_path / "in"
    (d / "sub").mkdir(parents=True)
    (d / "a.jsonl").write_text(LINE)
    (d / "sub" / "b.jsonl").write_text(LINE * 2)
    (tmp_path / "link-to-in").symlink_to(d)
    return d


@pytest.mark.parametrize(
    "case",
    [
        "out is the input folder",
        "out is the input folder, --overwrite",
        "out is an input file, --overwrite",
        "out is a link to the input folder, --overwrite",
        "out lies inside the input folder",
        "out lies inside the input folder through a link",
        "out holds the input",
        "out is a glob's match",
        "the input is a file: URI",
        "out is a file: URI",
        "out is a file: URI inside the input, through a link",
        "out is a file: URI glob's match",
    ],
)
def test_an_out_that_is_holds_or_lies_inside_an_input_is_refused(tmp_path, inputs, monkeypatch, capsys, case):
    """Each one line and exit status 1, with --overwrite too, before pyspark is even imported; the inputs are
    as they were (the issue: `pipeline inA --out inA --overwrite` deleted its input and exited 0)."""
    from codec.pipeline.command import run

    monkeypatch.setitem(sys.modules, "pyspark", None)
    before = _tree(tmp_path)
    argv, says = {
        "out is the input folder": ([inputs, "--out", inputs], "is the input"),
        "out is the input folder, --overwrite": ([inputs, "--out", inputs, "--overwrite"], "is the input"),
        "out is an input file, --overwrite": (
            [inputs / "a.jsonl", "--out", inputs / "a.jsonl", "--overwrite"],
            "is the input",
        ),
        "out is a link to the input folder, --overwrite": (
            [inputs, "--out", tmp_path / "link-to-in", "--overwrite"],
            "is the input",
        ),
        "out lies inside the input folder": ([inputs, "--out", inputs / "sub" / "out"], "lies inside the input"),
        "out lies inside the input folder through a link": (
            [inputs, "--out", tmp_path / "link-to-in" / "out"],
            "lies inside the input",
        ),
        "out holds the input": ([inputs / "sub" / "b.jsonl", "--out", inputs, "--overwrite"], "holds the input"),
        "out is a glob's match": ([tmp_path / "i*", "--out", inputs, "--overwrite"], "is the input"),
        # a file: URI is read by Spark, yet names a local path: refused before Spark starts all the same
        "the input is a file: URI": ([f"file://{inputs}", "--out", inputs, "--overwrite"], "is the input"),
        "out is a file: URI": ([inputs, "--out", f"file:{inputs}/", "--overwrite"], "is the input"),
        "out is a file: URI inside the input, through a link": (
            [f"file://{inputs}", "--out", f"file:{tmp_path}/link-to-in/sub"],
            "lies inside the input",
        ),
        "out is a file: URI glob's match": (
            [f"file://{inputs}/*.jsonl", "--out", f"file://{inputs}/a.jsonl", "--overwrite"],
            "is the input",
        ),
    }[case]
    assert run(_args(*argv)) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: --out ") and says in err[0], err
    assert _tree(tmp_path) == before


def test_outputs_beside_the_inputs_are_fine(tmp_path, inputs):
    assert clash(str(tmp_path / "out"), [str(inputs)]) is None
    assert clash(str(tmp_path / "in-out"), [str(inputs)]) is None  # (a name that merely begins like the input's)
    assert clash(str(inputs / "a.jsonl.out"), [str(inputs / "a.jsonl")]) is None
    assert local_path("file:///data/a b") == "/data/a b" and local_path("hdfs://nn/x") is None


def test_a_commit_replaces_nothing_that_appeared_meanwhile(tmp_path):
    """Without --overwrite, an output folder that appeared at --out after the run's start (another run's) makes
    the commit an error and is left as it is; the staging folder is the caller's to delete."""
    out = tmp_path / "out"
    target = LocalTarget(str(out))
    assert not target.exists()
    staging = tmp_path / ".out.staging"
    staging.mkdir()
    (staging / "report.json").write_text("mine")
    out.mkdir()
    (out / "report.json").write_text("the other run's")
    with pytest.raises(PipelineError, match="appeared while the job ran and was left as it is"):
        target.commit(str(staging), overwrite=False)
    assert (out / "report.json").read_text() == "the other run's" and staging.is_dir()
    # an empty folder counts as absent; --overwrite replaces a full one, whole
    empty = tmp_path / "empty"
    empty.mkdir()
    LocalTarget(str(empty)).commit(str(staging), overwrite=False)
    assert (empty / "report.json").read_text() == "mine"
    again = tmp_path / ".again"
    again.mkdir()
    (again / "report.html").write_text("new")
    LocalTarget(str(out)).commit(str(again), overwrite=True)
    assert sorted(os.listdir(out)) == ["report.html"] and sorted(os.listdir(tmp_path)) == ["empty", "out"]


def test_an_out_that_is_a_symlink_is_written_through(tmp_path):
    """The link stays a link; what it names gets the output (a folder, a dangling link's target alike)."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "old.txt").write_text("previous output")
    link = tmp_path / "link"
    link.symlink_to(real)
    target = LocalTarget(str(link))
    assert target.path == str(real) and target.exists()
    staging = tmp_path / ".s"
    staging.mkdir()
    (staging / "report.json").write_text("{}")
    target.commit(str(staging), overwrite=True)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert sorted(os.listdir(real)) == ["report.json"]
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "later")
    t2 = LocalTarget(str(dangling))
    assert not t2.exists()
    staging.mkdir()
    (staging / "report.json").write_text("{}")
    t2.commit(str(staging), overwrite=False)
    assert dangling.is_symlink() and (tmp_path / "later" / "report.json").is_file()


def test_one_run_at_a_time_holds_an_output(tmp_path):
    """A second run's lock on the same --out (through a link too) fails at once; the lock goes when released,
    or with its process, and leaves no file behind."""
    out = tmp_path / "out"
    first = LocalTarget(str(out))
    first.lock()
    (tmp_path / "link").symlink_to(out)
    with pytest.raises(PipelineError, match="another run is writing"):
        LocalTarget(str(tmp_path / "link")).lock()
    first.unlock()
    assert sorted(os.listdir(tmp_path)) == ["link"]
    second = LocalTarget(str(out))
    second.lock()
    second.unlock()
    # a process that holds the lock and dies: the lock dies with it
    code = f"from codec.pipeline.output import LocalTarget; LocalTarget({str(out)!r}).lock(); import os; os._exit(0)"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=60)
    third = LocalTarget(str(out))
    third.lock()
    third.unlock()


def test_a_run_holding_the_output_makes_the_command_fail_in_one_line(tmp_path, monkeypatch, capsys):
    """Two runs on one --out: the second fails with one line before its Spark starts, the first's output
    untouched."""
    pytest.importorskip("pyspark")
    from codec.pipeline.command import run

    good = tmp_path / "a.jsonl"
    good.write_text(LINE)
    out = tmp_path / "out"
    holder = LocalTarget(str(out))
    holder.lock()
    try:
        assert run(_args(good, "--out", out, "--quiet", "--log", tmp_path / "spark.log")) == 1
    finally:
        holder.unlock()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: another run is writing"), err
    assert not (tmp_path / "spark.log").exists()  # Spark never started
