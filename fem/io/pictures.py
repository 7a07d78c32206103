"""The pictures of a run folder, made from what is stored there (``fem run``, ``fem render``).

A run's series (``*.pvd``) becomes a movie (:func:`render_directory`), a snapshot or the
picture of its first mode (:func:`render_pictures`), drawn as :func:`picture_options`
decides — warped by the displacement, coloured by the first stress or strain field
present, the elastic deformation magnified to be seen — with the camera and close-up of
``render.json``.  Under ``fem run`` the pictures are made after ``summary.json`` is
written (:func:`request_pictures`, :func:`render_pending`): a rendering that fails is a
warning, never the loss of the run.
"""

from __future__ import annotations

import json
import time as _time
from pathlib import Path

import numpy as np

from .options import OPTIONS, TIMING, progress_bar, warn

__all__ = ["render_directory", "render_pictures", "request_pictures", "render_pending",
           "picture_options", "picture_settings", "camera_of", "effort_panel",
           "plot_residuals"]


def render_pictures(out: Path, kind: str) -> list[Path]:
    """The pictures of a run folder: ``"animation"`` (the series as a video),
    ``"snapshot"`` (the last frame of the series as ``snapshot.png``) or ``"modes"`` (the
    first mode of a modal series as ``mode_1.png``).  A rendering failure is a warning,
    never the loss of the run: the data are already on disk."""
    from . import render
    from .scenes import MODE_SHAPE

    out = Path(out)
    t0 = _time.perf_counter()
    try:
        if kind == "animation":
            return render_directory(out, fps=OPTIONS.fps)
        camera = camera_of(out)
        written = []
        for pvd in sorted(out.glob("*.pvd")):
            files = _frame_files(pvd)
            if not files:
                continue
            with progress_bar(1, f"picture {pvd.stem}", "picture") as bar:
                if kind == "modes":     # a mode's stresses mean nothing: its shape
                    opts = _snapshot_options(files[0], out, title=_mode_title(files[0]))
                    opts.update(scalars="displacement", show_edges=False,
                                normalized=MODE_SHAPE)   # no unit: an arbitrary scale
                    written.append(render.snapshot(files[0], out / "mode_1.png",
                                                   camera=camera, **opts))
                else:
                    written.append(render.snapshot(files[-1], out / "snapshot.png",
                                                   camera=camera,
                                                   **_snapshot_options(files[-1], out)))
                bar.update(1)
        return written
    except (Exception, KeyboardInterrupt) as err:   # noqa: BLE001 - reported, not lost
        if isinstance(err, KeyboardInterrupt):
            warn(f"rendering in {out} interrupted; the data and summary are complete — "
                  f"`fem render {out}` makes the pictures later")
            raise
        warn(f"rendering in {out} failed ({type(err).__name__}: {err}); the results are "
              f"complete — retry with `fem render {out}`")
        return []
    finally:
        TIMING["rendering"] += _time.perf_counter() - t0


def _mode_title(frame_file: Path) -> str | None:
    """``mode 1: 3.52 Hz`` from a mode frame's field data."""
    from ..model.mesh_files import read_meshio

    fd = read_meshio(frame_file).field_data
    if "mode" not in fd or "frequency_hz" not in fd:
        return None
    return f"mode {int(np.ravel(fd['mode'])[0])}: {float(np.ravel(fd['frequency_hz'])[0]):.4g} Hz"


def _snapshot_options(frame_file: Path, out: Path, title: str | None = None) -> dict:
    """:func:`picture_options` for one stored frame, its caption stating the magnification."""
    from ..model.mesh_files import read_meshio

    mesh = read_meshio(frame_file)
    settings = picture_settings(out)
    opts = picture_options([mesh], settings)
    opts["title"] = title or ("static state" if "deform" in opts else None)
    if isinstance(settings.get("contours"), int) and settings["contours"] > 0:
        opts["contours"] = min(int(settings["contours"]), 50)   # level lines (snapshots)
    return opts


def plot_residuals(t: np.ndarray, stats: dict, path: Path, name: str) -> Path:
    """The converged Newton residuals of every step on a log axis: the dynamic
    equations relative to the force scale [–] and, when the model has constraints, the
    largest constraint violation max|Φ| [m; m² for products of lengths].  Exact zeros
    (nothing to show on a log axis) are left out, not clipped to a tiny number."""
    from . import plots

    series = {"dynamics ‖r‖/‖f‖ [–]": stats["residual_dynamics"]}
    if "residual_constraints" in stats and np.any(np.asarray(stats["residual_constraints"]) > 0):
        series["constraints max|Φ| [m]"] = stats["residual_constraints"]
    return plots.plot_histories(t, series, path, "residual at convergence",
                                 f"{name}: Newton residual per step", logy=True)


def render_pending() -> list[Path]:
    """Render what :func:`fem.io.output.write_outputs` deferred (``OPTIONS.defer_render``).

    Under ``fem run`` the worker beside the run (:mod:`fem.core.beside`) renders them:
    it loaded the renderer while the run solved (:func:`fem.io.render.prepare`)."""
    from ..core import beside
    from .headless import needs_server

    if OPTIONS.pending and beside.allowed() and not needs_server():
        settings = {"fps": OPTIONS.fps, "progress": OPTIONS.progress}
        jobs = [beside.call(_render_beside, out, kind, settings)
                for out, kind in OPTIONS.pending]
        OPTIONS.pending.clear()
        t0 = _time.perf_counter()
        try:
            done = beside.collect(jobs, take_back=False)
        finally:
            TIMING["rendering"] += _time.perf_counter() - t0
        return [path for paths in done for path in paths]
    written = []
    while OPTIONS.pending:
        out, kind = OPTIONS.pending.pop(0)
        written += render_pictures(out, kind)
    return written


def _render_beside(out: Path, kind: str, settings: dict) -> list[Path]:
    """:func:`render_pictures` in the worker beside the run, with the run's options."""
    for key, value in settings.items():
        setattr(OPTIONS, key, value)
    return render_pictures(out, kind)


def camera_of(directory: Path) -> str | dict:
    """The camera of ``render.json``: a named view or a mapping (``view``, ``direction``,
    ``up``: :func:`fem.io.cameras.camera_axes`); ``"iso"`` when none or unreadable."""
    from ..core.errors import ModelError
    from .cameras import camera_axes

    settings = Path(directory) / "render.json"
    if not settings.is_file():
        return "iso"
    try:
        camera = json.loads(settings.read_text()).get("camera", "iso")
        camera_axes(camera)
        return camera
    except (json.JSONDecodeError, AttributeError, OSError, ModelError) as err:
        warn(f"{settings} is unreadable ({err}); using the default camera")
        return "iso"


def _frame_files(pvd: Path) -> list[Path]:
    """The frame files of a collection that exist, in its order."""
    import xml.etree.ElementTree as ET

    try:
        files = [ds.get("file") for ds in ET.parse(pvd).getroot().iter("DataSet")]
    except (OSError, ET.ParseError):
        return []
    return [pvd.parent / f for f in files if f and (pvd.parent / f).is_file()]


def request_pictures(out, kind: str = "animation") -> list[Path]:
    """Ask for the pictures of a run folder whose ``.pvd`` series a case wrote itself:
    made now, or after ``summary.json`` under ``fem run`` (deferred), or not at all with
    ``--no-render``.  ``kind``: ``"animation"`` or ``"snapshot"``."""
    if not OPTIONS.render:
        return []
    if OPTIONS.defer_render:
        OPTIONS.pending.append((Path(out), kind))
        return []
    return render_pictures(Path(out), kind)


_COLOUR_BY = ("face_von_mises_top_Pa", "von_mises_top_Pa", "von_mises_Pa", "bending_moment",
              "curvature", "axial_strain", "link_deformation_m")
"""Fields a picture is coloured by, the first present (cell or point data) wins."""


def _nice(x: float) -> float:
    """The largest of 1, 2, 5 × 10^k not above ``x`` (for a stated magnification)."""
    k = np.floor(np.log10(x))
    return float(max(m for m in (1.0, 2.0, 5.0, 10.0) if m * 10**k <= x * (1 + 1e-12)) * 10**k)


def picture_options(meshes: list, settings: dict | None = None) -> dict:
    """How to draw a stored series so that it reads at a glance (used by ``fem run`` and
    ``fem render``): warp by ``displacement`` if present; colour by the first field of
    :data:`_COLOUR_BY` present (plate von Mises stress, cable bending moment, …, the length
    of a floating-frame link's deformation); magnify
    the elastic ``deformation`` so that its largest value over the series is about 5 % of
    the picture and at most 10 % of the size of the elastic parts (1, 2 or 5 × 10^k, at
    most 1000×; 1× when it is visible already).
    ``settings`` (``render.json``) may set ``magnification`` and ``scalars`` (and, for
    a snapshot, ``contours``: level lines of the colour field across surfaces)."""
    settings = settings or {}
    opts: dict = {}
    if not meshes:
        return opts
    last = meshes[-1]
    if "displacement" in meshes[0].point_data:   # a case's own series may hold positions only
        opts["warp"] = "displacement"
    colour = settings.get("scalars")
    if colour is None:
        def finite(k):
            values = last.cell_data[k] if k in last.cell_data else [last.point_data[k]]
            return np.isfinite(np.concatenate([np.ravel(v) for v in values])).any()

        colour = next((k for k in _COLOUR_BY if (k in last.cell_data or k in last.point_data)
                       and finite(k)), None)
    if colour is not None:
        opts.update(scalars=colour, show_edges=False)    # colours read better without edges
    if "deformation" in last.point_data:
        lo = np.full(3, np.inf)
        hi = -lo
        d_max = 0.0
        elastic = np.zeros(len(last.points), bool)
        for m in meshes:
            x = m.points + m.point_data.get("displacement", 0.0)
            lo, hi = np.minimum(lo, x.min(0)), np.maximum(hi, x.max(0))
            d = np.linalg.norm(m.point_data["deformation"], axis=1)
            d_max = max(d_max, float(d.max()))
            if len(d) == len(elastic):
                elastic |= d > 0
        size = float(np.linalg.norm(hi - lo))
        # the elastic parts' own size: a plate small beside its robot is not bent out of
        # shape (its magnified deformation stays within 10 % of its size)
        part = float(np.linalg.norm(np.ptp(last.points[elastic], axis=0))) if elastic.any() \
            else size
        factor = settings.get("magnification")
        if factor is None:
            target = min(0.05 * size, 0.1 * part)
            factor = 1.0 if d_max <= 0 or d_max >= target else min(1000.0, _nice(target / d_max))
        opts.update(deform="deformation", factor=float(factor))
    return opts


def picture_settings(directory: Path) -> dict:
    path = Path(directory) / "render.json"
    try:
        data = json.loads(path.read_text()) if path.is_file() else {}
    except (json.JSONDecodeError, OSError):
        return {}
    return data if isinstance(data, dict) else {}


def _remove_stale_partials(directory: Path) -> None:
    """Delete movies a killed rendering left under their temporary names
    (``.name.<pid>.partial.mp4``) whose process no longer exists."""
    import re

    from ..core.files import process_alive, writer

    host = writer()["host"]
    for f in directory.glob(".*.partial.*"):
        m = re.match(r"^\..*\.(\d+)\.partial\.[^.]+$", f.name)
        if m and process_alive({"pid": int(m.group(1)), "host": host}) is False:
            f.unlink(missing_ok=True)


def effort_panel(times, meshes: list):
    """The torque panel of a movie: the efforts a series holds as field data in every
    frame (``effort:<actuator> [<unit>]``: the actuators, the rotary drives), as a
    :class:`fem.io.movies.HistoryPanel` labelled by their unit; ``None`` for a series
    without efforts or of one frame."""
    from .movies import HistoryPanel

    names = [k for k in (meshes[0].field_data if meshes else {}) if k.startswith("effort:")]
    if len(meshes) < 2 or not names:
        return None
    if any(set(names) - set(m.field_data) for m in meshes):
        return None                      # a frame without them: nothing consistent to plot
    series, units = {}, set()
    for key in names:
        label = key.removeprefix("effort:")
        if label.endswith("]") and " [" in label:
            label, unit = label[:-1].rsplit(" [", 1)
            units.add(unit)
        else:
            units.add("")
        series[label] = np.array([float(np.ravel(m.field_data[key])[0]) for m in meshes])
    ylabel, title = {frozenset({"N·m"}): ("torque [N·m]", "actuator torques"),
                     frozenset({"N"}): ("force [N]", "actuator forces")}.get(
        frozenset(units), ("effort [N·m or N]", "actuator efforts"))
    largest = max((float(np.nanmax(np.abs(v))) for v in series.values() if v.size),
                  default=0.0)
    if units == {"N·m"} and 0.0 < largest < 1.0:    # small torques read in N·mm (the
        series = {k: 1e3 * v for k, v in series.items()}  # vibrating screen's page, plots)
        ylabel = "torque [N·mm]"
    return HistoryPanel(np.asarray(times, float), series, ylabel, title)


def render_directory(directory, fps: int = 20) -> list[Path]:
    """Animate the ``.pvd`` series in ``directory`` (works on partial runs)."""
    from ..core.errors import ModelError
    from ..core.validate import integer
    from . import movies, render
    from .vtk import read_series, series_entries

    fps = integer(fps, "fps (frames per second)", minimum=1, maximum=240)
    directory = Path(directory)
    try:
        is_dir = directory.is_dir()
    except OSError as err:
        raise ModelError(f"cannot read {directory}: {err.strerror or err}") from None
    if not is_dir:
        raise ModelError(f"{directory} is not a folder; give the --out folder of a run")
    pvds = sorted(directory.glob("*.pvd"))
    if not pvds:
        raise ModelError(f"no .pvd series in {directory}; run a case with --out {directory}")
    render.check_writable(directory, directory / f"{pvds[0].stem}.mp4")   # "cannot write", early
    _remove_stale_partials(directory)
    camera = camera_of(directory)
    out = []
    for pvd in pvds:
        n = len(series_entries(pvd))
        with progress_bar(n, f"reading {pvd.stem}", "frame") as bar:
            times, meshes = read_series(pvd, skip_unreadable=True, progress=bar.update)
        if len(meshes) == 0:
            warn(f"{pvd}: no readable frame; nothing to animate")
            continue
        stride = max(1, int(np.ceil(len(meshes) / OPTIONS.max_frames)))
        settings = picture_settings(directory)
        with progress_bar(len(range(0, len(meshes), stride)), f"rendering {pvd.stem}.mp4",
                          "frame") as bar:
            path, _ = movies.animate(meshes, directory / f"{pvd.stem}.mp4", fps=fps,
                                     stride=stride, camera=camera, times=times,
                                     window_size=OPTIONS.window_size, progress=bar.update,
                                     panel=effort_panel(times, meshes),
                                     detail=settings.get("detail"),
                                     **picture_options(meshes, settings))
        out.append(path)
    return out
