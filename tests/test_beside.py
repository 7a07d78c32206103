"""History plots drawn by a worker beside the run (``fem run`` on two cores or more):
the same images as drawn in the run's own process, bad input refused at the call, a
worker's error raised where the run collects its plots, pending plots dropped when a
run is interrupted."""

from __future__ import annotations

import time

import numpy as np
import pytest

import fem
from fem.core import beside
from fem.io import plots

pytestmark = pytest.mark.skipif(not beside.usable(), reason="needs fork and two cores")


@pytest.fixture
def workers(monkeypatch):
    monkeypatch.setenv("FEM_BESIDE", "1")
    beside.allow(True)
    try:
        yield
    finally:
        beside.abandon()
        beside.allow(False)


def _series():
    t = np.linspace(0.0, 1.0, 101)
    return t, {"motor 1": np.sin(6 * t), "motor 2": np.cos(6 * t)}, {"motor 1": np.sin(5 * t)}


def test_a_plot_drawn_beside_the_run_is_the_same_image(tmp_path, workers):
    t, series, ref = _series()
    plots.plot_histories(t, series, tmp_path / "worker.png", "torque [N·m]", "x",
                         reference=ref)
    assert beside.pending() == 1
    beside.drain()
    beside.allow(False)
    plots.plot_histories(t, series, tmp_path / "here.png", "torque [N·m]", "x",
                         reference=ref)
    assert (tmp_path / "worker.png").read_bytes() == (tmp_path / "here.png").read_bytes()
    assert not list(tmp_path.glob(".*"))                 # no temporary file left


def test_bad_input_is_refused_at_the_call_not_in_the_worker(tmp_path, workers):
    t, series, _ = _series()
    with pytest.raises(fem.ModelError, match="has 3 values for 101 times"):
        plots.plot_histories(t, {"x": [1.0, 2.0, 3.0]}, tmp_path / "a.png")
    with pytest.raises(fem.ModelError, match="no series of the same label"):
        plots.plot_histories(t, series, tmp_path / "b.png", reference={"motor 9": t})
    assert beside.pending() == 0


def _fails(message: str) -> None:
    raise fem.ModelError(message)


def test_an_error_in_the_worker_is_raised_where_the_plots_are_collected(workers):
    beside.call(_fails, "cannot write the plot x.png: the disk is full")
    with pytest.raises(fem.ModelError, match="the disk is full"):
        beside.drain()
    assert beside.pending() == 0


def test_an_interrupted_run_drops_its_pending_plots_at_once(workers):
    beside.call(time.sleep, 0.5)
    beside.call(time.sleep, 30.0)
    t0 = time.perf_counter()
    beside.abandon()
    assert time.perf_counter() - t0 < 5.0
    assert beside.pending() == 0


def test_the_flagship_gives_the_same_bits_with_its_rigid_references_beside(monkeypatch):
    """The flagship's rigid-robot references run in the worker under ``fem run``: every
    figure equal to the bit to the run that computes them in its own process."""
    import json

    from fem.cases import load_case

    case = load_case("parallel_robot_flexible_platform")
    p = dict(case.PARAMS, analysis="line", dt_s=0.02)
    here = case._run_one(p, None)
    monkeypatch.setenv("FEM_BESIDE", "1")
    beside.allow(True)
    try:
        there = case._run_one(p, None)
        assert beside.pending() == 3        # the two rigid references, the hexagon_96 statics
        beside.drain()
    finally:
        beside.allow(False)
    for key in here:
        if key not in ("wall_s", "real_time_factor"):
            assert json.dumps(here[key], default=str) == json.dumps(there[key], default=str), key
