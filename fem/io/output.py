"""From a model and its result to the run layout (``docs/output.md``).

* :func:`drawing_for` — the drawing of a model: a :class:`fem.io.drawing.Drawing` of its
  element groups (a linear map of ``q``), or for a floating-frame model in minimal
  coordinates the adapter :class:`fem.io.centreline.CentrelineDrawing`, or with bodies
  drawn on their FE meshes :class:`fem.io.fe_bodies.BodyMeshes`.
* :func:`stream` — a :class:`~fem.Result` that writes result chunks and one ``.vtu`` per
  output step (plus the ``.pvd`` collection) *while* the run goes on.
* :func:`write_outputs` — what ``fem run`` leaves in the output folder: result arrays,
  ParaView series, residual and sensor plots, and the pictures
  (:mod:`fem.io.pictures`).
"""

from __future__ import annotations

import json
import time as _time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..solvers.results import Modes, Result, jsonable
from .cameras import low_camera
from .drawing import Drawing
from .options import OPTIONS, TIMING
from .pictures import plot_residuals, request_pictures

if TYPE_CHECKING:
    from .centreline import CentrelineDrawing

__all__ = ["drawing_for", "stream", "write_outputs", "mode_scale", "mode_fields", "jsonable"]


def drawing_for(model) -> Drawing | CentrelineDrawing:
    """The drawing of ``model``: a :class:`fem.io.drawing.Drawing` of its element groups, or for a
    floating-frame model in minimal coordinates (one whose ``drawing`` is "centrelines")
    a :class:`fem.io.centreline.CentrelineDrawing`; with bodies drawn on
    their FE meshes (a reduced platform) a :class:`fem.io.fe_bodies.BodyMeshes`.  All give
    ``frame(t, q, v, lam)``, ``ref``, ``group_names`` and ``view`` (the camera)."""
    from .centreline import CentrelineDrawing
    from .fe_bodies import BodyMeshes

    if CentrelineDrawing.draws(model):
        return CentrelineDrawing(model)
    drawing = Drawing(model)
    return BodyMeshes(model, drawing) if BodyMeshes.draws(model) else drawing


def stream(out, model, sensors=None, name: str | None = None, every: int | None = None
           ) -> Result:
    """A Result that streams chunks to ``out/result/`` and VTK frames to ``out/`` as it
    records (memory only when ``out`` is None)."""
    if every is not None:
        from ..core.validate import integer

        every = integer(every, "stream: every (a VTK frame every N records; 0: automatic)",
                        minimum=0)
    if out is None:
        return Result(sensors)
    out = Path(out)
    from .vtk import SeriesWriter, StateFrame

    drawing = drawing_for(model)
    writer = SeriesWriter(out, name or model.name)
    from ..core import beside

    # the worker beside the run started again from here, with the model built and the
    # drawing shared: it makes the frames from the states (a sixth of the flagship's
    # solve) and runs the references with the kernels loaded
    key = beside.share(drawing)
    if not OPTIONS.render:          # with pictures, the worker is loading the renderer
        beside.refork()

    def on_record(i, t, q, v, a, lam):
        k = every or OPTIONS.every or max(1, -(-res.expected_records // OPTIONS.max_vtk))
        if i % k == 0 or i == res.expected_records - 1:
            t0 = _time.perf_counter()
            sensors = res.latest_sensors()
            if len(writer) and beside.knows(key):   # copies: the solver reuses its arrays
                frame = StateFrame(key, float(t), (
                    float(t), np.array(q), None if v is None else np.array(v),
                    None if lam is None else np.array(lam),
                    {n: np.array(s) for n, s in sensors.items()}))
            else:
                frame = drawing.frame(t, q, v, lam, sensors)
            file = writer.add(frame)
            if len(writer) == 1:
                _disk_for_frames(file, 1 + -(-(res.expected_records - 1) // k), out)
            TIMING["writing"] += _time.perf_counter() - t0

    res = Result(sensors, directory=out / "result", on_record=on_record)
    res.expected_records = 1
    res.drawing, res.writer = drawing, writer
    return res


def _disk_for_frames(first: Path, n_frames: int, out: Path) -> None:
    """Refuse, after the first frame, a series whose frames would not fit on the disk
    (their number times the first one's size, against the free space of ``out``)."""
    import shutil

    from ..core.errors import ModelError
    from ..core.validate import bytes_text

    size = first.stat().st_size
    need, free = size * float(n_frames), shutil.disk_usage(out).free
    if need > 0.9 * free:
        raise ModelError(f"--every: {n_frames} VTK frames of about {bytes_text(size)} each "
                         f"would need {bytes_text(need)} of disk; {out} has "
                         f"{bytes_text(free)} free; give a larger --every (a frame every N "
                         f"steps) or free some space")


def _sensor_plots(sensors: dict, n: int) -> dict[str, dict[str, np.ndarray]]:
    """The history plots of a run's sensors: file stem → {curve label: values}.

    One plot a sensor (``energy_J.png``), except where several sensors measure the same
    quantity of different parts — named ``"<part> <quantity>_<unit>"``, as a robot's
    joints and motors are (``"limb 1 R1 angle_rad"``, ``"motor 2 effort_Nm"``): those share
    one plot, a curve a part (``angle_rad.png``: every joint's angle), unless a sensor is
    named as that plot would be.  Sensors that are not numbers over the run's steps are
    left out."""
    from ..core.units import split_unit

    numeric = {}
    for k, v in sensors.items():
        v = np.asarray(v)
        if v.ndim <= 2 and v.shape[0] == n and np.issubdtype(v.dtype, np.number):
            numeric[k] = v
    # "<part> <quantity>" of a scalar history: (part, quantity), else None
    split = {k: tuple(k.strip().rsplit(" ", 1)) if " " in k.strip() and v.ndim == 1
             else None for k, v in numeric.items()}
    count: dict[str, int] = {}
    for pq in split.values():
        if pq is not None:
            count[pq[1]] = count.get(pq[1], 0) + 1
    out: dict[str, dict[str, np.ndarray]] = {}
    for k, v in numeric.items():
        pq = split[k]
        if pq is not None and count[pq[1]] > 1 and pq[1] not in numeric:
            out.setdefault(pq[1], {})[pq[0]] = v
        else:
            out[k] = {split_unit(k)[0].replace("_", " "): v}
    return out


def write_outputs(out, model, result=None, figures: dict | None = None,
                  state=None, picture: dict | None = None) -> list[Path]:
    """Write what a finished run leaves behind: the result arrays in ``out/result/``
    (read by :meth:`fem.Result.load`), the ParaView series ``out/<model>.pvd`` with its
    frames in ``out/<model>/``, ``figures.json``, ``render.json``, residual and sensor
    plots, and (deferred under ``fem run``) the pictures.  See ``docs/output.md``.

    Parameters
    ----------
    out : folder
    model : the model (its drawing gives the frames)
    result : fem.Result, fem.ModalResult or None
        A time series (streamed by :func:`stream`, or in memory: then written here), or
        the modes of a modal analysis (about ``state``, default ``model.q0``).
    figures : dict
        The run's figures (``figures.json``).
    state : array or fem.StaticResult, optional
        Without a time series: a static equilibrium (a result with its multipliers gives
        the actuator efforts too); with modes: the configuration they are about.
    picture : dict, optional
        A case's own picture settings (``camera``, ``scalars``, ``magnification``,
        ``detail``), written to ``render.json`` over those its drawing declares
        (:attr:`fem.io.drawing.Drawing.picture`).
    """
    from ..core.errors import ModelError
    from ..core.units import axis_label, split_unit
    from . import plots

    if not isinstance(figures, dict):
        raise ModelError(f"write_outputs: figures must be a dict name -> value; got "
                         f"{figures!r:.60}")
    from ..solvers.modal import ModalResult

    if result is not None and not isinstance(result, Result | ModalResult | Modes):
        raise ModelError(f"write_outputs: result must be a fem.Result, a fem.ModalResult "
                         f"or None; got {type(result).__name__}")
    modal = result is not None and result.kind == "modal"
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    drawing = (result.drawing if isinstance(result, Result) else None) or drawing_for(model)
    t0 = _time.perf_counter()
    kind = None
    if modal:
        q, _ = _state(state)
        modes = Modes.of(result, model.q0 if q is None else q)
        modes.save(out / "result")
        written.append(_write_mode_series(out, model.name, drawing, modes))
        kind = "modes"
    elif result is not None and len(result):
        result.finish()
        if result.writer is None:
            from .vtk import SeriesWriter

            w = SeriesWriter(out, model.name)
            k = OPTIONS.every or max(1, -(-len(result.t) // OPTIONS.max_vtk))
            for i in range(0, len(result.t), k):
                w.add(drawing.frame(result.t[i], result.q[i], result.v[i], result.lam[i],
                                    {n: s[i] for n, s in result.sensors.items()}))
            w.close()
            result.save_folder(out / "result")
        else:
            result.writer.close()
        TIMING["writing"] += result.write_seconds
        written.append(out / f"{model.name}.pvd")
        st = result.stats
        if "residual_dynamics" in st and len(result.t) > 1:
            written.append(plot_residuals(result.t, st, out / "residuals.png", model.name))
        for k, series in _sensor_plots(result.sensors, len(result.t)).items():
            label = axis_label(k)                     # energy_J → energy [J]
            quantity = split_unit(k)[0].replace("_", " ")
            written.append(plots.plot_histories(result.t, series, out / f"{k}.png", label,
                                                 f"{model.name}: {quantity}"))
        kind = "animation" if len(result.t) > 1 else "snapshot"
    elif state is not None:
        written.append(_write_static(out, model, drawing, state))
        kind = "snapshot"
    from ..core.files import atomic_write_text

    settings = {**drawing.picture, **(picture or {})}
    if "camera" in settings:
        from .cameras import camera_axes

        camera_axes(settings["camera"])          # a bad camera is named before the run ends
    if "camera" in (picture or {}) and "detail" in settings and "detail" not in picture:
        # the close-up follows the case's own camera
        settings["detail"] = {**settings["detail"],
                              "camera": low_camera(settings["camera"], 25.0)}
    atomic_write_text(out / "render.json", json.dumps(jsonable(settings)))
    # the figures are on disk before any picture is attempted: nothing computed is lost
    atomic_write_text(out / "figures.json", json.dumps(jsonable(
        {k: v for k, v in figures.items() if not isinstance(v, list) or len(v) < 50}),
        indent=1))
    written.append(out / "figures.json")
    TIMING["writing"] += _time.perf_counter() - t0
    if kind is not None:
        written += request_pictures(out, kind)
    return written


def _state(state) -> tuple:
    """``(q, λ)`` of a state given as a static equilibrium (``fem.StaticResult``, its
    multipliers with it) or as coordinates (no multipliers)."""
    from ..solvers.static import StaticResult

    return (state.q, state.lam) if isinstance(state, StaticResult) else (state, None)


def _write_static(out: Path, model, drawing, state) -> Path:
    """A static equilibrium: ``result/`` with its one record (time 0, zero rates, the
    multipliers when ``state`` is a solver result) and a one-frame series."""
    from .vtk import SeriesWriter

    q, lam = _state(state)
    q = np.asarray(q, float)
    res = Result(info={"analysis": "static"})
    res.record(0.0, q, np.zeros_like(q), np.zeros_like(q),
               np.zeros(0) if lam is None else np.asarray(lam, float))
    res.save_folder(out / "result")
    with SeriesWriter(out, model.name) as w:
        w.add(drawing.frame(0.0, q, None, lam))
    return w.pvd_path


def mode_scale(drawing, q: np.ndarray, shape: np.ndarray, fraction: float = 0.05) -> float:
    """The factor that makes a mode's largest drawn displacement ``fraction`` of the
    model's size (the diagonal of its drawn box), from the drawing's frames (any
    drawing: element groups, centre lines, bodies on their FE meshes)."""
    at, moved = drawing.frame(0.0, q), drawing.frame(0.0, q + shape)
    ref = np.asarray(at.points) + at.point_data["displacement"]
    size = float(np.linalg.norm(np.ptp(ref, axis=0))) or 1.0
    move = float(np.linalg.norm(moved.point_data["displacement"]
                                - at.point_data["displacement"], axis=1).max())
    return fraction * size / move if move > 0 else 0.0


def mode_fields(number: int, frequency_hz: float, omega2: float) -> dict[str, np.ndarray]:
    """Field data of a mode's frame: ``mode`` (1, 2, …), ``frequency_hz``, ``omega2``."""
    return {"mode": np.array([number]), "frequency_hz": np.array([float(frequency_hz)]),
            "omega2": np.array([float(omega2)])}


def _write_mode_series(out: Path, name: str, drawing, modes: Modes) -> Path:
    """One frame per mode: the state plus the mode shape scaled to 5 % of the model's
    size (:func:`mode_scale`); the collection's "time" is the mode number (ParaView steps
    through the modes), the frequency is field data of each frame."""
    from .vtk import SeriesWriter

    with SeriesWriter(out, name) as w:
        for j in range(len(modes)):
            shape = modes.shapes[:, j]
            q = modes.q + mode_scale(drawing, modes.q, shape) * shape
            frame = drawing.frame(float(j + 1), q)
            frame.field_data.pop("TimeValue", None)
            frame.field_data.update(mode_fields(j + 1, modes.frequencies_hz[j],
                                                modes.omega2[j]))
            w.add(frame)
    return w.pvd_path
