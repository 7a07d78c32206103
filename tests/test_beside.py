"""History plots drawn by a worker beside the run (``fem run`` on two cores or more):
the same images as drawn in the run's own process, bad input refused at the call, a
worker's error raised where the run collects its plots, pending plots dropped when a
run is interrupted."""

from __future__ import annotations

import os
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


def _pid_unless(k: int, fail: int) -> int:
    if k == fail:
        raise fem.ModelError(f"plot {k} could not be written")
    return os.getpid()


def test_batched_plots_are_drawn_in_two_processes_with_the_same_images(tmp_path, workers):
    """Plots are handed on in groups of four, each group drawn by the worker and a fork
    of it at once: the same images as one process draws, every one of them; a value per
    call in its place; an error of the fork's half raised where the work is collected."""
    t, series, ref = _series()
    for k in range(5):                         # a group of four, then one at the drain
        plots.plot_histories(t, series, tmp_path / f"w{k}.png", "torque [N·m]", f"p{k}",
                             reference=ref)
    assert beside.pending() == 5
    beside.drain()
    away = ("a_module_this_process_has_not_loaded",)    # so not taken back by collect
    items = [beside.call(_pid_unless, k, -1, batch=True, needs=away) for k in range(4)]
    pids = beside.collect(items)
    assert len(set(pids[:2])) == 1 and len(set(pids[2:])) == 1 and pids[0] != pids[2]
    assert os.getpid() not in pids
    for k in range(3):
        beside.call(_pid_unless, k, 2, batch=True, needs=away)
    with pytest.raises(fem.ModelError, match="plot 2 could not be written"):
        beside.drain()                        # the fork's half: plots 2 (of 0, 1 | 2)
    assert beside.pending() == 0
    beside.allow(False)
    for k in range(5):
        plots.plot_histories(t, series, tmp_path / f"h{k}.png", "torque [N·m]", f"p{k}",
                             reference=ref)
        assert (tmp_path / f"w{k}.png").read_bytes() == (tmp_path / f"h{k}.png").read_bytes()
    assert not list(tmp_path.glob(".*"))


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
    handed: list = []
    collect = beside.collect

    def spy(jobs):
        handed.extend(type(job).__name__ for job in jobs)
        return collect(jobs)

    monkeypatch.setattr(beside, "collect", spy)
    beside.allow(True)
    try:
        there = case._run_one(p, None)
        # the two rigid references and the static figures on the finer mesh
        assert handed == ["_Job", "_Job", "_Job"]
        beside.drain()
    finally:
        beside.allow(False)
    for key in here:
        if key not in ("wall_s", "real_time_factor"):
            assert json.dumps(here[key], default=str) == json.dumps(there[key], default=str), key


def _frames(n: int) -> list[dict]:
    points = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    return [{"time": 0.1 * i, "points": points, "cells": {"triangle": np.array([[0, 1, 2]])},
             "point_data": {"displacement": 0.01 * i * points}} for i in range(n)]


def test_a_series_written_beside_the_run_is_the_same_files(tmp_path, workers):
    """Frames after the first go to the worker in batches; the collection lists them
    once written.  Reference: the same frames written in this process alone."""
    from fem.io.vtk import SeriesWriter, write_series

    frames = _frames(40)
    series = SeriesWriter(tmp_path / "beside", "s")
    for frame in frames:
        series.add(frame)
    assert len(series) == 40
    series.close()
    beside.drain()
    beside.allow(False)
    write_series(tmp_path / "here", "s", frames)
    here = sorted(p.relative_to(tmp_path / "here") for p in (tmp_path / "here").rglob("*"))
    there = sorted(p.relative_to(tmp_path / "beside") for p in (tmp_path / "beside").rglob("*"))
    assert here == there and len(here) == 42           # s.pvd, s/, 40 frames
    for rel in here:
        if (tmp_path / "here" / rel).is_file():
            assert (tmp_path / "here" / rel).read_bytes() == \
                (tmp_path / "beside" / rel).read_bytes(), rel


def test_an_interrupted_series_keeps_every_frame_computed(tmp_path, workers):
    """A run stopped while the worker has frames to write (busy with other work) writes
    them itself: the collection lists every frame added, each readable."""
    from fem.io.vtk import SeriesWriter, read_series

    beside.call(time.sleep, 30.0)                      # the worker is busy
    series = SeriesWriter(tmp_path, "s")
    for frame in _frames(40):
        series.add(frame)
    assert len(series.entries) == 1                    # the first, written here at once
    beside.abandon()
    times, meshes = read_series(tmp_path / "s.pvd")
    assert np.allclose(times, 0.1 * np.arange(40))
    assert np.allclose(meshes[-1].point_data["displacement"][1], [0.39, 0.0, 0.0])


def test_the_worker_renders_the_runs_pictures_as_the_run_would(tmp_path):
    """Under ``fem run`` the worker loads the renderer while the run solves and then
    draws the run's pictures.  Reference: the same run with everything in its own
    process (``FEM_BESIDE=0``): the same snapshot, pixel for pixel."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import imageio.v2 as imageio

    root = Path(__file__).resolve().parents[1]
    images = {}
    for flag in ("1", "0"):
        env = {**os.environ, "FEM_BESIDE": flag, "PYTHONPATH": os.pathsep.join(
            [str(root), *filter(None, [os.environ.get("PYTHONPATH")])])}
        out = tmp_path / f"beside_{flag}"
        proc = subprocess.run([sys.executable, "-m", "fem", "run", "cantilever_cable",
                               "-p", "analysis=static", "--out", str(out)], cwd=root,
                              env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-1500:]
        images[flag] = imageio.imread(out / "snapshot.png")
    assert images["1"].shape == images["0"].shape
    assert np.array_equal(images["1"], images["0"])


@pytest.mark.skipif(__import__("sys").version_info >= (3, 12),
                    reason="the pool ignores the error itself (CPython gh-107219)")
def test_the_pools_error_on_cancelled_work_is_not_printed(monkeypatch):
    # Python 3.11's process pool, its worker terminated (abandon), sets an error on the
    # work still waiting, cancelled work too, and raises InvalidStateError in its manager
    # thread: that one is let pass, every other thread error goes on to the hook before
    import threading
    from concurrent.futures import InvalidStateError
    from concurrent.futures.process import _ExecutorManagerThread

    passed = []
    monkeypatch.setattr(threading, "excepthook", passed.append)
    beside._quiet_cancelled_work()
    beside._quiet_cancelled_work()                       # installed once
    hook = threading.excepthook
    assert hook is not passed.append and hook._fem_beside

    def args(exc_type, thread):
        return threading.ExceptHookArgs((exc_type, exc_type("x"), None, thread))

    manager = _ExecutorManagerThread.__new__(_ExecutorManagerThread)
    hook(args(InvalidStateError, manager))
    assert passed == []
    other = threading.Thread()
    for a in (args(InvalidStateError, other), args(ValueError, manager)):
        hook(a)
    assert [a.exc_type for a in passed] == [InvalidStateError, ValueError]


def test_a_case_function_loads_its_case_where_it_arrives(tmp_path):
    """The worker beside ``fem run`` loads the case only when work names one of its
    functions: handed by reference, such a function imports its case there."""
    import pickle
    import subprocess
    import sys
    from pathlib import Path

    from fem.cases import load_case

    root = Path(fem.__file__).resolve().parent.parent
    data = pickle.dumps(load_case("cantilever_cable").run)
    code = ("import pickle, sys\n"
            "from fem.cases import import_cases_on_demand\n"
            "assert 'fem_case_cantilever_cable' not in sys.modules\n"
            "import_cases_on_demand()\n"
            "function = pickle.loads(sys.stdin.buffer.read())\n"
            "print(function.__module__, callable(function))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True,
                          env=env, cwd=tmp_path, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr.decode()[-800:]
    assert proc.stdout.decode().split() == ["fem_case_cantilever_cable", "True"]


def test_frames_made_by_a_worker_started_again_are_the_same_files(tmp_path, workers,
                                                                 monkeypatch):
    """With no pictures to prepare, the output stream starts the worker again from the
    built model (``refork``) and hands on the states of the frames after the first (the
    worker makes them; the run makes here those it takes back): the files are the bytes
    of a run that makes and writes every frame itself, the figures equal to the bit."""
    import json

    from fem.cases import load_case
    from fem.io import options
    from fem.io.vtk import SeriesWriter, StateFrame

    case = load_case("spinup_beam")
    p = dict(case.PARAMS, t_end_s=1.5)
    kinds: list = []
    add = SeriesWriter.add
    monkeypatch.setattr(SeriesWriter, "add",
                        lambda self, frame: kinds.append(type(frame)) or add(self, frame))
    monkeypatch.setattr(options.OPTIONS, "render", False)
    there = case.run(out=tmp_path / "beside", **p)
    beside.drain()
    assert kinds[0] is not StateFrame and set(kinds[1:]) == {StateFrame}
    n_frames = len(kinds)
    beside.abandon()
    beside.allow(False)
    here = case.run(out=tmp_path / "here", **p)
    for key in here:
        if key not in ("wall_s", "real_time_factor"):
            assert json.dumps(here[key], default=str) == json.dumps(there[key], default=str), key
    files = sorted(f.relative_to(tmp_path / "here")
                   for f in (tmp_path / "here").rglob("*.vtu"))
    assert len(files) == n_frames > 10
    for rel in files:
        assert (tmp_path / "here" / rel).read_bytes() == \
            (tmp_path / "beside" / rel).read_bytes(), rel


def _preload_until_the_run_waits(marker: str, later: list) -> list:
    """A preload whose own part lasts until the run waits for the worker."""
    deadline = time.monotonic() + 30.0
    while not beside._WAITING.is_set() and time.monotonic() < deadline:
        time.sleep(0.005)
    _stage(marker)
    return later


def _stage(marker: str) -> None:
    with open(marker, "w") as f:
        f.write("loaded")


def test_the_worker_stops_loading_ahead_when_the_run_waits(tmp_path, monkeypatch):
    """What the worker loads after ``preload``'s own part (matplotlib, the stages it
    returns) is loaded one stage at a time while the run does not wait: once the run
    collects work, the stage in progress ends and the rest is left to the work that
    needs it — a snapshot's run that ends before its worker loaded the plots' and
    movies' modules does not wait for them.  Left alone, the worker loads every stage."""
    first, second, third = (str(tmp_path / n) for n in ("first", "second", "third"))
    import matplotlib.backends.backend_agg  # noqa: F401 - the worker's plotting stage at once
    monkeypatch.setenv("FEM_BESIDE", "1")
    beside.allow(True, preload=lambda: _preload_until_the_run_waits(
        first, [lambda: _stage(second)]))
    try:
        job = beside.call(os.getpid)
        assert beside.collect([job], take_back=False) == [job.result()]
        assert job.result() != os.getpid()              # done by the worker
        assert os.path.exists(first) and not os.path.exists(second)
    finally:
        beside.abandon()
        beside.allow(False)
    beside.allow(True, preload=lambda: [lambda: _stage(third)])
    try:
        deadline = time.monotonic() + 30.0
        while not os.path.exists(third) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert os.path.exists(third)
    finally:
        beside.abandon()
        beside.allow(False)
