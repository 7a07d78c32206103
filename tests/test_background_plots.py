"""History plots drawn by a worker beside the run (``fem run`` on two cores or more):
the same images as drawn in the run's own process, bad input refused at the call, a
worker's error raised where the run collects its plots, pending plots dropped when a
run is interrupted."""

from __future__ import annotations

import time

import numpy as np
import pytest

import fem
from fem.io import background, plots
from fem.io.options import OPTIONS

pytestmark = pytest.mark.skipif(not background.usable(), reason="needs fork and two cores")


@pytest.fixture
def workers():
    OPTIONS.plot_workers = 1
    try:
        yield
    finally:
        OPTIONS.plot_workers = 0
        background.abandon()


def _series():
    t = np.linspace(0.0, 1.0, 101)
    return t, {"motor 1": np.sin(6 * t), "motor 2": np.cos(6 * t)}, {"motor 1": np.sin(5 * t)}


def test_a_plot_drawn_beside_the_run_is_the_same_image(tmp_path, workers):
    t, series, ref = _series()
    plots.plot_histories(t, series, tmp_path / "worker.png", "torque [N·m]", "x",
                         reference=ref)
    assert background.pending() == 1
    background.drain()
    OPTIONS.plot_workers = 0
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
    assert background.pending() == 0


def _fails(message: str) -> None:
    raise fem.ModelError(message)


def test_an_error_in_the_worker_is_raised_where_the_plots_are_collected(workers):
    background.submit(_fails, "cannot write the plot x.png: the disk is full")
    with pytest.raises(fem.ModelError, match="the disk is full"):
        background.drain()
    assert background.pending() == 0


def test_an_interrupted_run_drops_its_pending_plots_at_once(workers):
    background.submit(time.sleep, 0.5)
    background.submit(time.sleep, 30.0)
    t0 = time.perf_counter()
    background.abandon()
    assert time.perf_counter() - t0 < 5.0
    assert background.pending() == 0
