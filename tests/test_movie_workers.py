"""Pictures and movies: movies drawn by several processes are the movie drawn
by one, the torque panel's marker, supports and the screen deck drawn, the plate's level
lines, the mode picture's colour bar."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fem.cases import load_case
from fem.io import movies, render, scenes
from fem.io.drawing import Drawing
from fem.io.vtk import Frame
from fem.model.mesh_files import load_builtin_mesh


def _frames(n: int) -> list[Frame]:
    """A hexagonal plate whose dish deepens and which turns about z: its colours, shape
    and place change from frame to frame."""
    mesh = load_builtin_mesh("hexagon_24")
    x = mesh.vertices
    r2 = (x[:, :2] ** 2).sum(axis=1)
    out = []
    for t in np.linspace(0.0, 1.0, n):
        c, s = np.cos(0.5 * t), np.sin(0.5 * t)
        turned = x @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]).T
        u = turned - x
        u[:, 2] -= 0.02 * t * (1.0 - r2 / r2.max())
        out.append(Frame.from_mesh(mesh, float(t), displacement=u))
    return out


def _captured(monkeypatch, **kwargs) -> list[np.ndarray]:
    """The images :func:`fem.io.movies.animate` hands its encoder, as they are."""
    got: list[np.ndarray] = []

    class Writer:
        def append_data(self, image):
            got.append(np.array(image))

        def close(self):
            pass

    def open_writer(path, fps):
        gif = path.with_suffix(".gif")
        gif.write_bytes(b"")
        return Writer(), gif

    monkeypatch.setattr(movies, "_open_writer", open_writer)
    movies.animate(_frames(18), kwargs.pop("path"), scalars="displacement", warp=True,
                   window_size=(192, 144), **kwargs)
    return got


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="movie workers are forked")
def test_movie_drawn_by_workers_is_the_movie_drawn_by_one(tmp_path, monkeypatch):
    """Each worker process draws with its own off-screen plotter, the first frame first;
    the frames arrive in order and are the same, pixel for pixel, as drawn in one
    process (a worker that started elsewhere placed the axes triad's labels apart)."""
    panel = movies.HistoryPanel(np.linspace(0, 1, 18), {"a": np.linspace(0, 1, 18)},
                                "torque [N·m]")
    one = _captured(monkeypatch, path=tmp_path / "one.gif", workers=1, panel=panel)
    panel = movies.HistoryPanel(np.linspace(0, 1, 18), {"a": np.linspace(0, 1, 18)},
                                "torque [N·m]")
    three = _captured(monkeypatch, path=tmp_path / "three.gif", workers=3, panel=panel)
    assert len(one) == len(three) == 18
    assert all(np.array_equal(a, b) for a, b in zip(one, three, strict=True))
    assert not np.array_equal(one[0], one[-1])          # the frames do differ


def test_worker_count():
    assert movies._worker_count(100, 3) == 3
    assert movies._worker_count(2, 8) == 2              # never more than frames
    assert movies._worker_count(7, None) == 1           # a short movie: drawn here


def test_panel_draws_only_the_marker_anew():
    """The panel's curves are drawn once; a frame restores them and draws the marker:
    two times differ only near the two markers, and the same time gives the same image."""
    t = np.linspace(0.0, 1.0, 50)
    panel = movies.HistoryPanel(t, {"a": np.sin(3 * t), "b": t}, "torque [N·m]")
    early, late = panel.image(0.2, 320, 240), panel.image(0.8, 320, 240)
    assert np.array_equal(panel.image(0.2, 320, 240), early)
    cols = np.flatnonzero(np.abs(early.astype(int) - late.astype(int)).sum(axis=(0, 2)))
    ax = panel._figure[1].axes[0]
    to_px = ax.transData.transform
    x02, x08 = to_px([(0.2, 0.0), (0.8, 0.0)])[:, 0]
    near = np.minimum(np.abs(cols - x02), np.abs(cols - x08))
    assert cols.size and near.max() < 12                   # marker line and dots only


def test_pendulum_hangs_from_a_drawn_pivot_and_ceiling():
    """A pivot is a fixed point a link is pinned to (no coordinate of the link is fixed):
    drawn as a support, with the ceiling filled."""
    model = load_case("double_pendulum").build()
    d = Drawing(model)
    frame = d.frame(0.0, model.q0)
    support = d.group_names.index("supports (sketch)")
    vertices = [c for c, g in zip(d.cells["vertex"], d.cell_group["vertex"], strict=True)
                if g == support]
    assert len(vertices) == 1 and np.allclose(d.ref[vertices[0][0]], 0.0)
    ceiling = d.group_names.index("ceiling (sketch)")
    assert ceiling in d.cell_group["triangle"]
    scene = scenes.build_scene(frame, None, True, 1.0, None)
    kinds = [k for k, _ in scene.parts]
    assert "support" in kinds and "ground" in kinds


def test_vibrating_screen_draws_its_deck():
    """The screen: a surface moving with the platform link, beside its rods."""
    case = load_case("vibrating_screen_1t2r")
    model = case.robot().model
    d = Drawing(model)
    assert "screen deck (mesh)" in d.group_names
    deck = d.group_names.index("screen deck (mesh)")
    tri = [c for c, g in zip(d.cells["triangle"], d.cell_group["triangle"], strict=True)
           if g == deck]
    assert len(tri) == 2
    pts = np.unique(np.concatenate(tri))
    q = model.q0.copy()                     # moved with the platform's origin
    q[model.node_dofs(model.bodies["platform"].node, "r")] += (0.0, 0.0, 0.01)
    assert np.allclose(d.points(q)[pts] - d.ref[pts], (0.0, 0.0, 0.01))
    scene = scenes.build_scene(d.frame(0.0, model.q0), None, True, 1.0, None)
    assert "surface" in [k for k, _ in scene.parts]


def test_plate_level_lines_and_mode_colour_bar():
    """Level lines across a coloured surface (the plate benchmark's dish); a mode's
    colours are normalized, the bar titled without a unit, on two lines."""
    frame = _frames(3)[-1]
    common = dict(scalars="displacement", camera="iso", warp=True, scale=1.0,
                  tube_radius=None, window_size=(320, 240), clim=None, cmap="viridis",
                  show_edges=False, title=None, background="white", deform=None,
                  factor=1.0, triad=False)
    plotter = render._composed(frame, **common, contours=5)
    try:
        assert any(name.startswith("contours") for name in plotter.actors)
        assert any("[mm]" in bar for bar in plotter.scalar_bars.keys())
    finally:
        plotter.close()
    plotter = render._composed(frame, **common, normalized=scenes.MODE_SHAPE)
    try:
        assert list(plotter.scalar_bars.keys()) == ["mode shape,\nnormalized"]
    finally:
        plotter.close()
    assert scenes._two_lines("displacement magnitude [µm]") == \
        "displacement\nmagnitude [µm]"
    assert scenes._two_lines("link deformation [mm]") == "link deformation\n[mm]"
    assert scenes._two_lines("curvature [1/m]") == "curvature [1/m]"


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="movie workers are forked")
def test_interrupted_movie_with_workers_leaves_nothing(tmp_path):
    """Ctrl-C while workers draw: the workers are ended, no movie and no partial file."""
    calls = []

    def stop(_):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        movies.animate(_frames(18), tmp_path / "m.mp4", warp=True, window_size=(96, 96),
                       workers=2, progress=stop)
    assert list(tmp_path.iterdir()) == []
    import multiprocessing

    assert not multiprocessing.active_children()


def test_frames_are_shared_out_evenly():
    """Every frame is drawn by exactly one worker, each worker's frames spread over the
    movie."""
    shares = [list(movies._share(k, 10, 3)) for k in range(3)]
    assert shares == [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]]
    assert sorted(i for s in shares for i in s) == list(range(10))


def test_outlines_fit_the_movie_as_the_scenes_do():
    """The camera, colour range and unit fitted from the workers' outlines of the scenes
    are those fitted from the scenes themselves."""
    frames = _frames(6)
    full = [scenes.build_scene(f, "displacement", True, 1.0, None) for f in frames]
    outlines = [movies._outline(s) for s in full]
    fit = {"window_size": (192, 144), "background": "white", "clim": None,
           "cmap": "viridis", "show_edges": True, "camera": "iso", "close_up": None,
           "triad": True, "title": None, "panel": None}
    a, change_a = movies._fitted(full, list(range(6)), range(6), **fit)
    b, change_b = movies._fitted(outlines, list(range(6)), range(6), **fit)
    assert change_a == change_b and change_a is not None
    assert a.colour_range == b.colour_range and a.bounds == b.bounds
    assert np.array_equal(a.samples, b.samples)
    assert all(not s.parts for s in b.scenes)              # outlines carry no geometry


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="movie workers are forked")
def test_an_error_building_frames_in_a_worker_is_raised_here(tmp_path):
    """A frame the workers cannot draw: the same error as drawn in one process, the
    workers ended, no movie."""
    from fem.core.errors import ModelError

    with pytest.raises(ModelError, match="no point or cell data 'nothing'"):
        movies.animate(_frames(18), tmp_path / "m.mp4", scalars="nothing",
                       window_size=(96, 96), workers=2)
    assert list(tmp_path.iterdir()) == []
    import multiprocessing

    assert not multiprocessing.active_children()


def test_parts_drawn_with_their_own_normals_are_drawn_as_pyvista_smooth_shades_them():
    """A movie gives the parts it draws smooth (a tube, a surface without edges) their
    point normals itself and draws them without PyVista's normals filter: the pixels are
    those of PyVista's smooth shading; read from the window's front buffer, they are
    those of PyVista's screenshot."""
    import pyvista as pv

    mesh = load_builtin_mesh("hexagon_24")
    x = mesh.vertices
    dish = np.zeros_like(x)
    dish[:, 2] = -0.02 * (1.0 - (x[:, :2] ** 2).sum(axis=1) / (x[:, :2] ** 2).sum(axis=1).max())
    plate = scenes.build_scene(Frame.from_mesh(mesh, 0.0, displacement=dish), "displacement",
                               True, 1.0, None, None, 1.0)
    line = pv.Spline(np.array([[0.0, 0.0, 0.0], [0.3, 0.2, 0.1], [0.6, 0.1, 0.3]]), 20)
    line["curvature"] = np.linspace(0.0, 1.0, line.n_points)
    tube = line.tube(radius=0.02, n_sides=16, capping=True)
    parts = [*plate.parts, ("line", tube)]
    assert scenes.smooth_shaded("line", tube, True)
    assert scenes.smooth_shaded("surface", plate.parts[0][1], False)
    pictures = []
    for shaded in (False, True):
        scene = dataclasses.replace(plate, parts=[
            (kind, scenes.with_normals(poly) if shaded and
             scenes.smooth_shaded(kind, poly, False) else poly) for kind, poly in parts])
        plotter = render.new_plotter((160, 128), "white", smooth_edges=False)
        try:
            scenes.draw_scene(plotter, scene, scenes.scalar_range([plate]), "viridis", False,
                              reset_camera=True, shaded=shaded)
            plotter.camera_position = "iso"
            plotter.reset_camera()
            first = np.asarray(plotter.screenshot(return_img=True))[..., :3]
            pictures.append(first)
            again = movies._picture(plotter)          # the front buffer, read directly
            assert np.array_equal(again, first)
        finally:
            plotter.close()
    assert pictures[0].std() > 0                       # something drawn
    assert np.array_equal(pictures[0], pictures[1])
