"""The simulator's pictures for a person (issue #46): every per-instance (per-worker) strip has a y scale, and in
the protocols compared, lines that would lie on top of each other are told apart (each drawn apart, the legend
says which it coincides with). The figures are drawn from the bundled scenarios' runs; what is checked is
matplotlib's own record of the drawn axes and lines."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

from codec.simulate import example_path, load_scenario, simulate  # noqa: E402
from codec.simulate import connect_plots, plots  # noqa: E402
from codec.simulate.connect import load_connect_scenario, simulate_connect  # noqa: E402


def _streams(example: str, protocols: tuple[str, ...]) -> list[dict]:
    scenario = load_scenario(example_path(example))
    return [simulate(scenario, p, keep_frames=False).to_json() for p in protocols]


def _connect(example: str, protocols: tuple[str, ...]) -> list[dict]:
    scenario = load_connect_scenario(example_path(example))
    return [simulate_connect(scenario, p).to_json() for p in protocols]


def _strips(fig) -> list:
    """The strips of a run figure: every axes but the last (the unavailability panel)."""
    return fig.axes[:-1]


@pytest.mark.parametrize(
    "figure, results",
    [
        (plots.run_figure, lambda: _streams("scale-out", ("ha",))),
        (connect_plots.run_figure, lambda: _connect("connect-bounce", ("eager",))),
    ],
)
def test_every_strip_has_a_y_scale(figure, results):
    fig = figure(results()[0])
    strips = _strips(fig)
    assert strips
    for ax in strips:
        labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
        assert len(labels) >= 2 and labels[0] == "0", (ax.get_ylabel(), labels)
        top = float(labels[-1])
        assert top > 0 and ax.get_ylim()[1] >= top  # the scale reaches the strips' common top
    plots._plt().close(fig)


def _drawn(fig) -> dict[str, tuple]:
    """Each protocol's line in the compared figure's upper panel: its legend label -> its drawn points."""
    ax = fig.axes[0]
    return {
        line.get_label(): tuple(zip(line.get_xdata(), line.get_ydata()))
        for line in ax.get_lines()
        if not line.get_label().startswith("_")
    }


def test_coinciding_protocol_lines_are_told_apart():
    """In scale-out, affinity's unavailability is eager's, step for step (they hid each other in compare.png)."""
    results = _streams("scale-out", ("eager", "cooperative", "ha", "affinity"))
    by = {
        r["protocol"]: plots._steps(r["timeline"]["unavailable"], lambda x: x["unassigned"] + x["restoring"], 1e9)
        for r in results
    }
    assert by["affinity"] == by["eager"]  # the case: the same line
    fig = plots.compare_figure(results)
    drawn = _drawn(fig)
    assert len(drawn) == 4 and len(set(drawn.values())) == 4  # no two drawn on top of each other
    assert "affinity (same as eager, drawn a little above)" in drawn
    assert "eager" in drawn and "cooperative" in drawn and "ha" in drawn  # lines of their own keep their names
    plots._plt().close(fig)
