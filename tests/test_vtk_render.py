"""ParaView series and headless pictures.

Series are checked by reading them back with meshio (what ParaView gets): times in the
.pvd, point counts, field values bit for bit (binary VTU stores float64 exactly).
Pictures are checked for existence, frame count and non-blankness (pixel standard
deviation well above the ~0 of a uniform background).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import imageio.v3 as iio
import numpy as np
import pytest

from fem.core.errors import ModelError
from fem.io import headless, movies, plots, render
from fem.io.vtk import Frame, SeriesWriter, read_series, to_meshio, write_series
from fem.model.mesh_files import load_builtin_mesh

R = 0.09


def sag(mesh, t):
    """A dish-shaped displacement field growing with t (what a loaded platform does)."""
    r2 = (mesh.vertices[:, :2] ** 2).sum(axis=1)
    u = np.zeros_like(mesh.vertices)
    u[:, 2] = -0.01 * t * (1.0 - r2 / (4 * R**2 / 3))
    return u


def frames(n=5, name="hexagon_24"):
    mesh = load_builtin_mesh(name)
    ids = np.arange(len(mesh.triangles) + len(mesh.lines), dtype=float)
    return mesh, [
        Frame.from_mesh(mesh, t, displacement=sag(mesh, t), cell_data={"id": ids})
        for t in np.linspace(0.0, 0.4, n)
    ]


# ---------------------------------------------------------------------- series
def test_series_round_trip(tmp_path):
    mesh, series = frames()
    pvd = write_series(tmp_path / "out", "platform", series)
    assert pvd == tmp_path / "out" / "platform.pvd"

    entries = ET.parse(pvd).getroot().findall("./Collection/DataSet")
    assert [float(e.get("timestep")) for e in entries] == [0.0, 0.1, 0.2, 0.30000000000000004, 0.4]
    assert [e.get("file") for e in entries] == [f"platform/platform_{i:06d}.vtu" for i in range(5)]

    times, meshes = read_series(pvd)
    assert np.array_equal(times, np.linspace(0.0, 0.4, 5))
    for t, m in zip(times, meshes, strict=True):
        assert len(m.points) == len(mesh.vertices) == 19
        assert np.array_equal(m.points, mesh.vertices)
        assert np.array_equal(m.point_data["displacement"], sag(mesh, t))
        assert {b.type: len(b.data) for b in m.cells} == {"triangle": 24, "line": 12}
        assert np.array_equal(np.concatenate(m.cell_data["id"]), np.arange(36.0))


def test_frames_kept_beside_a_run_are_what_their_files_read(tmp_path):
    # the worker beside `fem run` keeps the frames it writes and renders the movie from
    # them: each must be what reading its file gives, array by array and type by type
    from fem.io import vtk

    mesh, series = frames(4)
    for k, f in enumerate(series):
        f.field_data.update({"time_s": f.time, "step": k, "ok": True,
                             "torques [N·m]": np.array([1.5, -2.0, 0.25])})
        f.point_data["group:platform"] = np.ones(len(mesh.vertices))
    d = tmp_path / "out"
    (d / "platform").mkdir(parents=True)
    files = [d / "platform" / f"platform_{k:06d}.vtu" for k in range(len(series))]
    vtk._KEPT.clear()
    vtk._write_frames_beside([(f, k, file) for k, (f, file) in
                              enumerate(zip(series, files, strict=True))], True)
    for file in files:
        kept, read = vtk._kept(file), vtk.read_meshio(file)
        assert kept is not None
        assert np.array_equal(kept.points, read.points) and kept.points.dtype == read.points.dtype
        assert [(c.type, c.data.dtype) for c in kept.cells] == \
            [(c.type, c.data.dtype) for c in read.cells]
        assert all(np.array_equal(a.data, b.data) for a, b in zip(kept.cells, read.cells,
                                                                strict=True))
        for ours, theirs in ((kept.point_data, read.point_data),
                             (kept.field_data, read.field_data)):
            assert list(ours) == list(theirs)
            for key in ours:
                assert ours[key].dtype == theirs[key].dtype, key
                assert ours[key].shape == theirs[key].shape, key
                assert np.array_equal(ours[key], theirs[key]), key
        assert list(kept.cell_data) == list(read.cell_data)
        for key in kept.cell_data:
            for a, b in zip(kept.cell_data[key], read.cell_data[key], strict=True):
                assert a.dtype == b.dtype and np.array_equal(a, b)
    # a file changed since it was written is read again
    vtk._write_frame(series[0], 0, files[1], True)
    assert vtk._kept(files[1]) is None
    vtk._KEPT.clear()


def test_polylines_and_cell_data_layouts():
    points = np.array([[0, 0], [1, 0], [2, 0], [2, 1], [3, 1.0]])
    frame = {
        "time": 0.5,
        "points": points,
        "cells": {"polyline": [[0, 1, 2], [2, 3, 4]], "vertex": [0, 4]},
        "cell_data": {"stress": {"polyline": [10.0, 20.0], "vertex": [0.0, 0.0]}},
        "point_data": {"v": np.ones((5, 2))},
    }
    m = to_meshio(frame)
    assert m.points.shape == (5, 3)
    assert m.cells[0].type == "line" and m.cells[0].data.tolist() == [
        [0, 1],
        [1, 2],
        [2, 3],
        [3, 4],
    ]
    assert m.cell_data["stress"][0].tolist() == [10.0, 10.0, 20.0, 20.0]
    assert m.point_data["v"].shape == (5, 3)
    with pytest.raises(ModelError, match="point data 'w' has 4 rows for 5 points"):
        to_meshio({**frame, "point_data": {"w": np.zeros(4)}}, index=7)
    with pytest.raises(ModelError, match="cell data 'c' has 3 rows for 4 cells"):
        to_meshio({**frame, "cell_data": {"c": np.zeros(3)}})
    with pytest.raises(ModelError, match="missing \\['points'\\]"):
        to_meshio({"time": 0.0, "cells": {}})


def test_interrupted_writer_leaves_a_valid_collection(tmp_path):
    mesh, series = frames(6)

    def solver():
        for k, frame in enumerate(series):
            if k == 3:
                raise RuntimeError("Newton diverged")
            yield frame

    with pytest.raises(RuntimeError, match="Newton diverged"), SeriesWriter(tmp_path, "run") as w:
        for frame in solver():
            w.add(frame)
    times, meshes = read_series(tmp_path / "run.pvd")
    assert np.array_equal(times, np.linspace(0.0, 0.4, 6)[:3])
    assert [len(m.points) for m in meshes] == [19, 19, 19]
    # A new series with the same name replaces the old frames.
    write_series(tmp_path, "run", series[:1])
    assert len(list((tmp_path / "run").glob("*.vtu"))) == 1


def test_read_series_errors(tmp_path):
    with pytest.raises(ModelError, match="cannot read collection"):
        read_series(tmp_path / "none.pvd")
    write_series(tmp_path, "s", frames(2)[1])
    (tmp_path / "s" / "s_000001.vtu").unlink()
    with pytest.raises(ModelError, match=r"s_000001\.vtu.*does not exist"):
        read_series(tmp_path / "s.pvd")


# ---------------------------------------------------------------------- pictures
def test_snapshot_is_not_blank(tmp_path):
    mesh, series = frames(2, "hexagon_96")
    png = render.snapshot(
        series[1],
        tmp_path / "snap.png",
        scalars="displacement",
        warp=True,
        scale=3.0,
        window_size=(320, 240),
        title="t = 0.4 s",
    )
    image = iio.imread(png)
    assert image.shape[:2] == (240, 320)
    assert image.std() > 20.0  # a white picture has std 0
    assert headless.ensure_offscreen() in {"display", "env", "egl", "osmesa", "xvfb"}


def test_snapshot_lines_as_tubes(tmp_path):
    points = np.array([[0, 0, 0], [0.1, 0, 0.05], [0.2, 0.1, 0.1]])
    cable = {
        "time": 0.0,
        "points": points,
        "cells": {"polyline": [[0, 1, 2]]},
        "point_data": {"s": np.arange(3.0)},
    }
    png = render.snapshot(
        cable,
        tmp_path / "tube.png",
        scalars="s",
        tube_radius=0.01,
        camera="xz",
        window_size=(160, 128),
    )
    assert iio.imread(png).std() > 10.0
    with pytest.raises(ModelError, match="no point or cell data 'T'"):
        render.snapshot(cable, tmp_path / "x.png", scalars="T")
    with pytest.raises(ModelError, match="unknown camera 'top'"):
        render.snapshot(cable, tmp_path / "x.png", camera="top", window_size=(64, 64))


def test_animation_mp4_and_gif(tmp_path, monkeypatch):
    mesh, series = frames(6)
    path, count = movies.animate(
        series,
        tmp_path / "anim.mp4",
        fps=10,
        scalars="displacement",
        warp=True,
        scale=3.0,
        window_size=(160, 128),
    )
    assert path == tmp_path / "anim.mp4" and count == 6
    assert sum(1 for _ in iio.imiter(path, plugin="FFMPEG")) == 6

    pvd = write_series(tmp_path, "s", series)  # re-rendering a stored series, every 2nd frame
    gif, count = movies.animate(
        pvd, tmp_path / "again.gif", stride=2, warp=True, window_size=(160, 128)
    )
    assert gif.suffix == ".gif" and count == 3
    assert iio.improps(gif).n_images == 3

    import imageio_ffmpeg

    def no_ffmpeg():
        raise RuntimeError("no ffmpeg here")

    monkeypatch.setattr(imageio_ffmpeg, "get_ffmpeg_exe", no_ffmpeg)
    fallback, count = movies.animate(series[:2], tmp_path / "b.mp4", window_size=(96, 96))
    assert fallback == tmp_path / "b.gif" and fallback.exists() and count == 2


def test_plot_histories(tmp_path):
    t = np.linspace(0.0, 0.8, 161)
    png = plots.plot_histories(
        t,
        {"tau": np.stack([np.sin(t), np.cos(t), t], axis=1), "d": 1e-3 * t},
        tmp_path / "h.png",
        ylabel="torque [N m]",
        title="actuator torques",
    )
    assert iio.imread(png).std() > 10.0
    with pytest.raises(ModelError, match="history 'x' has 3 values for 161 times"):
        plots.plot_histories(t, {"x": [1, 2, 3]}, tmp_path / "bad.png")
